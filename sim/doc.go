// Package sim is the simulated world: a deterministic discrete-event model
// of a ZooKeeper ensemble and its client sessions, driven by one seeded
// source of choices. sim.Client implements client.Conn as go-zookeeper/zk's
// client behaves; the servers replicate, elect, expire sessions and fire
// watches as the 3.8 server does; faults (package fault) strike in virtual
// time at the points a schedule names. It stands beside package live, the
// real world, with the same vocabulary: a World to spawn processes in,
// faults to strike, a run to make.
//
// Same seed and same workload give a byte-identical trace and trace hash,
// on any machine and any GOMAXPROCS: every decision is drawn from the run's
// Source and hashed into the trace.
//
// What it must never do: read the wall clock, sleep, use the global
// math/rand, iterate a map where the order decides anything, start
// goroutines or use channels anywhere but in the scheduler's coroutine
// handoff, or import package live or anything above it (scenarios,
// recipes). The one real-time piece, the watchdog that notices a client
// blocked outside the simulator, lives in internal/stall and only observes.
//
// Its files, one concept each, are listed in docs/ARCHITECTURE.md.
package sim
