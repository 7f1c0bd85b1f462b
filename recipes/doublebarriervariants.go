package recipes

import "github.com/zksim/zksim/client"

// The double barrier's teaching variants.

func init() {
	register(Variant{Name: "double-barrier-herd", Kind: "double-barrier", Fails: "herd",
		Impl: Implementation{DoubleBarrier: func(c client.Conn, p, name string, size int) DoubleBarrier {
			return NewHerdDoubleBarrier(c, p, name, size)
		}},
		Lesson: "Each process leaving deletes its node and watches the barrier node's children until no " +
			"process node is left. Every deletion wakes every process still waiting, which all call " +
			"getChildren again to find that they must go on waiting: with x processes, about x²/2 wake-ups. " +
			"The recipe uses the lowest process node as the exit flag: the others wait for it alone, and its " +
			"owner waits for the others one at a time, so each deletion wakes one process, except the last."})
	register(Variant{Name: "double-barrier-trusts-lowest", Kind: "double-barrier", Fails: "safety",
		Impl: Implementation{DoubleBarrier: func(c client.Conn, p, name string, size int) DoubleBarrier {
			return NewTrustingDoubleBarrier(c, p, name, size)
		}},
		Lesson: "A process done with its work waits for the lowest process node to go, and then leaves, " +
			"taking its deletion to mean that everyone is done. That holds while nobody fails; but when the " +
			"lowest process's session expires (it crashed, or paused past its timeout) its node goes too, " +
			"and the waiting processes leave while others are still computing. The recipe goes back to " +
			"getChildren after every wake-up (step 6) and leaves only when no process node is left."})
	register(Variant{Name: "double-barrier-counts-ready", Kind: "double-barrier", Fails: "liveness",
		Impl: Implementation{DoubleBarrier: func(c client.Conn, p, name string, size int) DoubleBarrier {
			return NewReadyCountingDoubleBarrier(c, p, name, size)
		}},
		Lesson: "It takes every child of the barrier node for a process node, forgetting that the ready " +
			"node lives there too. Entering still works (ready appears only once x processes are in), but " +
			"leaving never does: ready is never deleted, so the barrier node is never empty, and the lowest " +
			"process waits on it (or everyone waits on it, if it sorts lowest) forever. The recipe counts " +
			"process nodes only."})
	register(Variant{Name: "double-barrier-exists-taken", Kind: "double-barrier", Fails: "safety",
		Impl: Implementation{DoubleBarrier: func(c client.Conn, p, name string, size int) DoubleBarrier {
			return NewExistsTakenDoubleBarrier(c, p, name, size)
		}},
		Lesson: "A process creates its node under its name and, when the create is answered NodeExists, " +
			"takes the name for another process's and gives up Enter with an error, as many libraries do. " +
			"But a create whose reply was lost with its connection was applied: retried, it finds the " +
			"process's own node, and the process that should enter fails instead, while the others wait " +
			"for it. The recipe asks whose node it is (the Stat's ephemeralOwner) and goes on when its own " +
			"session owns it."})
}

// NewExistsTakenDoubleBarrier is the double-barrier-exists-taken teaching
// variant.
func NewExistsTakenDoubleBarrier(conn client.Conn, path, name string, size int) *NodeDoubleBarrier {
	d := NewDoubleBarrier(conn, path, name, size)
	d.mistakes.existsTaken = true
	return d
}

// NewHerdDoubleBarrier is the double-barrier-herd teaching variant.
func NewHerdDoubleBarrier(conn client.Conn, path, name string, size int) *NodeDoubleBarrier {
	d := NewDoubleBarrier(conn, path, name, size)
	d.mistakes.herd = true
	return d
}

// NewTrustingDoubleBarrier is the double-barrier-trusts-lowest teaching
// variant.
func NewTrustingDoubleBarrier(conn client.Conn, path, name string, size int) *NodeDoubleBarrier {
	d := NewDoubleBarrier(conn, path, name, size)
	d.mistakes.trustLowest = true
	return d
}

// NewReadyCountingDoubleBarrier is the double-barrier-counts-ready teaching
// variant.
func NewReadyCountingDoubleBarrier(conn client.Conn, path, name string, size int) *NodeDoubleBarrier {
	d := NewDoubleBarrier(conn, path, name, size)
	d.mistakes.countReady = true
	return d
}
