// Package search is many runs: a scenario's seeds swept in parallel (in
// shards), the verdict of its seeds against what it expects, the first
// seed that breaks a spec, shrinking a failing run to a minimal
// counterexample with rapid (and the moves that mend and minimize it),
// and bounded exhaustive exploration of every fault schedule within a
// bound.
//
// Each run is scenarios': this package assembles none and must never
// import a world (sim, live) or say what one run does; it only chooses
// which runs to make (their seeds, their schedules, their size) and what
// their outcomes together conclude. Workers run on goroutines of its own,
// each run staying deterministic inside its world.
//
// Its files are listed in docs/ARCHITECTURE.md.
package search
