package sim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/jute"
	"github.com/zksim/zksim/trace"
)

// request is what a client sends a server. It travels as its own event
// (stage says where it is), and carries the server's answer back in rep,
// so that one request costs one allocation. The small fields lie together
// at the end, which packs a request in 384 bytes rather than 408 (the
// allocator's next size up from 408 is 416).
type request struct {
	cn   *conn
	sess *session
	rep  reply
	err  error // a client-side failure (connection lost, ...)

	watcher *simWatch // the watcher a watching read left, set as its reply arrived

	readyAt Time  // a read: its answer does not leave before this
	syncTo  int64 // a sync: the zxid to apply up to first; -1 on the leader, answered as a read

	path string
	data []byte
	acl  []zk.ACL

	// The fields of the rarer requests (connect, setWatches, multi), apart,
	// so that the common ones cost less to allocate.
	*requestExtra

	xid     int32
	flags   int32
	version int32
	op      client.Op
	watch   bool
	stage   stage
	done    bool   // answered or failed; the caller may go on
	ready   bool   // the server has its answer (in rep)
	task    uint16 // which task of the client's process made the call (trace.Record.Task)
}

// requestExtra holds what a connect, a setWatches or a multi carries
// besides a request's common fields.
type requestExtra struct {
	ops []subOp // multi
	ttl int64   // createTTL

	// connect
	sessionID int64
	timeoutMs int32
	lastZxid  int64

	// setWatches, sent after a reconnect (the persistent watches are set
	// again as they were, firing nothing)
	relZxid               int64
	dataW, existW, childW []string
	persistW, recursiveW  []string

	// refuse is the code a request of an outside client is answered with
	// (Call.Refuse), as a read that does nothing else.
	refuse int32
}

// stage is where a request is on its way.
type stage uint8

const (
	toServer stage = iota // travelling to the server
	inServer              // queued at the server, waiting for its turn (no event of its own)
	toClient              // its reply travelling back
)

func (r *request) handle() {
	switch r.stage {
	case toServer:
		r.cn.srv.receive(r.cn, r)
	case toClient:
		r.cn.client.deliver(r.cn, &r.rep)
	}
}

// isRead reports whether the session's server answers r from its own tree,
// without the leader.
func (r *request) isRead() bool {
	switch r.op {
	case client.OpExists, client.OpGetData, client.OpGetChildren, client.OpGetACL, client.OpSetWatches, client.OpSetAuth, client.OpAddWatch, client.OpRemoveWatches,
		client.OpGetEphemerals, client.OpGetAllChildren, jute.OpMultiRead, jute.OpCheckWatches, jute.OpWhoAmI:
		return true
	case client.OpSync:
		return r.syncTo < 0 // the leader's (submitSync)
	}
	return r.refused()
}

// refused reports whether r is answered with a code alone (Call.Refuse).
func (r *request) refused() bool { return r.requestExtra != nil && r.refuse != 0 }

// reply is what a server answers: a request's reply, or a message of its
// own (a watch event, a connect answer, the end of the connection).
type reply struct {
	cn  *conn
	eof bool // the server closed the connection
	// pooled is set on a watch notification, which comes from World.notes
	// and goes back there once its client has taken it in (see deliver).
	pooled bool

	xid      int32
	op       client.Op
	code     int32
	zxid     int64
	path     string
	data     []byte
	stat     zk.Stat
	children []string
	multi    []subResult
	acl      []zk.ACL // getACL's; whoAmI's ids, each scheme and user as an entry's Scheme and ID
	count    int32    // getAllChildrenNumber

	// connect
	sessionID int64
	timeoutMs int32
}

func (r *reply) handle() { r.cn.client.deliver(r.cn, r) }

// leftWatch is the watcher r left, if it was a watching read that left one.
func (r *request) leftWatch() client.Watch {
	if r.watcher == nil {
		return nil
	}
	return r.watcher
}

// session is a server's record of a client session attached to one of its
// connections: the requests it has not answered yet, in order, and the
// watches the session set on this server.
type session struct {
	id      int64
	timeout Time
	conn    *conn
	queue   []*request

	dataWatches  map[string]bool
	childWatches map[string]bool
	// persistent are its persistent watches (nil until it sets one).
	persistent *persistentHalves
}

// server is one simulated ZooKeeper server.
//
// What survives a crash is its log of accepted proposals (up to durable,
// the entries its disk write finished) and its epoch; its tree is rebuilt
// from the log when it rejoins. Everything else (sessions attached to its
// connections, watches, queued requests, a leader's bookkeeping) is lost.
type server struct {
	w     *World
	idx   int
	actor trace.Actor
	role  trace.Role
	gen   uint64 // bumps on every role change: messages of an older regime are ignored

	// durable
	log           []*txn
	durable       int
	acceptedEpoch int64

	// volatile
	tree        *Tree
	applied     int // log entries applied to tree
	commit      int // log entries known committed
	leader      *server
	leaderGen   uint64
	heardLeader Time
	ld          *leaderState
	sessions    map[int64]*session
	conns       []*conn
	watches     watchTable
	touched     []int64              // sessions heard from since the last report to the leader
	lastXid     map[int64]appliedXid // per session, the last request applied (a self-check)
	diskAt      Time                 // when the last log write finishes
	// applyAt, applyTo: when the leader's last scheduled apply runs, and
	// how far it applies (applyCommitted).
	applyAt   Time
	applyTo   int
	syncWaits []*request
	// lagUntil: a lag fault (World.lag) holds back applying until then,
	// in generation lagGen.
	lagUntil Time
	lagGen   uint64
}

func newServer(w *World, idx int) *server {
	s := &server{w: w, idx: idx, actor: trace.ServerActor(idx), role: trace.RoleLooking}
	s.reset()
	return s
}

// reset clears the volatile state.
func (s *server) reset() {
	s.tree = newTree(s.w.salt)
	s.tree.extended = s.w.cfg.ExtendedTypes
	if s.w.cfg.Servers > 1 {
		if s.w.config == nil { // written out once a run: a server rejoining writes it again
			s.w.config = configText(s.w.cfg.Servers)
		}
		s.tree.writeConfig(s.w.config, s.w.s.now)
	}
	s.lastXid = map[int64]appliedXid{}
	s.applied, s.commit = 0, 0
	s.applyAt, s.applyTo = 0, 0
	s.leader, s.ld = nil, nil
	s.sessions = map[int64]*session{}
	s.conns = nil
	s.watches = newWatchTable()
	s.touched = nil
	s.syncWaits = nil
}

func (s *server) serving() bool { return s.role == trace.RoleFollowing || s.role == trace.RoleLeading }

// lastLogged is the zxid of the last proposal in the log.
func (s *server) lastLogged() int64 {
	if len(s.log) == 0 {
		return 0
	}
	return s.log[len(s.log)-1].zxid
}

// lastApplied is the zxid of the last transaction applied to the tree.
func (s *server) lastApplied() int64 {
	if s.applied == 0 {
		return 0
	}
	return s.log[s.applied-1].zxid
}

// negotiate clamps a requested session timeout to [2, 20] × tickTime.
func (s *server) negotiate(ms int32) Time {
	tick := s.w.cfg.TickTime
	t := Time(ms) * Time(1e6)
	if lo := 2 * Time(tick); t < lo {
		t = lo
	}
	if hi := 20 * Time(tick); t > hi {
		t = hi
	}
	return t
}

// touch notes that a session was heard from: the leader extends its life at
// once, a follower reports it to the leader with its next ping answer.
func (s *server) touch(id int64) {
	if s.role == trace.RoleLeading {
		s.ld.touch(id)
		return
	}
	s.touched = append(s.touched, id)
}

// accept opens a client connection, or refuses it: a crashed server refuses
// the TCP connection; a server that is not serving accepts it and closes it
// at once, as ZooKeeper does while it has no quorum.
func (s *server) accept(c *conn) bool {
	if s.role == trace.RoleDown {
		return false
	}
	c.open = true
	s.conns = append(s.conns, c)
	return true
}

// receive handles a request arriving on c.
func (s *server) receive(c *conn, req *request) {
	if !c.open || s.role == trace.RoleDown {
		return
	}
	if !s.serving() {
		c.close()
		return
	}
	if req.op == client.OpCreateSession {
		s.connect(c, req)
		return
	}
	sess := c.sess
	if sess == nil {
		return // ZooKeeper drops requests of a connection without a session
	}
	if n := req.frameSize(); n > maxFrame {
		// Longer than jute.maxbuffer: the server closes the connection
		// without reading it (frame.go).
		s.w.s.record(trace.Record{Kind: trace.KNote, From: s.actor, To: c.client.actor,
			Path: fmt.Sprintf("request #%d of %d bytes is over jute.maxbuffer (%d): connection closed", req.xid, n, maxFrame)})
		s.closeConn(c)
		return
	}
	s.touch(sess.id)
	if req.op == client.OpPing {
		c.toClient(true, &reply{xid: req.xid, op: client.OpPing, zxid: s.lastApplied()})
		return
	}
	if s.w.faults != nil && req.op != client.OpSetWatches {
		if eff := s.w.faults.onReceive(s, req); eff.taken || !c.open || s.role == trace.RoleDown {
			return // lost with its connection, or the server went down
		}
	}
	req.sess, req.stage = sess, inServer
	sess.queue = append(sess.queue, req)
	switch {
	case req.op == client.OpSetAuth:
		s.setAuth(c, req)
	case req.isRead():
		req.readyAt = s.w.s.now + Time(s.w.cfg.ReadDelay)
	case req.op == client.OpSync:
		s.submitSync(req)
	default:
		if req.op == client.OpCloseSession && s.role == trace.RoleLeading {
			s.ld.closing(sess.id)
		}
		t := s.w.txns.get()
		*t = txn{op: req.op, sess: sess.id, req: req, origin: s.idx, auth: c.auth}
		s.submit(t)
	}
	s.pump(sess)
}

// pump answers the session's requests that are ready, in order: a read
// runs when every earlier request of its session has been answered, so a
// session always reads its own writes.
func (s *server) pump(sess *session) {
	if s.sessions[sess.id] != sess {
		// The session is no longer served here (its connection closed, or
		// the server left its ensemble): its requests die with it. A
		// read's wake-up may still come for it.
		return
	}
	for len(sess.queue) > 0 {
		r := sess.queue[0]
		if r.isRead() && !r.ready {
			s.read(sess, r)
		}
		if !r.ready {
			return
		}
		// Shift the rest down (a session has a request or two queued),
		// keeping the queue's array for the next ones.
		n := copy(sess.queue, sess.queue[1:])
		sess.queue[n] = nil
		sess.queue = sess.queue[:n]
		s.answer(r)
	}
}

// read serves a read from this server's tree, as it stands: possibly behind
// the leader. The server checks no read's path but exists' for a NUL, and
// reads the root for "" (readKey); a watch is set on the path as sent.
func (s *server) read(sess *session, req *request) {
	t := s.tree
	rep := &req.rep
	rep.xid, rep.op, rep.path, rep.zxid = req.xid, req.op, req.path, s.lastApplied()
	if req.refused() {
		rep.code, req.ready = req.refuse, true
		return
	}
	key := readKey(req.path)
	switch req.op {
	case client.OpExists: // no ACL check (the server's exists has none)
		if strings.IndexByte(req.path, 0) >= 0 {
			rep.code = trace.CodeBadArguments // and no watch
			break
		}
		if req.watch {
			s.watches.addData(req.path, sess)
		}
		_, rep.stat, rep.code = t.get(key)
	case client.OpGetData:
		if rep.data, rep.stat, rep.code = t.getData(key, req.cn.auth); req.watch && rep.code == trace.CodeOK {
			s.watches.addData(req.path, sess)
		}
	case client.OpGetChildren:
		if rep.children, rep.stat, rep.code = t.getChildren(key, req.cn.auth); req.watch && rep.code == trace.CodeOK {
			s.watches.addChild(req.path, sess)
		}
	case client.OpGetACL:
		rep.acl, rep.stat, rep.code = t.getACL(key, req.cn.auth)
	case client.OpGetEphemerals: // no check: the session's own
		rep.children = t.ephemeralsUnder(sess.id, req.path)
	case client.OpGetAllChildren:
		if _, rep.code = t.readable(key, zk.PermRead, req.cn.auth); rep.code == trace.CodeOK {
			rep.count = t.descendants(req.path)
		}
	case client.OpAddWatch: // no check: a watch may wait for a node to come
		s.watches.addPersistent(req.path, sess, req.flags == int32(client.AddWatchPersistentRecursive))
	case client.OpRemoveWatches:
		rep.code = s.watches.removeKind(req.path, sess, req.flags)
	case jute.OpCheckWatches:
		rep.code = s.watches.check(req.path, req.flags)
	case jute.OpMultiRead:
		rep.multi, rep.code = t.multiRead(req.ops, req.cn.auth)
	case jute.OpWhoAmI:
		rep.acl = whoAmI(req.cn.auth)
	case client.OpSetWatches:
		s.setWatches(req.cn, req)
	}
	req.ready = true
}

// answer sends a ready request's reply, unless its connection is gone.
func (s *server) answer(req *request) {
	c := req.cn
	if !c.open {
		return
	}
	rep := &req.rep
	if rep.code == trace.CodeSessionMoved {
		// A connection-level error: ZooKeeper closes the connection rather
		// than answer, so the client reconnects and the session follows it.
		s.w.s.record(trace.Record{Kind: trace.KNote, From: s.actor, To: c.client.actor,
			Path: fmt.Sprintf("request #%d refused: session moved; connection closed", req.xid)})
		s.closeConn(c)
		return
	}
	s.w.s.record(trace.Record{Kind: trace.KReply, From: s.actor, To: c.client.actor, Op: req.op, Path: rep.path, Code: rep.code, Arg: int64(req.xid), Zxid: rep.zxid})
	var eff effect
	if s.w.faults != nil {
		if eff = s.w.faults.onReply(s, req); eff.taken {
			return
		}
	}
	c.answer(req, max(req.readyAt-s.w.s.now, 0)+eff.delay)
	if req.op == client.OpSetAuth && rep.code == trace.CodeAuthFailed {
		s.closeConn(c) // the server closes the connection; the session lives on
	}
}

// setAuth authenticates connection c as req asks: a digest adds the id of
// its "user:password" (always accepted); ip re-adds the address the
// connection has anyway; any other scheme fails with AuthFailed, and the
// connection is closed once that is answered. It consumes no zxid.
func (s *server) setAuth(c *conn, req *request) {
	rep := &req.rep
	rep.xid, rep.op = req.xid, req.op
	switch req.path { // the scheme
	case "digest":
		id := authID{"digest", digestID(req.data)}
		if !slices.Contains(c.auth, id) {
			c.auth = append(slices.Clip(c.auth), id)
		}
	case "ip":
	default:
		rep.code = trace.CodeAuthFailed
	}
	req.ready = true
}

// connect answers a connect request (the answer carries no zxid, as
// ZooKeeper's does not): a new session is created through the leader; a session resumed on a new connection is checked with the leader,
// which answers session id 0 for one it no longer has (the client then
// knows its session expired) before the connection is closed.
func (s *server) connect(c *conn, req *request) {
	if req.lastZxid > s.lastApplied() {
		// The client has seen more than this server has applied: it must
		// not go back in time. ZooKeeper refuses it; the client moves on.
		s.w.s.record(trace.Record{Kind: trace.KNote, From: s.actor, To: c.client.actor,
			Path: fmt.Sprintf("refused: client has seen zxid %#x, server is at %#x", req.lastZxid, s.lastApplied())})
		s.closeConn(c)
		return
	}
	if req.sessionID == 0 {
		timeout := s.negotiate(req.timeoutMs)
		s.w.nextSession++
		sess := &session{id: int64(s.idx+1)<<56 | s.w.nextSession, timeout: timeout, conn: c,
			dataWatches: map[string]bool{}, childWatches: map[string]bool{}}
		s.w.owners = append(s.w.owners, sessionOwner{id: sess.id, client: c.client.idx, timeout: timeout})
		c.sess = sess
		s.sessions[sess.id] = sess
		s.submit(&txn{op: client.OpCreateSession, sess: sess.id, timeout: timeout, req: req, origin: s.idx})
		return
	}
	if s.role == trace.RoleLeading {
		timeout, ok := s.ld.revalidate(req.sessionID, s.idx)
		s.resumed(c, req.sessionID, timeout, ok)
		return
	}
	s.toLeader(peerMsg{kind: pmRevalidate, sess: req.sessionID, cn: c})
}

// resumed finishes a reconnection once the leader has answered.
func (s *server) resumed(c *conn, id int64, timeout Time, ok bool) {
	if !c.open {
		return
	}
	if !ok {
		c.toClient(false, &reply{op: client.OpCreateSession, sessionID: 0})
		s.closeConn(c)
		return
	}
	if old := s.sessions[id]; old != nil && old.conn != nil && old.conn != c {
		s.closeConn(old.conn)
	}
	sess := &session{id: id, timeout: timeout, conn: c,
		dataWatches: map[string]bool{}, childWatches: map[string]bool{}}
	s.sessions[id] = sess
	c.sess = sess
	c.toClient(false, &reply{op: client.OpCreateSession, sessionID: id, timeoutMs: int32(timeout / 1e6)})
}

// closeConn closes a client connection from the server's side and forgets
// the session's watches here.
func (s *server) closeConn(c *conn) {
	if sess := c.sess; sess != nil && s.sessions[sess.id] == sess {
		s.watches.drop(sess)
		delete(s.sessions, sess.id)
	}
	c.close()
}

// dropExpired closes the connection of a session the leader expired (a
// closeSession of its own, without a request), before the watches that
// deleting its ephemeral nodes fires go out: the session hears none of
// them. ZooKeeper's servers close the session's connection as they apply
// its closeSession, and the notifications queued on it are lost with it,
// most of the time; a connection that moved to the server expiring it was
// closed before.
func (s *server) dropExpired(a *applied) {
	if a.t.op != client.OpCloseSession || a.t.req != nil {
		return
	}
	if sess := s.sessions[a.t.sess]; sess != nil && sess.conn != nil {
		s.closeConn(sess.conn)
	}
}

// detach handles a connection the client closed: its session stays, without
// a connection, until it reconnects or expires.
func (s *server) detach(c *conn) {
	if !c.open {
		return
	}
	if sess := c.sess; sess != nil && s.sessions[sess.id] == sess {
		s.watches.drop(sess)
		delete(s.sessions, sess.id)
	}
	c.open = false
}

// stopServing closes every client connection, as a server leaving the
// quorum (or crashing) does, and forgets what it held for them.
func (s *server) stopServing() {
	conns := s.conns
	s.conns = nil
	for _, c := range conns {
		c.sess = nil
		c.close()
	}
	s.sessions = map[int64]*session{}
	s.watches = newWatchTable()
	s.touched = nil
	s.syncWaits = nil
}

// applyUpTo applies committed log entries up to n, in zxid order: each
// entry is applied to the tree, what was applied goes to those who follow
// applied transactions (tellApplied: the trace, the watchers here, ...),
// sessions opened or closed here are answered, and the server the client
// sent a write to answers it. The answers are part of applying, not
// followers: they act on the sessions this server holds, after every
// follower has heard.
func (s *server) applyUpTo(n int) {
	if s.lagging() {
		return
	}
	for s.applied < n {
		if len(s.syncWaits) > 0 { // rare: keep the apply loop free of the call
			s.releaseSyncWaits()
		}
		t := s.log[s.applied]
		s.applied++
		s.tree.replica = s.role != trace.RoleLeading
		a := applied{t: t, res: s.tree.apply(t), foreign: s.tree.foreign}
		s.tree.foreign = s.tree.foreign[:0]
		if t.req != nil {
			a.path = applyPath(t.req, a.res.path)
		}
		s.tellApplied(&a)
		s.answerApplied(&a)
	}
	s.releaseSyncs()
}

// answerApplied does what applying a means for the sessions this server
// holds: a session opened is tracked (on the leader) and its connect
// answered, a session closed is untracked, answered and its connection
// closed, and a write is answered by the server the client sent it to.
func (s *server) answerApplied(a *applied) {
	t, res := a.t, &a.res
	switch t.op {
	case client.OpCreateSession:
		if s.role == trace.RoleLeading && s.ld.tracker[t.sess] == nil {
			s.ld.track(t.sess, t.timeout, t.origin)
		}
		if t.origin == s.idx {
			if sess := s.sessions[t.sess]; sess != nil && sess.conn != nil && sess.conn.open {
				sess.conn.toClient(false, &reply{op: client.OpCreateSession, sessionID: t.sess, timeoutMs: int32(t.timeout / 1e6)})
			}
		}
		return
	case client.OpCloseSession:
		if s.role == trace.RoleLeading {
			s.ld.untrack(t.sess)
		}
		if sess := s.sessions[t.sess]; sess != nil {
			if t.origin == s.idx && t.req != nil && sess.conn != nil && sess.conn.open {
				sess.conn.toClient(false, &reply{op: client.OpCloseSession, xid: t.req.xid, zxid: t.zxid})
			}
			if sess.conn != nil {
				s.closeConn(sess.conn)
			}
		}
		return
	}
	// The server the client asked answers, if it still holds the session
	// that asked (not after a crash, nor for an abandoned connection).
	if r := t.req; t.origin == s.idx && r != nil && r.sess != nil && s.sessions[r.sess.id] == r.sess {
		rep := &r.rep
		rep.xid, rep.op, rep.zxid, rep.code = r.xid, r.op, t.zxid, res.code
		rep.path, rep.stat, rep.multi = res.path, res.stat, res.multi
		if rep.code != trace.CodeOK && (r.op == client.OpCreate || r.op == client.OpCreate2) {
			rep.path = ""
		}
		r.ready = true
		s.pump(r.sess)
	}
}

func applyPath(req *request, created string) string {
	if created != "" {
		return created
	}
	if req.op == client.OpMulti && req.requestExtra != nil && len(req.ops) > 0 {
		return multiPath(req)
	}
	return req.path
}

// notify sends the watch events the last transaction (zxid) caused, in the
// order the tree fired them, to every session watching on this server.
//
// A watch whose connection may not READ the node the event is about (the
// parent, for NodeChildrenChanged) fires without telling it: ZooKeeper
// 3.8's servers filter events by ACL so that none leaks what a client
// could not read.
func (s *server) notify(zxid int64) {
	t := s.tree
	for _, tr := range t.fired {
		sessions := s.watches.fire(tr)
		for _, sess := range sessions {
			if c := sess.conn; c != nil && c.open && permits(tr.acl, zk.PermRead, c.auth) {
				s.sendNotification(c, tr.path, tr.typ, zxid)
			}
		}
		s.watches.notified(sessions) // the table now, should a fault have reset the server
	}
	t.fired = t.fired[:0]
}

// sendNotification sends a watch event on c, unless a fault tied to it
// takes it (lost with its connection) or holds it back. zxid is the
// transaction that fired it, 0 for a watch re-registered by setWatches
// that fired at once.
func (s *server) sendNotification(c *conn, path string, typ zk.EventType, zxid int64) {
	s.w.s.record(trace.Record{Kind: trace.KNotify, From: s.actor, To: c.client.actor, Path: path, Zxid: zxid, Arg: int64(typ)})
	var eff effect
	if s.w.faults != nil {
		if eff = s.w.faults.onNotify(s, c); eff.taken || !c.open {
			return
		}
	}
	rep := s.w.notes.get()
	*rep = reply{cn: c, pooled: true, xid: -1, path: path, code: int32(typ)}
	s.w.sendAfter(c.down, rep, false, eff.delay)
}

// setWatches re-registers a reconnected client's watches (one-shot, then
// persistent, then recursive), firing at once
// those whose node changed after the last zxid the client saw: a data watch
// whose node is gone (NodeDeleted) or was modified (NodeDataChanged), an
// exists watch whose node now exists (NodeCreated), a child watch whose node
// is gone (NodeDeleted) or whose children changed (NodeChildrenChanged).
func (s *server) setWatches(c *conn, req *request) {
	sess := c.sess
	send := func(path string, typ zk.EventType) { s.sendNotification(c, path, typ, 0) }
	for _, p := range req.dataW {
		n := s.tree.nodes[p]
		switch {
		case n == nil:
			send(p, zk.EventNodeDeleted)
		case n.stat.Mzxid > req.relZxid:
			send(p, zk.EventNodeDataChanged)
		default:
			s.watches.addData(p, sess)
		}
	}
	for _, p := range req.existW {
		if s.tree.nodes[p] != nil {
			send(p, zk.EventNodeCreated)
		} else {
			s.watches.addData(p, sess)
		}
	}
	for _, p := range req.childW {
		n := s.tree.nodes[p]
		switch {
		case n == nil:
			send(p, zk.EventNodeDeleted)
		case n.stat.Pzxid > req.relZxid:
			send(p, zk.EventNodeChildrenChanged)
		default:
			s.watches.addChild(p, sess)
		}
	}
	// The persistent watches last, as the server registers them: the
	// last mode set on a path wins (watches.go).
	for _, p := range req.persistW {
		s.watches.addPersistent(p, sess, false)
	}
	for _, p := range req.recursiveW {
		s.watches.addPersistent(p, sess, true)
	}
}
