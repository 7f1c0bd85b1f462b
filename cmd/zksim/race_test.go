//go:build race

package main

// raceDetector says the test binary runs under the race detector, in which
// a benchmark measures nothing worth its minutes.
const raceDetector = true
