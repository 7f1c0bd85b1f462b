// Package scenarios is one run: a Spec (spec.go: a recipe kind and the
// implementation under test, the ensemble, the workload's shape, the
// faults and the checks) made into one world, the simulator's (Run) or a
// live ensemble's (RunLive), with the kind's workload (package workload)
// recording what each client observed, and judged by one step both worlds
// share (judge.go); the causes read back from a run to explain a
// violation; the scenario file format and the built-in library.
//
// It must never hold a world of its own (the worlds are sim's and live's;
// their faults are fault's), say what a kind's clients do (that is package
// workload), run many runs (searching seeds, shrinking and exploring are
// package search's), render a run for people (that is package reports), or read a
// fault back from its text: a fault travels as data.
//
// Its files are listed in docs/ARCHITECTURE.md.
package scenarios
