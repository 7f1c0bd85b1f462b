// Package models judges what clients observed. A run records a history
// (history.go): one Operation per call a client made, in the vocabulary of
// its recipe kind (acquire, use and release of a lock; put and take of a
// queue; enter and leave of a double barrier; ...), with its call and
// return times and what it answered. Checkers (check.go) judge a history,
// each by name, and report Violations a person reads: the check, its kind
// (safety, liveness or herd), the object, the time, what went wrong and
// the operations that show it. Where the history cannot show why, a
// violation asks the run a typed question (question.go: the node a lock's
// waiters waited behind, the server a stale read came from, what struck
// between two holdings, ...), which the check that finds it sets; the run
// answers it in the violation's Cause (Violation.Explain), and nothing
// reads a message's words back to learn what it asks.
//
// The checks:
//
//   - porcupine models, for the objects whose property is linearizability
//     (linearizable.go), each partitioned per object: "mutex" and
//     "fenced-mutex" (mutex.go, fencedmutex.go: one holder at a time as the
//     uses show; over a fenced resource, what the resource accepted),
//     "election" (a leadership as a lease), "rwlock" (rwlock.go), "fifo" and
//     "priority-queue" (queue.go), "store" and "store-writes" (store.go:
//     the znode store, every path a register), "counter" (counter.go: each
//     add changes the value by its delta, once; an add of unknown outcome
//     may or may not have). A busy lock would cost
//     porcupine's search dearly, so the lock models first replay the order
//     a lock that behaved takes (each holding in turn; for the fenced
//     mutex, grants and accepted uses in token order: Model.Witness),
//     which proves most histories linearizable in n log n time, and
//     otherwise give porcupine the history in independent parts, each
//     operation's interval narrowed to what every linearization respects
//     (Model.Narrow); neither changes a verdict, and a history that fails
//     is checked again and shown as recorded;
//   - invariant checkers: "barrier", "double-barrier", "2pc" (agreement and
//     validity), "membership" (the list converges to the live members),
//     "config" (no reader goes back; every reader hears of the last
//     version), "naming" (no two owners; no orphaned registration);
//   - "liveness" (liveness.go): a client that keeps waiting although
//     nothing blocks it (a lock nobody holds: the orphaned node; a
//     non-empty queue; a lowered barrier; a 2PC decision no failure
//     excuses), beyond a bound in virtual time or for ever in a run that
//     got stuck;
//   - "herd" (herd.go): the notifications and requests each release
//     causes, counted from the servers' traffic (traffic.go), and a
//     release that wakes more clients than can proceed.
//
// Checking must cost little next to a simulated run, and stay practical on
// ten thousand clients waiting for one lock: the checks run in n·log n of
// the history and the traffic, and allocate little (an allocation costs
// more than the comparisons around it).
//
// It works on histories alone, so a history recorded in the simulator, on a
// live ensemble, or by a user's own harness is checked the same way. It must
// stay deterministic: no wall clock (times come from the history), no global
// math/rand, no goroutines; output never depends on map iteration.
//
// Its files are listed in docs/ARCHITECTURE.md.
package models
