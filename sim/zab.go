package sim

import (
	"math/bits"
	"slices"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/trace"
)

// peerKind is the type of a message between servers.
type peerKind uint8

const (
	pmForward     peerKind = iota // follower → leader: a client's write
	pmPropose                     // leader → follower: log this proposal
	pmAck                         // follower → leader: logged
	pmCommit                      // leader → follower: committed up to zxid
	pmSync                        // follower → leader: a client's sync
	pmSyncDone                    // leader → follower: committed up to zxid at the sync
	pmRevalidate                  // follower → leader: may this session reconnect?
	pmRevalidated                 // leader → follower: the answer
	pmPing                        // leader → follower: heartbeat
	pmPong                        // follower → leader: heartbeat, with the sessions heard from
	pmClosed                      // the peer's end of the connection closed (it crashed or left)
)

// peerMsg is a message between two servers, over their link. It belongs to
// the connection between them of one regime of each end (gen, toGen): a
// message from an older regime, or sent to an older regime of its
// receiver (a follower that crashed and rejoined since), is ignored, as one
// from a closed TCP connection would be.
type peerMsg struct {
	kind    peerKind
	from    *server
	to      *server
	gen     uint64 // the sender's regime when sent
	toGen   uint64 // leader → follower: the follower's regime it joined in
	txn     *txn
	zxid    int64
	req     *request
	sess    int64
	timeout Time
	ok      bool
	cn      *conn
	touched []int64
}

// handle delivers m, then returns it to the world's pool of messages: a
// message is delivered once, and nothing keeps it after it is handled, so
// the ensemble's chatter costs no allocation.
func (m *peerMsg) handle() {
	w := m.to.w
	m.to.onPeer(m)
	w.msgs.put(m)
}

// sendPeer sends v from s to v.to.
func (s *server) sendPeer(v peerMsg) {
	m := s.w.msgs.get()
	*m = v
	m.from, m.gen = s, s.gen
	if s.ld != nil {
		m.toGen = s.ld.gens[m.to.idx]
	}
	s.w.send(s.w.peers[s.idx][m.to.idx], m, m.kind == pmPing || m.kind == pmPong)
}

// toLeader sends v to the leader this server follows.
func (s *server) toLeader(v peerMsg) {
	if s.leader == nil {
		return
	}
	v.to = s.leader
	s.sendPeer(v)
}

// leaderState is what a leader keeps: its epoch and counter, its synced
// followers, the session tracker, and the syncs waiting for commits.
type leaderState struct {
	s         *server
	epoch     int64
	counter   int64
	followers []*server
	gens      []uint64 // by server: each follower's regime when it joined
	heard     []Time   // by server: when each follower was last heard from
	joined    []bool   // by server: whether it follows in this regime
	tracker   map[int64]*tracked
	syncs     []pendingSync
	// since is when it began to lead; reapArmed, whether its container
	// check is scheduled (reap.go).
	since     Time
	reapArmed bool
}

type pendingSync struct {
	upTo   int // log entries that must be committed
	origin *server
	req    *request
}

// tracked is the leader's view of a session's life.
type tracked struct {
	id       int64
	owner    int // the server the session is attached to
	timeout  Time
	expireAt Time
	checkAt  Time
	closing  bool
}

func (w *World) quorum() int { return len(w.servers)/2 + 1 }

// submit sends a write (or a session's creation or close) to be ordered.
func (s *server) submit(t *txn) {
	if s.role == trace.RoleLeading {
		s.propose(t)
		return
	}
	t.auth = wireIDs(t.auth) // forwarded, written and read back (wireString)
	s.toLeader(peerMsg{kind: pmForward, txn: t})
}

// propose orders t: the leader gives it the next zxid, logs it, and sends
// it to every follower; it commits once a quorum has logged it.
func (s *server) propose(t *txn) {
	ld := s.ld
	ld.counter++
	t.zxid = ld.epoch<<32 | ld.counter
	t.time = s.w.s.now
	t.acks = 0
	s.log = append(s.log, t)
	path := ""
	if t.req != nil {
		path = applyPath(t.req, "")
	}
	s.w.s.record(trace.Record{Kind: trace.KPropose, From: s.actor, Op: t.op, Path: path, Zxid: t.zxid, Sess: t.sess})
	if t.op == client.OpCloseSession {
		ld.closing(t.sess)
	}
	if t.op == client.OpCreateSession && ld.tracker[t.sess] == nil {
		// ZooKeeper's leader tracks a session as it orders its creation
		// (PrepRequestProcessor), not as it applies it: a leader that
		// lags behind its log still revalidates and expires the session.
		ld.track(t.sess, t.timeout, t.origin)
	}
	if tr := ld.tracker[t.sess]; tr != nil && t.req != nil && t.op != client.OpCreateSession && t.origin >= 0 && tr.owner != t.origin {
		// A request that reached the leader through a server the session
		// has moved away from (an old connection's, delivered late).
		t.moved = true
	}
	s.writeLog(len(s.log), t.zxid)
	for _, f := range ld.followers {
		s.sendPeer(peerMsg{kind: pmPropose, to: f, txn: t})
	}
}

// writeLog writes the log up to entry n (the proposal zxid) to disk; once
// it is durable the server acknowledges it (to itself, as the leader, or
// to its leader). Writes finish in order (a group commit may finish
// several).
func (s *server) writeLog(n int, zxid int64) {
	cfg := &s.w.cfg
	at := max(s.w.s.now+Time(cfg.DiskDelay)+s.w.jitter(cfg.DiskJitter), s.diskAt)
	s.diskAt = at
	lw := s.w.writes.get()
	*lw = logWrite{s: s, gen: s.gen, n: n, zxid: zxid}
	s.w.s.schedule(at, lw, false)
}

// logWrite is a log write finishing.
type logWrite struct {
	s    *server
	gen  uint64
	n    int
	zxid int64
}

// handle finishes the write, then returns lw to the world's pool (it is
// scheduled once and kept by nothing else).
func (lw *logWrite) handle() {
	s := lw.s
	gen, n, zxid := lw.gen, lw.n, lw.zxid
	s.w.writes.put(lw)
	if s.gen != gen || s.role == trace.RoleDown {
		return
	}
	s.durable = max(s.durable, min(n, len(s.log)))
	if s.role == trace.RoleLeading {
		s.ackFrom(s, zxid)
	} else {
		s.toLeader(peerMsg{kind: pmAck, zxid: zxid})
	}
}

// indexOf finds the log entry with zxid z. Acks and commits are nearly
// always for the first few entries past the commit point: those are looked
// at first, the whole log searched only otherwise.
func (s *server) indexOf(z int64) (int, bool) {
	for i := s.commit; i < len(s.log) && i < s.commit+4; i++ {
		if s.log[i].zxid == z {
			return i, true
		}
	}
	return slices.BinarySearchFunc(s.log, z, func(t *txn, z int64) int {
		switch {
		case t.zxid < z:
			return -1
		case t.zxid > z:
			return 1
		}
		return 0
	})
}

// ackFrom records that server f logged z, and commits what a quorum has.
func (s *server) ackFrom(f *server, z int64) {
	if s.role != trace.RoleLeading {
		return
	}
	i, ok := s.indexOf(z)
	if !ok {
		return
	}
	s.log[i].acks |= 1 << uint(f.idx)
	q := s.w.quorum()
	for s.commit < len(s.log) && bits.OnesCount32(s.log[s.commit].acks) >= q {
		s.commit++
		z := s.log[s.commit-1].zxid
		for _, fl := range s.ld.followers {
			s.sendPeer(peerMsg{kind: pmCommit, to: fl, zxid: z})
		}
	}
	s.applyCommitted()
}

// applyCommitted has the leader apply what it has committed, after its
// commit processor's delay (Config.LeaderApplyJitter), in order.
func (s *server) applyCommitted() {
	j := s.w.cfg.LeaderApplyJitter
	if j <= 0 {
		s.applyUpTo(s.commit)
		return
	}
	if s.commit <= max(s.applied, s.applyTo) {
		return // applied, or on its way
	}
	var wait Time
	if s.w.s.choose(8) == 0 { // its commit processor busy
		wait = s.w.jitter(j)
	}
	at := max(s.w.s.now+wait, s.applyAt)
	if at <= s.w.s.now {
		s.applyUpTo(s.commit)
		return
	}
	s.applyAt, s.applyTo = at, s.commit
	a := s.w.applys.get()
	*a = leaderApply{s: s, gen: s.gen, n: s.commit}
	s.w.s.schedule(at, a, false)
}

// leaderApply is the leader's commit processor applying the log up to n.
type leaderApply struct {
	s   *server
	gen uint64
	n   int
}

// handle applies, then returns a to the world's pool.
func (a *leaderApply) handle() {
	s, gen, n := a.s, a.gen, a.n
	s.w.applys.put(a)
	if s.gen != gen || s.role != trace.RoleLeading {
		return
	}
	s.applyUpTo(n)
}

// submitSync handles a client's sync: on a follower, answered once it has
// applied everything the leader had committed or proposed when the sync
// reached the leader; on the leader, at once, as a read is (ZooKeeper's
// leader lets a sync through its commit processor like a read, without
// waiting for the transactions it has committed and not yet applied:
// Config.LeaderApplyJitter).
func (s *server) submitSync(req *request) {
	if s.role == trace.RoleLeading {
		req.syncTo, req.readyAt = -1, s.w.s.now+Time(s.w.cfg.ReadDelay)
		return // pump answers it at its turn, as a read
	}
	s.toLeader(peerMsg{kind: pmSync, req: req})
}

// releaseSyncs answers the syncs whose point is now committed (on a leader)
// and applied (on the server the client asked).
func (s *server) releaseSyncs() {
	if s.role == trace.RoleLeading {
		ld := s.ld
		kept := ld.syncs[:0]
		for _, p := range ld.syncs {
			if p.upTo > s.commit {
				kept = append(kept, p)
				continue
			}
			z := int64(0)
			if p.upTo > 0 {
				z = s.log[p.upTo-1].zxid
			}
			s.sendPeer(peerMsg{kind: pmSyncDone, to: p.origin, req: p.req, zxid: z})
		}
		ld.syncs = kept
	}
	s.releaseSyncWaits()
}

// releaseSyncWaits answers the syncs this server waited to apply up to, now
// that it has. It runs between two transactions applied in a row too, so
// that a session's sync is answered before the writes it sent after it,
// with the zxid the server had reached then: replies go out in order, and
// their zxids never go back (a server that caught up after a lag would
// otherwise answer the sync after those writes, with a later zxid than
// theirs).
func (s *server) releaseSyncWaits() {
	if len(s.syncWaits) == 0 {
		return
	}
	kept := s.syncWaits[:0]
	for _, r := range s.syncWaits {
		if s.lastApplied() >= r.syncTo {
			s.syncDone(r)
		} else {
			kept = append(kept, r)
		}
	}
	s.syncWaits = kept
}

func (s *server) syncReached(r *request, z int64) {
	r.syncTo = z
	if s.lastApplied() >= z {
		s.syncDone(r)
		return
	}
	s.syncWaits = append(s.syncWaits, r)
}

func (s *server) syncDone(r *request) {
	rep := &r.rep
	rep.xid, rep.op, rep.path, rep.zxid = r.xid, r.op, r.path, s.lastApplied()
	r.ready = true
	if r.sess != nil {
		s.pump(r.sess)
	}
}

// onPeer handles a message from another server.
func (s *server) onPeer(m *peerMsg) {
	if s.role == trace.RoleDown {
		return
	}
	from := m.from
	if s.role == trace.RoleLeading {
		ld := s.ld
		if !ld.joined[from.idx] || ld.gens[from.idx] != m.gen {
			return // not one of this regime's followers
		}
		ld.heard[from.idx] = s.w.s.now
		switch m.kind {
		case pmForward:
			s.propose(m.txn)
		case pmAck:
			s.ackFrom(from, m.zxid)
		case pmSync:
			ld.syncs = append(ld.syncs, pendingSync{upTo: len(s.log), origin: from, req: m.req})
			s.releaseSyncs()
		case pmRevalidate:
			timeout, ok := ld.revalidate(m.sess, from.idx)
			s.sendPeer(peerMsg{kind: pmRevalidated, to: from, sess: m.sess, timeout: timeout, ok: ok, cn: m.cn})
		case pmPong:
			for _, id := range m.touched {
				ld.touch(id)
			}
		case pmClosed:
			s.dropFollower(from)
		}
		return
	}
	if s.role != trace.RoleFollowing || from != s.leader || m.gen != s.leaderGen || m.toGen != s.gen {
		return
	}
	s.heardLeader = s.w.s.now
	switch m.kind {
	case pmPropose:
		s.log = append(s.log, m.txn)
		s.writeLog(len(s.log), m.txn.zxid)
	case pmCommit:
		if i, ok := s.indexOf(m.zxid); ok {
			s.commit = max(s.commit, i+1)
			s.applyUpTo(s.commit)
		}
	case pmSyncDone:
		s.syncReached(m.req, m.zxid)
	case pmRevalidated:
		s.resumed(m.cn, m.sess, m.timeout, m.ok)
	case pmPing:
		touched := s.touched
		s.touched = nil
		s.toLeader(peerMsg{kind: pmPong, touched: touched})
	case pmClosed:
		s.w.lookForLeader(s, "lost its leader")
	}
}

// dropFollower forgets a follower whose connection closed.
func (s *server) dropFollower(f *server) {
	ld := s.ld
	ld.joined[f.idx], ld.gens[f.idx], ld.heard[f.idx] = false, 0, 0
	ld.followers = slices.DeleteFunc(ld.followers, func(x *server) bool { return x == f })
}

// ---- the session tracker (on the leader) ----------------------------------

// track starts tracking a session, expiring at the first tick boundary after
// now + timeout, as ZooKeeper's expiry queue rounds it.
func (ld *leaderState) track(id int64, timeout Time, owner int) {
	t := &tracked{id: id, timeout: timeout, owner: owner}
	ld.tracker[id] = t
	ld.touch(id)
}

func (ld *leaderState) untrack(id int64) { delete(ld.tracker, id) }

func (ld *leaderState) closing(id int64) {
	if t := ld.tracker[id]; t != nil {
		t.closing = true
	}
}

// touch extends a session's life.
func (ld *leaderState) touch(id int64) {
	t := ld.tracker[id]
	if t == nil || t.closing {
		return
	}
	w := ld.s.w
	tick := Time(w.cfg.TickTime)
	t.expireAt = ((w.s.now+t.timeout)/tick + 1) * tick
	if t.checkAt == 0 {
		ld.scheduleCheck(t)
	}
}

// scheduleCheck looks at t when it is due to expire; if nothing touched it
// meanwhile, the leader proposes closing the session.
func (ld *leaderState) scheduleCheck(t *tracked) {
	s := ld.s
	w := s.w
	t.checkAt = t.expireAt
	gen := s.gen
	w.s.background(t.expireAt, func() {
		t.checkAt = 0
		if s.gen != gen || s.ld != ld || ld.tracker[t.id] != t || t.closing {
			return
		}
		if t.expireAt > w.s.now {
			ld.scheduleCheck(t)
			return
		}
		w.s.record(trace.Record{Kind: trace.KExpire, From: s.actor, Sess: t.id})
		t.closing = true
		s.propose(&txn{op: client.OpCloseSession, sess: t.id, origin: -1})
	})
}

// revalidate answers whether a session may reconnect through server
// owner, touching it and making owner its server if so.
func (ld *leaderState) revalidate(id int64, owner int) (Time, bool) {
	t := ld.tracker[id]
	if t == nil || t.closing {
		return 0, false
	}
	t.owner = owner
	ld.touch(id)
	return t.timeout, true
}

// ---- heartbeats between servers ---------------------------------------------

// startLeading begins the leader's heartbeat: every half tick it pings its
// followers, and it steps down when it has not heard from a quorum (itself
// included) for syncLimit ticks.
func (s *server) startLeading() {
	gen := s.gen
	w := s.w
	s.ld.since = w.s.now
	if len(s.tree.reapable) > 0 {
		s.armReaper()
	}
	half := Time(w.cfg.TickTime) / 2
	limit := Time(w.cfg.TickTime) * Time(w.cfg.SyncLimit)
	var beat func()
	beat = func() {
		if s.gen != gen || s.role != trace.RoleLeading {
			return
		}
		ld := s.ld
		alive := 1
		for _, f := range ld.followers {
			if w.s.now-ld.heard[f.idx] <= limit {
				alive++
			}
		}
		if alive < w.quorum() {
			w.lookForLeader(s, "lost its quorum")
			return
		}
		for _, f := range ld.followers {
			s.sendPeer(peerMsg{kind: pmPing, to: f})
		}
		w.s.background(w.s.now+half, beat)
	}
	w.s.background(w.s.now+half, beat)
}

// startFollowing begins a follower's watch on its leader: silent for
// syncLimit ticks, the leader is given up.
func (s *server) startFollowing() {
	gen := s.gen
	w := s.w
	half := Time(w.cfg.TickTime) / 2
	limit := Time(w.cfg.TickTime) * Time(w.cfg.SyncLimit)
	var check func()
	check = func() {
		if s.gen != gen || s.role != trace.RoleFollowing {
			return
		}
		if w.s.now-s.heardLeader > limit {
			w.lookForLeader(s, "heard nothing from its leader")
			return
		}
		w.s.background(w.s.now+half, check)
	}
	w.s.background(w.s.now+half, check)
}
