// Package sim is the simulated world: a deterministic discrete-event model of
// a ZooKeeper server and its client sessions, driven by one seeded source of
// choices.
//
// The pieces, one file each:
//
//   - scheduler.go: the virtual clock, the event queue ordered by (time,
//     sequence), and the loop that fires due events, else steps one runnable
//     client, else advances the clock. Clients are coroutines (iter.Pull):
//     exactly one runs at a time and hands control back at every blocking point.
//   - task.go: a simulated client process, its blocking points and what it
//     waits on.
//   - choice.go: the run's only source of nondeterminism, seeded or an
//     explicit choice sequence.
//   - trace.go: one record per event, rendered as a readable line on demand,
//     with a running hash over every record and every choice.
//   - tree.go, path.go: the data tree and server-side path validation.
//   - watches.go: the server's watch table.
//   - server.go: request processing, sessions, heartbeats and expiry.
//   - client.go: sim.Client, which implements client.Conn in go-zookeeper/zk's
//     vocabulary, and mirrors that library's client-side behaviour.
//   - world.go: a run's configuration, spawning clients, running, results.
//
// What it must never do: read the wall clock, sleep, use the global
// math/rand, iterate a map where the order decides anything, or start
// goroutines or use channels anywhere but in the scheduler's coroutine
// handoff. The one real-time piece, the watchdog that notices a client blocked
// outside the simulator, lives in internal/stall and only observes.
//
// Same seed and same workload give a byte-identical trace and trace hash, on
// any machine and any GOMAXPROCS.
package sim
