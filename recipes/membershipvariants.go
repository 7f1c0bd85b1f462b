package recipes

import "github.com/zksim/zksim/client"

// Group membership's teaching variants.

func init() {
	register(Variant{Name: "membership-persistent", Kind: "membership", Fails: "liveness",
		Impl: Implementation{Membership: func(c client.Conn, p, name string) Membership {
			return NewPersistentGroup(c, p, name)
		}},
		Lesson: "Members join with persistent nodes. A member that leaves politely deletes its node, but " +
			"one that crashes, or whose session expires, never does: it stays listed forever, and the " +
			"others go on counting on a process that is gone. The recipe's members join with ephemeral " +
			"nodes, which ZooKeeper deletes itself when the member's session ends."})
}

func init() {
	register(Variant{Name: "membership-forgets-expiry", Kind: "membership", Fails: "liveness",
		Impl: Implementation{Membership: func(c client.Conn, p, name string) Membership {
			return NewForgetfulGroup(c, p, name)
		}},
		Lesson: "It rides out connection losses, as a member must, but not the end of its session: when the " +
			"session expires, ZooKeeper deletes the member's ephemeral node, and the member, reconnected in a " +
			"new session, goes on as if it were still in the group. It is missing from every view for good, " +
			"though it never left. The recipe's member notices that its session changed the next time it " +
			"lists or watches the group, and creates its node again in the new session."})
}

// NewForgetfulGroup returns the membership-forgets-expiry teaching
// variant: a member that does not rejoin after its session expired.
func NewForgetfulGroup(conn client.Conn, dir, name string) *Group {
	g := NewGroup(conn, dir, name)
	g.forgets = true
	return g
}

// NewPersistentGroup returns the membership-persistent teaching variant:
// a member that joins with a persistent node.
func NewPersistentGroup(conn client.Conn, dir, name string) *Group {
	g := NewGroup(conn, dir, name)
	g.persistent = true
	return g
}

func init() {
	register(Variant{Name: "membership-cache-no-resync", Kind: "membership", Fails: "liveness",
		Impl: Implementation{Membership: func(c client.Conn, p, name string) Membership {
			return NewUnsyncedCacheGroup(c, p, name)
		}},
		Lesson: "Its watchers keep their view from a persistent watch, as current libraries' caches do: one " +
			"listing, then the watch's events. The client sets the watch again when the connection comes back, " +
			"but a persistent watch set again hears nothing of what changed while the client was away, and this " +
			"cache trusts it: a member that left meanwhile stays in its view for good. The recipe's cache lists " +
			"the members again each time the session is back."})
}

// NewUnsyncedCacheGroup returns the membership-cache-no-resync teaching
// variant: a cached group that does not list the members again after a
// disconnection.
func NewUnsyncedCacheGroup(conn client.Conn, dir, name string) *CachedGroup {
	g := NewCachedGroup(conn, dir, name)
	g.noResync = true
	return g
}

func init() {
	register(Variant{Name: "membership-keeper-unguarded", Kind: "membership", Fails: "liveness",
		Impl: Implementation{Membership: func(c client.Conn, p, name string) Membership {
			return NewUnguardedKeeper(c, p, name)
		}},
		Lesson: "Its member keeps its node callback-style, as Curator's does: a callback on the client's event " +
			"thread, a task beside the caller's, makes the node again whenever it is gone or the session comes " +
			"back, if the member is still in the group. The callback checks that, then acts on it a call later; " +
			"in between, the caller's Leave ran and deleted the node, and the callback makes it again: a member " +
			"that left for good is listed for ever. The recipe's keeper holds one mutex across the check and the " +
			"calls that act on it, in its callbacks and in Leave, as a Java library holds its monitor: Leave " +
			"waits for a keep in flight, and a keep after it finds the member gone."})
}

// NewUnguardedKeeper returns the membership-keeper-unguarded teaching
// variant: a keeper whose callbacks and Leave do not take its mutex.
func NewUnguardedKeeper(conn client.Conn, dir, name string) *Keeper {
	k := NewKeeper(conn, dir, name)
	k.unguarded = true
	return k
}
