package recipes

import "github.com/zksim/zksim/client"

// The barrier's teaching variants.

func init() {
	register(Variant{Name: "barrier-no-sync", Kind: "barrier", Fails: "safety",
		Impl: Implementation{Barrier: func(c client.Conn, p string) Barrier { return NewNoSyncBarrier(c, p) }},
		Lesson: "Wait calls exists() on the barrier node straight away, as the recipe's steps say. But " +
			"ZooKeeper serves a read from the client's own server, which may lag behind the leader: a " +
			"follower cut off from the leader, or a new session (which has seen nothing) landing on a " +
			"lagging server. A waiter that knows by other means that the barrier is up can then read that " +
			"it is not, and walk through. The recipe calls sync() before its first read, and again in each " +
			"new session."})
}

// NewNoSyncBarrier is the barrier-no-sync teaching variant.
func NewNoSyncBarrier(conn client.Conn, path string) *NodeBarrier {
	b := NewBarrier(conn, path)
	b.noSync = true
	return b
}
