// Package scenarios holds the scenario format, the workloads that drive each
// recipe kind, and the built-in scenario library.
//
// It is empty in this version; the scenarios issue fills it.
package scenarios
