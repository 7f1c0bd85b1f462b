// Package scenarios runs experiments on the recipes in the simulator and
// judges them: a Spec (spec.go) names a recipe kind and the implementation
// under test (the recipe, a teaching variant, or a user's own, see
// implementation.go), the ensemble, the workload, the faults and the
// checks; Run (run.go) makes one run of it from a seed and checks what the
// clients observed.
//
// Each kind's workload has its own file, registered in kinds.go: the lock,
// the election and the shared lock (holding.go, over a resource that can
// be fenced), the revocable lock (revocable.go), the barrier, the double
// barrier, the queue and the priority queue, two-phased commit,
// membership, configuration and the name service. A workload records each
// client's operations (recording.go) in the vocabulary of package models,
// and the simulator's trace gives the servers' traffic (traffic.go) for
// the herd checks.
//
// Finding and explaining counterexamples:
//
//   - Search (search.go) runs a range of seeds in parallel, optionally one
//     Shard of it, so several machines or CI jobs split the range;
//   - Shrink and Hunt (shrink.go) drive runs from rapid: Shrink makes a
//     failing run smaller (fewest faults, clients, rounds), Hunt draws
//     whole runs and shrinks the first that fails;
//   - Explore (explore.go) enumerates every fault schedule within a bound,
//     each fault tied to one of the run's writes, and says how many it ran;
//   - Timeline (timeline.go) and ViolationReport (report.go) show a failing
//     run: a column per client and server, the history as JSON, porcupine's
//     visualization.
//
// Lessons (teaching.go) pair each teaching variant with the experiment that
// breaks it. The store workload (store.go) and the stale-read scenario
// (staleread.go) check the znode store itself.
//
// Workload clients run inside the simulator and follow its rules (no
// goroutines, no wall clock); Search runs whole runs on goroutines of its
// own.
package scenarios
