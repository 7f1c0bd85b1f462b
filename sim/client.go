package sim

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// watchType is the kind of a client-side watcher, as go-zookeeper/zk keys
// them: exists on a missing node, data (exists on an existing node, getData),
// children.
type watchType uint8

const (
	watchExist watchType = iota
	watchData
	watchChild
)

type watchKey struct {
	path string
	typ  watchType
}

// Client is one simulated client process and its ZooKeeper session. It
// implements client.Conn, and on the client side it behaves as
// go-zookeeper/zk does:
//
//   - It connects to the servers in an order drawn from the run's source,
//     moving on to the next after a connection is lost; when it comes back
//     round to the server it last had a session with, it first fails the
//     requests queued meanwhile with zk.ErrNoServer and waits a second.
//   - It pings every third of the negotiated session timeout and declares
//     the connection lost after two thirds of it without hearing from the
//     server, failing in-flight requests with zk.ErrConnectionClosed.
//   - Requests made while disconnected are queued and sent on reconnection.
//   - On reconnection it re-registers its watches with the last zxid it saw;
//     the server fires those whose nodes changed meanwhile.
//   - It learns that its session expired only when it reconnects: it then
//     reports zk.StateExpired, fires every watcher with an
//     zk.EventNotWatching event carrying zk.ErrSessionExpired, and opens a
//     new session.
//   - A watch event goes to every watcher the library would give it to:
//     NodeCreated to exists watchers, NodeDataChanged to exists and data
//     watchers, NodeChildrenChanged to child watchers, NodeDeleted to all.
type Client struct {
	w     *World
	idx   int
	name  string
	actor Actor
	t     *Task

	hosts      []int // server indices in connection order
	only       []int // the servers its connect string names (nil: all)
	curr, last int
	cn         *conn
	state      zk.State
	sessionID  int64
	timeoutMs  int32
	recvTO     Time
	pingEvery  Time
	lastZxid   int64
	xid        int32
	inflight   []*request
	queued     []*request
	watchers   map[watchKey][]*simWatch
	// spareWatchers are emptied lists of watchers, for addWatcher to use
	// again (see fireWatchers).
	spareWatchers [][]*simWatch
	subs          []*subscription
	lastRecv      Time
	links         []linkPair // to each server: the process's, shared by its sessions
	connGen       uint64
	pingOwed      bool // a ping fell due while paused
	exited        bool // the session is over: closed, or its process returned
	closing       bool // Close has begun

	// creds are the credentials AddAuth added, sent again on each new
	// connection as go-zk does.
	creds []authCred
	// persistent are the session's persistent watches (persistent.go).
	persistent []*persistentWatch

	p *process // the process the session belongs to
	// lostAt is when the session last stopped being usable (left
	// zk.StateHasSession), for Config.LocalSessionLoss.
	lostAt Time
}

var _ client.Conn = (*Client)(nil)

// Name is the client's name in traces and reports.
func (c *Client) Name() string { return c.name }

// ---- session state and connection ----------------------------------------

func (c *Client) setState(st zk.State) {
	if c.state == zk.StateHasSession && st != zk.StateHasSession {
		c.lostAt = c.w.s.now
		if c.w.cfg.LocalSessionLoss && !c.exited {
			c.armLocalLoss()
		}
	}
	c.state = st
	c.w.s.record(Record{Kind: KState, From: c.actor, Arg: int64(st), Sess: c.sessionID})
	server := ""
	if c.curr >= 0 {
		server = c.w.trace.ActorName(ServerActor(c.hosts[c.curr]))
	}
	ev := zk.Event{Type: zk.EventSession, State: st, Server: server}
	for _, s := range c.subs {
		if !s.closed {
			s.queue = append(s.queue, ev)
		}
	}
	if len(c.subs) > 0 {
		c.t.wake()
	}
}

// connectNext moves to the next server, as go-zookeeper/zk's host provider
// does, and dials it.
func (c *Client) connectNext() {
	if c.exited || c.closing {
		return
	}
	c.curr = (c.curr + 1) % len(c.hosts)
	retryStart := c.curr == c.last
	if c.last == -1 {
		c.last = 0
	}
	c.setState(zk.StateConnecting)
	if retryStart {
		c.flushQueued(zk.ErrNoServer)
		// The back-off belongs to this round of dials: one that began
		// meanwhile (the session given up, a new one started) stands.
		gen := c.connGen
		c.w.s.after(Time(time.Second), func() {
			c.act(func() {
				if c.connGen == gen {
					c.dial()
				}
			})
		})
		return
	}
	c.dial()
}

// linkPair is the network between a client and one server.
type linkPair struct{ up, down link }

// dial opens a TCP connection (one round trip) and sends the connect
// request. A crashed server refuses the connection; across a cut link the
// attempt gets no answer and is given up after the connect timeout. Either
// way the client moves on to the next server.
func (c *Client) dial() {
	if c.exited {
		return
	}
	si := c.hosts[c.curr]
	srv := c.w.servers[si]
	lp := &c.links[si]
	c.connGen++
	gen := c.connGen
	if lp.up.cut || lp.down.cut {
		c.w.s.after(Time(c.w.cfg.ConnectTimeout), func() {
			if c.exited || c.connGen != gen {
				return
			}
			c.w.s.record(Record{Kind: KNote, From: c.actor, To: srv.actor, Path: "connection attempt timed out"})
			c.act(func() {
				if c.connGen == gen {
					c.connectNext()
				}
			})
		})
		return
	}
	c.w.s.after(2*c.w.linkLatency(), func() {
		if c.exited || c.connGen != gen {
			return
		}
		if c.p.paused {
			c.p.buffered = append(c.p.buffered, c.dial) // a stopped process dials nothing
			return
		}
		cn := &conn{srv: srv, client: c, up: &lp.up, down: &lp.down, auth: c.connIDs()}
		if !srv.accept(cn) {
			c.w.s.record(Record{Kind: KNote, From: c.actor, To: srv.actor, Path: "connection refused"})
			c.connectNext()
			return
		}
		c.cn = cn
		c.setState(zk.StateConnected)
		c.cn.toServer(false, &request{op: OpCreateSession, requestExtra: &requestExtra{sessionID: c.sessionID,
			timeoutMs: c.timeoutMs, lastZxid: c.lastZxid}})
	})
}

// act runs fn now, or when the process resumes if it is paused.
func (c *Client) act(fn func()) {
	if c.p.paused {
		c.p.buffered = append(c.p.buffered, fn)
		return
	}
	fn()
}

func (c *Client) onConnect(rep *reply) {
	if rep.sessionID == 0 {
		// The session expired while we were away.
		c.sessionID, c.lastZxid = 0, 0
		c.setState(zk.StateExpired)
		c.invalidateWatches(zk.ErrSessionExpired)
		c.drop(zk.ErrSessionExpired)
		return
	}
	c.sessionID = rep.sessionID
	c.timeoutMs = rep.timeoutMs
	timeout := Time(rep.timeoutMs) * Time(time.Millisecond)
	c.recvTO = timeout * 2 / 3
	c.pingEvery = c.recvTO / 2
	c.setState(zk.StateHasSession)
	c.last = c.curr
	c.lastRecv = c.w.s.now
	c.startHeartbeat()
	queued := c.queued
	c.queued = nil
	for _, r := range queued {
		c.send(r)
	}
	c.sendSetWatches()
}

// startHeartbeat runs, for the current connection, the ping ticker and the
// receive deadline.
func (c *Client) startHeartbeat() {
	c.startPings()
	c.startReceiveDeadline()
}

// startPings sends a ping every third of the session timeout while the
// connection lasts, as the library's ticker does. A paused process sends
// none; like a time.Ticker's channel, it keeps one tick owed and sends that
// ping as soon as it resumes.
func (c *Client) startPings() {
	cn, gen := c.cn, c.connGen
	var tick func()
	tick = func() {
		if c.exited || c.cn != cn || c.connGen != gen {
			return
		}
		if c.p.paused {
			c.pingOwed = true
		} else {
			c.ping()
		}
		c.w.s.background(c.w.s.now+c.pingEvery, tick)
	}
	c.w.s.background(c.w.s.now+c.pingEvery, tick)
}

func (c *Client) ping() {
	c.w.s.record(Record{Kind: KPing, From: c.actor, To: c.cn.srv.actor})
	c.cn.toServer(true, &request{op: OpPing, xid: -2})
}

// startReceiveDeadline declares the connection lost once nothing has come
// from the server for the receive timeout. A paused process does not
// notice; it checks again when it resumes.
func (c *Client) startReceiveDeadline() {
	cn, gen := c.cn, c.connGen
	var check func()
	check = func() {
		if c.exited || c.cn != cn || c.connGen != gen || c.p.paused {
			return
		}
		if idle := c.w.s.now - c.lastRecv; idle >= c.recvTO {
			c.w.s.record(Record{Kind: KTimeout, From: c.actor, To: cn.srv.actor, Arg: int64(idle)})
			c.drop(zk.ErrConnectionClosed)
			return
		}
		c.w.s.background(c.lastRecv+c.recvTO, check)
	}
	c.w.s.background(c.lastRecv+c.recvTO, check)
}

// drop ends the current connection: in-flight requests fail with err
// (zk.ErrConnectionClosed, or zk.ErrSessionExpired after an expiry), the
// state goes to Disconnected, and the client connects again.
func (c *Client) drop(err error) {
	c.hangUp()
	c.setState(zk.StateDisconnected)
	c.failInflight(err)
	c.connectNext()
}

// hangUp closes the connection from the client's side, if it has one, and
// outdates every timer and dial of the connection it had.
func (c *Client) hangUp() {
	if c.cn != nil {
		c.cn.toServer(false, nil)
		c.cn = nil
	}
	c.connGen++
}

// failInflight fails every call in flight with err.
func (c *Client) failInflight(err error) {
	inflight := c.inflight
	c.inflight = nil
	for _, r := range inflight {
		c.complete(r, err)
	}
}

// failAll fails every call in flight or queued with err.
func (c *Client) failAll(err error) {
	c.failInflight(err)
	c.flushQueued(err)
}

func (c *Client) flushQueued(err error) {
	queued := c.queued
	c.queued = nil
	for _, r := range queued {
		c.complete(r, err)
	}
}

// complete ends a call: answered (err nil, the reply in r.rep) or failed.
func (c *Client) complete(r *request, err error) {
	r.err, r.done = err, true
	c.t.wake()
}

// deliver handles a message from the server on connection cn (rep nil: the
// server closed the connection).
func (c *Client) deliver(cn *conn, rep *reply) {
	if c.exited || cn != c.cn {
		c.w.recycle(rep)
		return
	}
	if c.p.paused {
		c.p.buffered = append(c.p.buffered, func() { c.deliver(cn, rep) })
		return
	}
	c.lastRecv = c.w.s.now
	if rep.eof {
		c.drop(zk.ErrConnectionClosed)
		return
	}
	if rep.zxid > 0 {
		// A client's view never goes back in time, not even across servers.
		if rep.zxid < c.lastZxid && c.lastZxid != 0 {
			c.w.violate(fmt.Sprintf("%s got zxid %#x from %s after having seen %#x", c.name, rep.zxid, c.Server(), c.lastZxid))
		}
		c.lastZxid = rep.zxid
	}
	switch {
	case rep.op == OpCreateSession:
		c.onConnect(rep)
	case rep.xid == -1:
		c.onWatchEvent(rep.path, zk.EventType(rep.code))
		c.w.recycle(rep)
	case rep.op == OpPing:
	default:
		if len(c.inflight) == 0 || c.inflight[0].xid != rep.xid {
			panic(fmt.Sprintf("sim: client %s got a reply #%d out of order", c.name, rep.xid))
		}
		r := c.inflight[0]
		n := copy(c.inflight, c.inflight[1:]) // usually none: keep the backing array
		c.inflight[n] = nil
		c.inflight = c.inflight[:n]
		if r.watch {
			c.registerWatch(r)
		}
		c.complete(r, nil)
	}
}

func (c *Client) send(r *request) {
	c.inflight = append(c.inflight, r)
	c.w.s.record(Record{Kind: KSend, From: c.actor, To: c.cn.srv.actor, Op: r.op, Path: sendPath(r), Arg: int64(r.xid), Code: watchCode(r)})
	c.cn.toServer(false, r)
}

func sendPath(r *request) string {
	if r.op == OpMulti && r.requestExtra != nil && len(r.ops) > 0 {
		return r.ops[0].path + " …"
	}
	return r.path
}

// ---- watches -----------------------------------------------------------

// simWatch is a client.Watch of the simulated world.
type simWatch struct {
	c     *Client
	op    Op
	path  string
	ev    zk.Event
	fired bool
}

func (w *simWatch) Wait(ctx context.Context) (zk.Event, error) {
	for !w.fired {
		if err := w.c.t.park(ctx, waitWatch, w.op, w.path); err != nil {
			return zk.Event{}, err
		}
	}
	return w.ev, nil
}

// registerWatch adds the watcher a watching read asked for, as its reply
// arrives and before anything after it is handled (the library does it in
// its receive loop): exists leaves a data watcher on an existing node and an
// exists watcher on a missing one; getData and getChildren leave one only on
// success.
func (c *Client) registerWatch(r *request) {
	code := r.rep.code
	switch {
	case r.op == OpExists && code == codeOK, r.op == OpGetData && code == codeOK:
		r.watcher = c.addWatcher(r.path, watchData, r.op)
	case r.op == OpExists && code == codeNoNode:
		r.watcher = c.addWatcher(r.path, watchExist, r.op)
	case r.op == OpGetChildren && code == codeOK:
		r.watcher = c.addWatcher(r.path, watchChild, r.op)
	}
}

func (c *Client) addWatcher(path string, typ watchType, op Op) *simWatch {
	w := &simWatch{c: c, op: op, path: path}
	k := watchKey{path, typ}
	ws, ok := c.watchers[k]
	if n := len(c.spareWatchers); !ok && n > 0 {
		ws, c.spareWatchers = c.spareWatchers[n-1], c.spareWatchers[:n-1]
	}
	c.watchers[k] = append(ws, w)
	return w
}

// fireWatchers gives ev to the watchers of k and forgets them, keeping
// their list for the next key watched: a waiter sets a watch and sees it
// fire on every turn, and its list need not be made each time.
func (c *Client) fireWatchers(k watchKey, ev zk.Event) {
	ws, ok := c.watchers[k]
	if !ok {
		return
	}
	for _, w := range ws {
		w.ev, w.fired = ev, true
	}
	delete(c.watchers, k)
	clear(ws)
	c.spareWatchers = append(c.spareWatchers, ws[:0])
}

var eventWatchTypes = map[zk.EventType][]watchType{
	zk.EventNodeCreated:         {watchExist},
	zk.EventNodeDataChanged:     {watchExist, watchData},
	zk.EventNodeChildrenChanged: {watchChild},
	zk.EventNodeDeleted:         {watchExist, watchData, watchChild},
}

func (c *Client) onWatchEvent(path string, typ zk.EventType) {
	ev := zk.Event{Type: typ, State: zk.StateSyncConnected, Path: path}
	for _, wt := range eventWatchTypes[typ] {
		c.fireWatchers(watchKey{path, wt}, ev)
	}
	c.notifyPersistent(ev)
	c.t.wake()
}

// invalidateWatches fires every watcher with a NotWatching event, in path
// order, when the session has expired.
func (c *Client) invalidateWatches(err error) {
	keys := make([]watchKey, 0, len(c.watchers))
	for k := range c.watchers {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b watchKey) int {
		if r := cmp.Compare(a.path, b.path); r != 0 {
			return r
		}
		return cmp.Compare(a.typ, b.typ)
	})
	for _, k := range keys {
		ev := zk.Event{Type: zk.EventNotWatching, State: zk.StateDisconnected, Path: k.path, Err: err}
		for _, w := range c.watchers[k] {
			w.ev, w.fired = ev, true
		}
	}
	clear(c.watchers)
	c.endPersistent(err)
	c.t.wake()
}

// sendSetWatches re-registers the client's watches after a reconnection.
func (c *Client) sendSetWatches() {
	persist, recursive := c.persistentPaths()
	if len(c.watchers) == 0 && len(persist) == 0 && len(recursive) == 0 {
		return
	}
	req := &request{op: OpSetWatches, requestExtra: &requestExtra{relZxid: c.lastZxid,
		persistW: persist, recursiveW: recursive}}
	for k := range c.watchers {
		switch k.typ {
		case watchData:
			req.dataW = append(req.dataW, k.path)
		case watchExist:
			req.existW = append(req.existW, k.path)
		case watchChild:
			req.childW = append(req.childW, k.path)
		}
	}
	slices.Sort(req.dataW)
	slices.Sort(req.existW)
	slices.Sort(req.childW)
	c.xid++
	req.xid = c.xid
	c.send(req)
}

// ---- subscriptions -----------------------------------------------------

type subscription struct {
	c      *Client
	queue  []zk.Event
	closed bool
}

func (s *subscription) Next(ctx context.Context) (zk.Event, error) {
	for len(s.queue) == 0 {
		if s.closed {
			return zk.Event{}, fmt.Errorf("sim: subscription closed")
		}
		if err := s.c.t.park(ctx, waitSession, 0, ""); err != nil {
			return zk.Event{}, err
		}
	}
	ev := s.queue[0]
	s.queue = s.queue[1:]
	return ev, nil
}

func (s *subscription) Close() {
	if s.closed {
		return
	}
	s.closed = true
	s.queue = nil
	// The client forgets it: a lease opens one per acquisition, and
	// thousands closed would otherwise be walked on every state change.
	if i := slices.Index(s.c.subs, s); i >= 0 {
		s.c.subs = slices.Delete(s.c.subs, i, i+1)
	}
}

// SessionEvents implements client.Conn.
func (c *Client) SessionEvents() client.Subscription {
	s := &subscription{c: c}
	c.subs = append(c.subs, s)
	return s
}

// SessionTimeout is the session timeout the server negotiated, or before
// the first session the one the client asks for.
func (c *Client) SessionTimeout() time.Duration {
	return time.Duration(c.timeoutMs) * time.Millisecond
}

// Server names the server the client is connected to ("s2"), or "" when it
// has no connection, as go-zookeeper/zk's Server names its host.
func (c *Client) Server() string {
	if c.cn == nil {
		return ""
	}
	return c.w.trace.ActorName(c.cn.srv.actor)
}

// SessionID implements client.Conn.
func (c *Client) SessionID() int64 { return c.sessionID }

// State implements client.Conn.
func (c *Client) State() zk.State { return c.state }

// ---- time --------------------------------------------------------------

// Now implements client.Clock: the virtual time as a wall-clock instant.
func (c *Client) Now() time.Time { return c.w.s.now.Wall() }

// Sleep implements client.Clock in virtual time.
func (c *Client) Sleep(ctx context.Context, d time.Duration) error {
	return c.t.sleep(ctx, Time(d))
}

// WithTimeout implements client.Clock in virtual time.
func (c *Client) WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return c.w.s.withTimeout(ctx, Time(d))
}

// ---- the operations ------------------------------------------------------

// do sends req (or queues it while disconnected) and waits for its reply.
// It returns the reply, or the client-side error that ended the call.
func (c *Client) do(ctx context.Context, req *request) (*reply, error) {
	c.t.checkCurrent()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if c.exited {
		// Closed: go-zookeeper/zk answers every later call so.
		return nil, zk.ErrConnectionClosed
	}
	c.xid++
	req.xid = c.xid
	if 4+req.frameSize() > clientBuffer {
		return nil, zk.ErrShortBuffer // the library's buffer cannot hold it: nothing is sent
	}
	if c.cn != nil && c.state == zk.StateHasSession {
		c.send(req)
	} else {
		c.queued = append(c.queued, req)
	}
	for !req.done {
		if err := c.t.park(ctx, waitReply, req.op, req.path); err != nil {
			return nil, err
		}
	}
	c.w.ops++
	return &req.rep, req.err
}

// Create implements client.Conn.
func (c *Client) Create(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL) (string, error) {
	// The library parses the flags, then checks the path, then refuses TTL
	// modes (which need CreateTTL).
	sequential := false
	switch flags {
	case zk.FlagPersistent, zk.FlagEphemeral, zk.FlagContainer, zk.FlagTTL:
	case zk.FlagSequence, zk.FlagEphemeralSequential, zk.FlagPersistentSequentialWithTTL:
		sequential = true
	default:
		return "", fmt.Errorf("invalid flag value: [%v]", flags)
	}
	if !validClientPath(path, sequential) {
		return "", zk.ErrInvalidPath
	}
	if flags == zk.FlagTTL || flags == zk.FlagPersistentSequentialWithTTL {
		return "", fmt.Errorf("Create with TTL flag disallowed: %w", zk.ErrInvalidFlags)
	}
	// The container flag goes out as is: the server makes a plain node of
	// a create (op 1), whatever its flags (CreateContainer makes a
	// container).
	return c.create(ctx, &request{op: OpCreate, path: path, data: clone(data), flags: flags, acl: acl})
}

// CreateContainer implements client.Conn, as the library does: the flags
// must be zk.FlagContainer.
func (c *Client) CreateContainer(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL) (string, error) {
	if flags < 0 || flags > zk.FlagPersistentSequentialWithTTL {
		return "", fmt.Errorf("invalid flag value: [%v]", flags)
	}
	if !validClientPath(path, flags == zk.FlagSequence || flags == zk.FlagEphemeralSequential ||
		flags == zk.FlagPersistentSequentialWithTTL) {
		return "", zk.ErrInvalidPath
	}
	if flags != zk.FlagContainer {
		return "", fmt.Errorf("CreateContainer requires container flag: %w", zk.ErrInvalidFlags)
	}
	return c.create(ctx, &request{op: OpCreateContainer, path: path, data: clone(data), flags: flags, acl: acl})
}

// CreateTTL implements client.Conn, as the library does: the flags must
// be zk.FlagTTL or zk.FlagPersistentSequentialWithTTL; the TTL goes out in
// whole milliseconds.
func (c *Client) CreateTTL(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL, ttl time.Duration) (string, error) {
	if flags < 0 || flags > zk.FlagPersistentSequentialWithTTL {
		return "", fmt.Errorf("invalid flag value: [%v]", flags)
	}
	if !validClientPath(path, flags == zk.FlagSequence || flags == zk.FlagEphemeralSequential ||
		flags == zk.FlagPersistentSequentialWithTTL) {
		return "", zk.ErrInvalidPath
	}
	if flags != zk.FlagTTL && flags != zk.FlagPersistentSequentialWithTTL {
		return "", fmt.Errorf("CreateTTL requires TTL flag: %w", zk.ErrInvalidFlags)
	}
	return c.create(ctx, &request{op: OpCreateTTL, path: path, data: clone(data), flags: flags, acl: acl,
		requestExtra: &requestExtra{ttl: ttl.Milliseconds()}})
}

// create sends a create of any kind and returns the path it made.
func (c *Client) create(ctx context.Context, req *request) (string, error) {
	rep, err := c.do(ctx, req)
	if err == nil {
		err = errOf(rep.code)
	}
	if err != nil {
		return "", err
	}
	return rep.path, nil
}

// authCred is one AddAuth's credentials.
type authCred struct {
	scheme string
	auth   []byte
}

// connIDs are the ids a new connection of the client has on its server:
// its address, and the digests of its credentials (go-zk sends them again
// before anything else on a new connection, and the server accepts them
// again).
func (c *Client) connIDs() []authID {
	ids := []authID{ipID}
	for _, cr := range c.creds {
		if cr.scheme == "digest" {
			if id := (authID{"digest", digestID(cr.auth)}); !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// AddAuth implements client.Conn: the server authenticates the connection
// (digest: as "user:base64(sha1(user:password))"; any scheme but digest
// and ip fails with zk.ErrAuthFailed, and the server closes the
// connection, the session living on). The credentials are kept, and sent
// again on every new connection, once they were accepted.
func (c *Client) AddAuth(ctx context.Context, scheme string, auth []byte) error {
	rep, err := c.do(ctx, &request{op: OpSetAuth, path: scheme, data: clone(auth)})
	if err == nil {
		err = errOf(rep.code)
	}
	if err == nil {
		c.creds = append(c.creds, authCred{scheme, clone(auth)})
	}
	return err
}

// GetACL implements client.Conn.
func (c *Client) GetACL(ctx context.Context, path string) ([]zk.ACL, *zk.Stat, error) {
	if !validClientPath(path, false) {
		return nil, nil, zk.ErrInvalidPath
	}
	rep, err := c.do(ctx, &request{op: OpGetACL, path: path})
	if err != nil {
		return nil, nil, err
	}
	if err := errOf(rep.code); err != nil {
		return nil, &rep.stat, err
	}
	return slices.Clone(rep.acl), &rep.stat, nil
}

// SetACL implements client.Conn.
func (c *Client) SetACL(ctx context.Context, path string, acl []zk.ACL, version int32) (*zk.Stat, error) {
	if !validClientPath(path, false) {
		return nil, zk.ErrInvalidPath
	}
	rep, err := c.do(ctx, &request{op: OpSetACL, path: path, acl: slices.Clone(acl), version: version})
	if err != nil {
		return nil, err
	}
	return &rep.stat, errOf(rep.code)
}

// Delete implements client.Conn.
func (c *Client) Delete(ctx context.Context, path string, version int32) error {
	if !validClientPath(path, false) {
		return zk.ErrInvalidPath
	}
	rep, err := c.do(ctx, &request{op: OpDelete, path: path, version: version})
	if err != nil {
		return err
	}
	return errOf(rep.code)
}

func (c *Client) exists(ctx context.Context, path string, watch bool) (bool, *zk.Stat, client.Watch, error) {
	if !validClientPath(path, false) {
		return false, nil, nil, zk.ErrInvalidPath
	}
	req := &request{op: OpExists, path: path, watch: watch}
	rep, err := c.do(ctx, req)
	if err != nil {
		return false, nil, nil, err
	}
	st := &rep.stat
	switch rep.code {
	case codeOK:
		return true, st, req.leftWatch(), nil
	case codeNoNode:
		return false, st, req.leftWatch(), nil
	default:
		if watch {
			return false, nil, nil, errOf(rep.code)
		}
		return true, st, nil, errOf(rep.code) // as the library reports it
	}
}

// Exists implements client.Conn.
func (c *Client) Exists(ctx context.Context, path string) (bool, *zk.Stat, error) {
	ok, st, _, err := c.exists(ctx, path, false)
	return ok, st, err
}

// ExistsW implements client.Conn.
func (c *Client) ExistsW(ctx context.Context, path string) (bool, *zk.Stat, client.Watch, error) {
	return c.exists(ctx, path, true)
}

func (c *Client) get(ctx context.Context, path string, watch bool) ([]byte, *zk.Stat, client.Watch, error) {
	if !validClientPath(path, false) {
		return nil, nil, nil, zk.ErrInvalidPath
	}
	req := &request{op: OpGetData, path: path, watch: watch}
	rep, err := c.do(ctx, req)
	if err != nil {
		return nil, nil, nil, err
	}
	st := &rep.stat
	if err := errOf(rep.code); err != nil {
		if watch {
			return nil, nil, nil, err
		}
		return nil, st, nil, err
	}
	return clone(rep.data), st, req.leftWatch(), nil
}

// Get implements client.Conn.
func (c *Client) Get(ctx context.Context, path string) ([]byte, *zk.Stat, error) {
	d, st, _, err := c.get(ctx, path, false)
	return d, st, err
}

// GetW implements client.Conn.
func (c *Client) GetW(ctx context.Context, path string) ([]byte, *zk.Stat, client.Watch, error) {
	return c.get(ctx, path, true)
}

// Set implements client.Conn.
func (c *Client) Set(ctx context.Context, path string, data []byte, version int32) (*zk.Stat, error) {
	if !validClientPath(path, false) {
		return nil, zk.ErrInvalidPath
	}
	rep, err := c.do(ctx, &request{op: OpSetData, path: path, data: clone(data), version: version})
	if err != nil {
		return nil, err
	}
	return &rep.stat, errOf(rep.code)
}

func (c *Client) children(ctx context.Context, path string, watch bool) ([]string, *zk.Stat, client.Watch, error) {
	if !validClientPath(path, false) {
		return nil, nil, nil, zk.ErrInvalidPath
	}
	req := &request{op: OpGetChildren, path: path, watch: watch}
	rep, err := c.do(ctx, req)
	if err != nil {
		return nil, nil, nil, err
	}
	st := &rep.stat
	if err := errOf(rep.code); err != nil {
		if watch {
			return nil, nil, nil, err
		}
		return nil, st, nil, err
	}
	// The server's listing is shared with its other readers; the caller
	// gets its own copy, to sort or change, as go-zookeeper/zk's callers do.
	return slices.Clone(rep.children), st, req.leftWatch(), nil
}

// Children implements client.Conn.
func (c *Client) Children(ctx context.Context, path string) ([]string, *zk.Stat, error) {
	ch, st, _, err := c.children(ctx, path, false)
	return ch, st, err
}

// ChildrenW implements client.Conn.
func (c *Client) ChildrenW(ctx context.Context, path string) ([]string, *zk.Stat, client.Watch, error) {
	return c.children(ctx, path, true)
}

// Sync implements client.Conn.
func (c *Client) Sync(ctx context.Context, path string) (string, error) {
	if !validClientPath(path, false) {
		return "", zk.ErrInvalidPath
	}
	rep, err := c.do(ctx, &request{op: OpSync, path: path})
	if err != nil {
		return "", err
	}
	return rep.path, errOf(rep.code)
}

// Multi implements client.Conn. Like the library it checks no path before
// sending; the server does.
func (c *Client) Multi(ctx context.Context, ops ...any) ([]zk.MultiResponse, error) {
	sub := make([]subOp, 0, len(ops))
	for _, op := range ops {
		switch o := op.(type) {
		case *zk.CreateRequest:
			sub = append(sub, subOp{op: OpCreate, path: o.Path, data: clone(o.Data), flags: o.Flags, acl: o.Acl})
		case *zk.DeleteRequest:
			sub = append(sub, subOp{op: OpDelete, path: o.Path, version: o.Version})
		case *zk.SetDataRequest:
			sub = append(sub, subOp{op: OpSetData, path: o.Path, data: clone(o.Data), version: o.Version})
		case *zk.CheckVersionRequest:
			sub = append(sub, subOp{op: OpCheck, path: o.Path, version: o.Version})
		default:
			return nil, fmt.Errorf("unknown operation type %T", op)
		}
	}
	rep, err := c.do(ctx, &request{op: OpMulti, requestExtra: &requestExtra{ops: sub}})
	if errors.Is(err, zk.ErrShortBuffer) {
		return []zk.MultiResponse{}, err
	}
	if err != nil {
		return nil, err
	}
	return multiResult(rep)
}

// multiResult turns a multi's reply into what the library returns: one
// response per op, and the first op's error.
func multiResult(rep *reply) ([]zk.MultiResponse, error) {
	if rep.code != codeOK && len(rep.multi) == 0 {
		// Refused as a whole (the session expired): an error in the reply's
		// header, and no per-op results, as the library reports it.
		return []zk.MultiResponse{}, errOf(rep.code)
	}
	out := make([]zk.MultiResponse, len(rep.multi))
	var first error
	for i, r := range rep.multi {
		if rep.code != codeOK {
			out[i].Error = errOf(r.code)
			if first == nil && out[i].Error != nil {
				first = out[i].Error
			}
			continue
		}
		switch r.op {
		case OpCreate:
			out[i].String = r.path
		case OpSetData:
			st := r.stat
			out[i].Stat = &st
		case OpCreateContainer:
			// A create with the container flag became a createContainer,
			// whose result (a path and a Stat) the library cannot read: it
			// returns what it read before it, and ErrAPIError, although
			// the multi was applied.
			return out[:i], zk.ErrAPIError
		}
	}
	return out, first
}

// clone copies data as it crosses the wire: nil stays nil (go-zk sends it
// as a null buffer, which the server stores and answers as null) and empty
// stays empty (a zero-length buffer, answered as one): a go-zk caller can
// tell the two apart.
func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append(make([]byte, 0, len(b)), b...)
}

// watchCode is a send's Code in the trace: 1 for a read that leaves a
// watch, so that a report can follow the watches a client holds.
func watchCode(r *request) int32 {
	if r.watch {
		return 1
	}
	return 0
}
