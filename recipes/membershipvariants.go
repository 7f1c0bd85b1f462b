package recipes

import "github.com/zksim/zksim/client"

// Group membership's teaching variants.

func init() {
	register(Variant{Name: "membership-persistent", Kind: "membership", Fails: "liveness",
		Lesson: "Members join with persistent nodes. A member that leaves politely deletes its node, but " +
			"one that crashes, or whose session expires, never does: it stays listed forever, and the " +
			"others go on counting on a process that is gone. The recipe's members join with ephemeral " +
			"nodes, which ZooKeeper deletes itself when the member's session ends."})
}

// NewPersistentGroup returns the membership-persistent teaching variant:
// a member that joins with a persistent node.
func NewPersistentGroup(conn client.Conn, dir, name string) *Group {
	g := NewGroup(conn, dir, name)
	g.persistent = true
	return g
}
