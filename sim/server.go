package sim

import (
	"github.com/go-zookeeper/zk"
)

// request is what a client sends a server. It travels as its own event
// (stage says where it is), and carries the server's answer back in rep,
// so that one request costs one allocation.
type request struct {
	cn    *conn
	sess  *session
	stage stage
	rep   reply
	err   error // a client-side failure (connection lost, ...)
	done  bool  // answered or failed; the caller may go on

	op      Op
	xid     int32
	path    string
	data    []byte
	flags   int32
	acl     []zk.ACL
	version int32
	watch   bool
	ops     []subOp

	// connect
	sessionID int64
	timeoutMs int32
	lastZxid  int64

	// setWatches, sent after a reconnect
	relZxid               int64
	dataW, existW, childW []string
}

// stage is where a request is on its way.
type stage uint8

const (
	toServer stage = iota // travelling to the server
	inServer              // queued in the server's pipeline
	toClient              // its reply travelling back
)

func (r *request) handle() {
	switch r.stage {
	case toServer:
		r.cn.srv.receive(r.cn, r)
	case inServer:
		r.cn.srv.process(r.cn, r.sess, r)
	case toClient:
		r.cn.client.deliver(r.cn, &r.rep)
	}
}

// reply is what a server answers: a request's reply, or a message of its
// own (a watch event, a connect answer, the end of the connection).
type reply struct {
	cn  *conn
	eof bool // the server closed the connection

	xid      int32
	op       Op
	code     int32
	zxid     int64
	path     string
	data     []byte
	stat     zk.Stat
	children []string
	multi    []subResult

	// connect
	sessionID int64
	timeoutMs int32
}

func (r *reply) handle() { r.cn.client.deliver(r.cn, r) }

// session is a server's record of a client session.
type session struct {
	id       int64
	timeout  Time
	conn     *conn // the connection it is attached to, nil when none
	expireAt Time
	checkAt  Time // when an expiry check is scheduled, 0 when none
	closing  bool
	lastDone Time // when its last request is processed: its requests stay in order

	dataWatches  map[string]bool
	childWatches map[string]bool
}

// server is one simulated ZooKeeper server. In this version it is the whole
// ensemble: it orders every write, applies it, and answers reads.
type server struct {
	w        *World
	idx      int
	actor    Actor
	tree     *Tree
	epoch    int64
	counter  int64
	sessions map[int64]*session
	watches  watchTable
	nextSess int64
	writeAt  Time // when the write pipeline is free
}

func newServer(w *World, idx int) *server {
	return &server{
		w: w, idx: idx, actor: ServerActor(idx),
		tree:     newTree(w.salt),
		epoch:    1,
		sessions: map[int64]*session{},
		watches:  newWatchTable(),
	}
}

func (s *server) lastZxid() int64 { return s.epoch<<32 | s.counter }

// nextZxid numbers the next write. Every write takes one, including one
// that fails its checks, as ZooKeeper logs a failed write as an error
// transaction.
func (s *server) nextZxid() int64 {
	s.counter++
	return s.lastZxid()
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

// touch extends a session's life: it now expires at the first tickTime
// boundary after now + timeout, as ZooKeeper's expiry queue rounds it.
func (s *server) touch(sess *session) {
	tick := Time(s.w.cfg.TickTime)
	sess.expireAt = ((s.w.s.now+sess.timeout)/tick + 1) * tick
	if sess.checkAt == 0 {
		s.scheduleExpiryCheck(sess)
	}
}

func (s *server) scheduleExpiryCheck(sess *session) {
	sess.checkAt = sess.expireAt
	s.w.s.background(sess.expireAt, func() {
		sess.checkAt = 0
		if sess.closing || s.sessions[sess.id] != sess {
			return
		}
		if sess.expireAt > s.w.s.now {
			s.scheduleExpiryCheck(sess)
			return
		}
		s.w.s.record(Record{Kind: KExpire, From: s.actor, Sess: sess.id})
		s.closeSession(sess, nil)
	})
}

// receive handles a request arriving on c.
func (s *server) receive(c *conn, req *request) {
	if !c.open {
		return
	}
	if req.op == OpCreateSession {
		s.connect(c, req)
		return
	}
	sess := c.sess
	if sess == nil || sess.closing || s.sessions[sess.id] != sess {
		return // ZooKeeper drops requests of unknown or closing sessions unanswered
	}
	s.touch(sess)
	if req.op == OpPing {
		c.toClient(true, &reply{xid: req.xid, op: OpPing, zxid: s.lastZxid()})
		return
	}
	cfg := &s.w.cfg
	var at Time
	if req.op.isWrite() || req.op == OpSync {
		at = max(s.w.s.now, s.writeAt) + Time(cfg.WriteDelay) + s.w.jitter(cfg.WriteJitter)
		if req.op != OpSync {
			s.writeAt = at
		}
	} else {
		at = s.w.s.now + Time(cfg.ReadDelay)
	}
	at = max(at, sess.lastDone)
	sess.lastDone = at
	req.sess, req.stage = sess, inServer
	s.w.s.schedule(at, req, false)
}

// connect answers a connect request: a new session, a session resumed on a
// new connection, or (for a session the server no longer has) the session
// id 0 that tells the client its session expired, after which the server
// closes the connection.
func (s *server) connect(c *conn, req *request) {
	if req.sessionID != 0 {
		sess := s.sessions[req.sessionID]
		if sess == nil || sess.closing {
			c.toClient(false, &reply{op: OpCreateSession, sessionID: 0})
			s.closeConn(c)
			return
		}
		if old := sess.conn; old != nil && old != c {
			s.closeConn(old)
		}
		sess.conn = c
		c.sess = sess
		s.touch(sess)
		c.toClient(false, &reply{op: OpCreateSession, sessionID: sess.id, timeoutMs: int32(sess.timeout / 1e6)})
		return
	}
	timeout := s.negotiate(req.timeoutMs)
	s.nextSess++
	sess := &session{
		id:          int64(s.idx+1)<<56 | s.nextSess,
		timeout:     timeout,
		conn:        c,
		dataWatches: map[string]bool{}, childWatches: map[string]bool{},
	}
	zxid := s.nextZxid()
	s.sessions[sess.id] = sess
	c.sess = sess
	s.w.s.record(Record{Kind: KApply, From: s.actor, Op: OpCreateSession, Zxid: zxid, Sess: sess.id})
	s.touch(sess)
	c.toClient(false, &reply{op: OpCreateSession, zxid: zxid, sessionID: sess.id, timeoutMs: int32(timeout / 1e6)})
}

// process carries out a request at its turn and answers it.
func (s *server) process(c *conn, sess *session, req *request) {
	now := s.w.s.now
	t := s.tree
	rep := &req.rep
	rep.xid, rep.op, rep.path = req.xid, req.op, req.path
	if req.op.isWrite() {
		if req.op == OpCloseSession {
			s.closeSession(sess, c)
			return
		}
		rep.zxid = s.nextZxid()
		switch req.op {
		case OpCreate:
			rep.path, rep.code = t.create(req.path, req.data, req.flags, req.acl, sess.id, rep.zxid, now)
			if rep.code != codeOK {
				rep.path = ""
			}
		case OpDelete:
			rep.code = t.delete(req.path, req.version, rep.zxid)
		case OpSetData:
			rep.stat, rep.code = t.setData(req.path, req.data, req.version, rep.zxid, now)
		case OpMulti:
			rep.multi, rep.code = t.multi(req.ops, sess.id, rep.zxid, now)
		}
		s.w.s.record(Record{Kind: KApply, From: s.actor, Op: req.op, Path: applyPath(req, rep), Zxid: rep.zxid, Sess: sess.id, Code: rep.code})
		s.notify()
	} else {
		rep.zxid = s.lastZxid()
		switch req.op {
		case OpExists:
			if req.watch {
				s.watches.addData(req.path, sess)
			}
			_, rep.stat, rep.code = t.get(req.path)
		case OpGetData:
			rep.data, rep.stat, rep.code = t.get(req.path)
			if req.watch && rep.code == codeOK {
				s.watches.addData(req.path, sess)
			}
		case OpGetChildren:
			rep.children, rep.stat, rep.code = t.children(req.path)
			if req.watch && rep.code == codeOK {
				s.watches.addChild(req.path, sess)
			}
		case OpSync:
			// One server is always up to date with itself.
		case OpSetWatches:
			s.setWatches(c, req)
		}
	}
	s.w.s.record(Record{Kind: KReply, From: s.actor, To: c.client.actor, Op: req.op, Path: rep.path, Code: rep.code, Arg: int64(req.xid), Zxid: rep.zxid})
	c.answer(req)
}

func applyPath(req *request, rep *reply) string {
	if rep.path != "" {
		return rep.path
	}
	if req.op == OpMulti && len(req.ops) > 0 {
		return req.ops[0].path + " …"
	}
	return req.path
}

// notify sends the watch events the last write caused, in the order the
// tree fired them, each to the current connection of every session watching.
func (s *server) notify() {
	t := s.tree
	for _, tr := range t.fired {
		for _, sess := range s.watches.fire(tr) {
			if c := sess.conn; c != nil && c.open {
				s.w.s.record(Record{Kind: KNotify, From: s.actor, To: c.client.actor, Path: tr.path, Arg: int64(tr.typ)})
				c.toClient(false, &reply{xid: -1, op: 0, path: tr.path, code: int32(tr.typ)})
			}
		}
	}
	t.fired = t.fired[:0]
}

// closeSession ends a session, on the client's request (c is its
// connection) or on expiry (c is nil): a closeSession transaction deletes the
// session's ephemeral nodes, in path order, firing their watches; the client
// is answered if it asked; the connection is closed.
func (s *server) closeSession(sess *session, c *conn) {
	sess.closing = true
	zxid := s.nextZxid()
	for _, p := range s.tree.sessionEphemerals(sess.id) {
		s.tree.delete(p, -1, zxid)
	}
	s.w.s.record(Record{Kind: KApply, From: s.actor, Op: OpCloseSession, Zxid: zxid, Sess: sess.id})
	s.notify()
	s.watches.drop(sess)
	delete(s.sessions, sess.id)
	if c != nil {
		c.toClient(false, &reply{op: OpCloseSession, zxid: zxid})
	}
	if sess.conn != nil {
		s.closeConn(sess.conn)
	}
}

// closeConn closes a connection from the server's side; the client learns
// of it when the close reaches it, after whatever was sent before.
func (s *server) closeConn(c *conn) {
	if !c.open {
		return
	}
	c.toClient(false, &reply{eof: true})
	c.open = false
	if c.sess != nil && c.sess.conn == c {
		c.sess.conn = nil
	}
}

// setWatches re-registers a reconnected client's watches, firing at once
// those whose node changed after the last zxid the client saw: a data watch
// whose node is gone (NodeDeleted) or was modified (NodeDataChanged), an
// exists watch whose node now exists (NodeCreated), a child watch whose node
// is gone (NodeDeleted) or whose children changed (NodeChildrenChanged).
func (s *server) setWatches(c *conn, req *request) {
	sess := c.sess
	send := func(path string, typ zk.EventType) {
		s.w.s.record(Record{Kind: KNotify, From: s.actor, To: c.client.actor, Path: path, Arg: int64(typ)})
		c.toClient(false, &reply{xid: -1, path: path, code: int32(typ)})
	}
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
}
