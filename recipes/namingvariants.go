package recipes

import "github.com/zksim/zksim/client"

// The name service's teaching variants.

func init() {
	register(Variant{Name: "naming-no-recovery", Kind: "naming", Fails: "liveness",
		Impl: Implementation{NameService: func(c client.Conn, p string) NameService {
			return NewNoRecoveryNameRegistry(c, p, false)
		}},
		Lesson: "When create() fails with a connection loss it tries again, and takes the NodeExists " +
			"that answers for someone else's registration. But the first create may have been applied: the " +
			"node is its own. It reports the name taken, and every later try says the same while its own " +
			"node sits there. The recipe looks at the node (its data, and for an ephemeral name its owner " +
			"session) to recognise its own registration."})
	register(Variant{Name: "naming-resolve-no-sync", Kind: "naming", Fails: "safety",
		Impl: Implementation{NameService: func(c client.Conn, p string) NameService {
			return NewNoSyncNameRegistry(c, p, false)
		}},
		Lesson: "It resolves a name with a plain getData(), as most name lookups do, without a sync() first. " +
			"ZooKeeper answers a read from the server the client is connected to, which may lag the leader: " +
			"a name whose registration had already returned to its owner reads as missing (or as an older " +
			"binding) there. The recipe brings its server up to date (sync) before it reads, so that a name " +
			"once registered resolves to its owner's value for every client."})
}

// NewNoSyncNameRegistry returns the naming-resolve-no-sync teaching
// variant: a registry that resolves without a sync first.
func NewNoSyncNameRegistry(conn client.Conn, dir string, ephemeral bool) *NameRegistry {
	r := NewNameRegistry(conn, dir, ephemeral)
	r.noSync = true
	return r
}

// NewNoRecoveryNameRegistry returns the naming-no-recovery teaching
// variant: a registry that does not recognise its own node after a lost
// create() reply.
func NewNoRecoveryNameRegistry(conn client.Conn, dir string, ephemeral bool) *NameRegistry {
	r := NewNameRegistry(conn, dir, ephemeral)
	r.noRecovery = true
	return r
}
