// Package models holds the checkers: porcupine models, invariant and
// liveness checkers, herd metrics and history recording.
//
// It is empty in this version; the checking issue fills it. It must stay
// deterministic: no wall clock, no global math/rand.
package models
