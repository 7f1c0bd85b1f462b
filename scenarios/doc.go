// Package scenarios is the assembler: a run is a Spec (spec.go: a recipe
// kind and the implementation under test, the ensemble, the workload, the
// faults and the checks) made into one world, the simulator's (Run) or a
// live ensemble's (RunLive), with the kind's workload recording what each
// client observed, and judged by one step both worlds share (judge.go).
// Around that: the scenario file format and the built-in library, the
// search over seeds (in shards), shrinking with rapid, bounded exhaustive
// exploration, and the causes read back from a run to explain a violation.
//
// It must never hold a world of its own (the worlds are sim's and live's;
// their faults are fault's), render a run for people (that is package
// reports), or read a fault back from its text: a fault travels as data.
// Workload clients run inside a world and follow its rules (no goroutines,
// no wall clock); Search runs whole runs on goroutines of its own.
//
// Its files are listed in docs/ARCHITECTURE.md.
package scenarios
