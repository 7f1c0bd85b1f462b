package sim

// Ownership: the world's account of ephemeral nodes deleted by a session
// other than the one that owns them. A recipe's client deletes its own
// nodes; deleting another session's takes from it what it holds (a lock,
// a place in a queue, its membership), and a name that comes back (a
// fixed node name, made again by the next holder) makes a delete sent for
// one node remove another. The account is kept beside the trace, not in
// it: it changes no trace and no hash.

// foreignDelete is an ephemeral node a request deleted, and its owner.
type foreignDelete struct {
	path  string
	owner int64
}

// ForeignDelete is an ephemeral node deleted by a session other than its
// owner's, as the ensemble applied it (once, at the first server to apply
// it).
type ForeignDelete struct {
	// At is when the first server applied the delete; Zxid its
	// transaction.
	At   Time
	Zxid int64
	// Path is the node deleted.
	Path string
	// Owner is the session that owned the node, By the one that deleted
	// it; OwnerClient and ByClient their client processes (0-based; -1
	// when a session is no client's).
	Owner, By             int64
	OwnerClient, ByClient int
	// GivenUp says the owner's client no longer held the session: it had
	// given it up on its own clock (Config.LocalSessionLoss) while the
	// servers still did, so nobody relied on the node any more.
	GivenUp bool
}

// noteForeignDeletes keeps the foreign deletes of a transaction a server
// applied now, unless a server applied it before (servers apply in zxid
// order, so a zxid at or below the last kept one was kept already).
func (w *World) noteForeignDeletes(a *applied) {
	t := a.t
	if t.zxid <= w.foreignUpTo {
		return
	}
	w.foreignUpTo = t.zxid
	for _, d := range a.foreign {
		w.foreign = append(w.foreign, ForeignDelete{At: w.s.now, Zxid: t.zxid, Path: d.path, Owner: d.owner, By: t.sess,
			OwnerClient: w.clientOf(d.owner), ByClient: w.clientOf(t.sess), GivenUp: !w.held(d.owner)})
	}
}

// ForeignDeletes are the run's foreign deletes, in zxid order.
func (w *World) ForeignDeletes() []ForeignDelete { return w.foreign }

// clientOf is the client process that opened session id, or -1.
func (w *World) clientOf(id int64) int {
	for _, o := range w.owners {
		if o.id == id {
			return o.client
		}
	}
	return -1
}

// held reports whether a session of some client process is session id
// now: a session the client gave up (a newer one took its place) is not.
func (w *World) held(id int64) bool {
	c := w.clientOf(id)
	if c < 0 || c >= len(w.clients) {
		return false
	}
	for _, s := range w.clients[c].p.sessions {
		if s.sessionID == id {
			return true
		}
	}
	return false
}
