package sim

import (
	"fmt"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/trace"
)

// Applied: what a server tells, as it applies a committed transaction, to
// whoever follows applied transactions. The apply loop (server.applyUpTo)
// applies the next entry of the log, makes one record of what it did
// (applied), and hands it to the followers (tellApplied), each reading what
// it needs; then it does what applying a transaction means for the
// sessions here (opening or closing one, answering the request). A new
// follower is added in tellApplied, at the place in the order its effects
// must take.

// applied is one transaction as a server applied it.
type applied struct {
	t   *txn
	res applyResult
	// path is the path the apply's record names: the node a create made,
	// the request's path otherwise, "" for a transaction without a request.
	path string
	// foreign are the ephemeral nodes of another session the transaction
	// deleted (ownership.go). The tree's slice: good until its next apply.
	foreign []foreignDelete
}

// tellApplied hands a to the followers of applied transactions, in the
// order their effects must come: the trace's record and changes, and the
// connection of an expired session closed, before the watchers here hear
// of the transaction (notify consumes the tree's fired triggers, and an
// expired session hears none of its own); the leader's reaper after them
// (its check is scheduled after the notifications, which decides which
// fires first should both fall due at once, and a fault striking a
// notification may have ended the leadership).
//
// The watchers are told here too, as a follower, though telling them is
// as much a part of applying as answering the client: the trace must hear
// before them and the reaper after them, and leaving them in the loop
// would split the followers in two.
func (s *server) tellApplied(a *applied) {
	if len(a.foreign) > 0 {
		s.w.noteForeignDeletes(a) // the ownership account
	}
	s.checkSessionOrder(a) // a self-check
	s.recordApplied(a)     // the trace
	s.w.noteTreeChange(a)  // the progress watch
	s.dropExpired(a)       // the connections here
	s.w.noteClosed(a)      // the leftovers account
	s.notify(a.t.zxid)     // the watchers here
	if s.role == trace.RoleLeading && len(s.tree.reapable) > 0 {
		s.armReaper() // the leader's container manager
	}
}

// checkSessionOrder checks that a session's writes take effect in the
// order it sent them (one refused because the session moved or ended
// takes no effect: a request delayed in the network may arrive that
// late). The leader's own deletes belong to no session.
func (s *server) checkSessionOrder(a *applied) {
	t := a.t
	if t.req == nil || a.res.code == trace.CodeSessionMoved || a.res.code == trace.CodeSessionExpired || t.op == client.OpDeleteContainer {
		return
	}
	last, ok := s.lastXid[t.sess]
	// A simulated client numbers a session's requests across its
	// connections, as go-zk does; a client outside the simulator may
	// start again on each (kazoo does): its order is checked within one.
	ordered := ok && (last.cn == t.req.cn || t.req.cn.client.outside == nil)
	if ordered && t.req.xid <= last.xid {
		s.w.violate(fmt.Sprintf("s%d applied request #%d of session %#x after #%d", s.idx+1, t.req.xid, t.sess, last.xid))
	}
	s.lastXid[t.sess] = appliedXid{t.req.xid, t.req.cn}
}

// appliedXid is the last request of a session a server applied, and the
// connection it came on.
type appliedXid struct {
	xid int32
	cn  *conn
}

// recordApplied puts the apply in the trace, and, in a replay's trace kept
// for its step-through, the changes it made.
func (s *server) recordApplied(a *applied) {
	t := a.t
	s.w.s.record(trace.Record{Kind: trace.KApply, From: s.actor, Op: t.op, Path: a.path, Zxid: t.zxid, Sess: t.sess, Code: a.res.code})
	if s.w.trace.WantsChanges(t.zxid) { // most runs keep no changes: the test is inlined
		s.w.noteChanges(t.zxid, s.tree)
	}
}
