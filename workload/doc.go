// Package workload is what the clients of each recipe kind do: the kind
// registry (kinds.go: a kind's defaults, its recipe, its checks; its
// teaching variants are those recipes registers under the kind's name),
// one workload per kind, driving any implementation of the kind through
// the kind's interface (recipes.Locker, recipes.Queue, ...), the history
// each client records of what it observed (recording.go), and the
// situations a run of the kind may reach (situations.go).
//
// A workload runs in a World (runner.go), which each world meets with a
// small adapter: it spawns the client processes, hears that a client holds
// now (for faults tied to holdings), and says whether faults are still to
// strike. A kind's hooks are given a Plan (the clients, the workload's
// Shape, the bounds, when the faults are over), never a whole scenario.
//
// It must never import a world (sim, live) or anything that assembles a
// run (scenarios): the same workload runs unchanged in the simulator and
// on a live ensemble. Its clients follow the rules of the world they run
// in: no goroutines, channels or wall clock of their own; virtual time
// comes from the session (client.Conn).
//
// Its files are listed in docs/ARCHITECTURE.md.
package workload
