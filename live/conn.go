package live

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/jute"
)

// Conn is a session with a live ensemble through go-zookeeper/zk,
// implementing client.Conn, so that a recipe written for the simulator
// runs unchanged against the real server.
//
// go-zookeeper/zk's calls take no context: a call whose context ends
// first returns the context's error at once and is left to finish on its
// own (a write it sent may still be applied, as the interface says).
// Session state changes come through WithEventCallback, which drops
// nothing (the library's event channel holds six events and drops the
// rest); each subscriber keeps its own unbounded queue. The library's
// logging goes to Options.Log, or nowhere.
//
// A Conn is one handle of the library at a time: after an expiry the
// library opens a new session on the same handle, as it does everywhere;
// with Options.LocalSessionLoss the Conn also gives a session up by its
// own clock and replaces the handle (sessionloss.go).
type Conn struct {
	servers []string
	opt     Options

	mu     sync.Mutex
	h      *handle // the library's handle now in use
	subs   []*subscription
	closed bool
	// lastState and lossTimer follow the session for LocalSessionLoss.
	lastState zk.State
	lossTimer *time.Timer
	// creds are the credentials AddAuth added, for a handle that replaces
	// the one they were added on.
	creds []cred
	// onNote is told of every watch notification (OnNotification).
	onNote func(zk.Event)
	// persistent are the session's persistent watches, and oneShot its
	// one-shot watches by path (for RemoveWatches to end; persistent.go).
	persistent []*persistentWatch
	oneShot    map[string][]*watch
	// createMu keeps one create of the Conn on the wire at a time, so
	// that the one Create2 arms is its own (wire.go); syncMu, one sync,
	// for the requests sent in a sync's place.
	createMu, syncMu sync.Mutex

	requests, notifications atomic.Int64
}

// handle is one go-zookeeper/zk connection of a Conn. lost is set when the
// Conn gave its session up by its own clock: the handle's watches and
// calls then fail with zk.ErrSessionExpired, as the simulator's do.
type handle struct {
	zk   *zk.Conn
	lost atomic.Bool
	// done is closed when the library has ended the handle: its requests
	// failed and its watches fired zk.EventNotWatching.
	done chan struct{}
	// authed is closed once the Conn's credentials were added to the
	// handle (at once for the first): calls wait for it.
	authed chan struct{}
	// wire sees the handle's bytes (wire.go).
	wire *wire
}

// cred is one AddAuth's credentials.
type cred struct {
	scheme string
	auth   []byte
}

// Counters is a client's traffic, counted at its end: the requests it
// made and the watch notifications it received.
type Counters struct {
	Requests      int64 `json:"requests"`
	Notifications int64 `json:"notifications"`
}

// Counters is the traffic of this session so far.
func (c *Conn) Counters() Counters {
	return Counters{Requests: c.requests.Load(), Notifications: c.notifications.Load()}
}

var _ client.Conn = (*Conn)(nil)

// Options tune a live session.
type Options struct {
	// SessionTimeout is asked of the ensemble (default
	// client.DefaultSessionTimeout).
	SessionTimeout time.Duration
	// Dialer replaces the library's net.DialTimeout: the live faults wrap
	// the connection this way (FaultDialer).
	Dialer zk.Dialer
	// Log receives the library's log lines (default: discarded).
	Log io.Writer
	// LocalSessionLoss gives a session up by the client's own clock, as
	// Curator's connection-handling policy does (and as
	// sim.Config.LocalSessionLoss does in the simulator): after
	// SessionTimeout without a session, the Conn reports zk.StateExpired,
	// fails its watches and calls with zk.ErrSessionExpired, and opens a
	// new session, while the servers still hold the old one.
	LocalSessionLoss bool
	// InOrder tries the servers in the order given, where the library
	// shuffles them: a live run places its clients as the simulator's
	// run of the same seed does (hostorder.go). Every session of the
	// Conn tries the same order.
	InOrder bool
}

// Dial opens a session with the servers ("127.0.0.1:2181", ...). It
// returns at once; the session is established in the background, as the
// library does, and calls made meanwhile wait for it.
func Dial(servers []string, opt Options) (*Conn, error) {
	if opt.SessionTimeout == 0 {
		opt.SessionTimeout = client.DefaultSessionTimeout
	}
	c := &Conn{servers: servers, opt: opt, lastState: zk.StateDisconnected}
	c.mu.Lock() // the handle's first events wait for c.h
	defer c.mu.Unlock()
	h, err := c.connect()
	if err != nil {
		return nil, err
	}
	close(h.authed) // no credentials yet
	c.h = h
	return c, nil
}

// connect opens a new handle of the library whose events come to c.
func (c *Conn) connect() (*handle, error) {
	out := c.opt.Log
	if out == nil {
		out = io.Discard
	}
	dialer := c.opt.Dialer
	if dialer == nil {
		dialer = net.DialTimeout
	}
	h := &handle{done: make(chan struct{}), authed: make(chan struct{}), wire: &wire{onNote: c.onNote}}
	h.wire.onPersistent = func(ev zk.Event) { c.persistentEvent(h, ev) }
	var hosts zk.HostProvider = zk.NewDNSHostProvider() // the library's own: shuffled
	if c.opt.InOrder {
		hosts = newHostOrder(c.servers)
	}
	conn, events, err := zk.Connect(c.servers, c.opt.SessionTimeout,
		zk.WithLogger(log.New(out, "zk: ", log.Lmicroseconds)),
		zk.WithLogInfo(c.opt.Log != nil),
		zk.WithEventCallback(func(ev zk.Event) { c.event(h, ev) }),
		zk.WithDialer(func(network, address string, timeout time.Duration) (net.Conn, error) {
			h.wire.waitHeld(timeout)
			nc, err := dialer(network, address, timeout)
			if err != nil {
				return nil, err
			}
			return h.wire.wrap(nc), nil
		}),
		zk.WithHostProvider(hosts))
	if err != nil {
		return nil, err
	}
	go func() { // the library's channel must be drained; the callback saw everything
		for range events {
		}
		close(h.done) // closed after the library invalidated the watches
	}()
	h.zk = conn
	return h, nil
}

// authenticate adds creds to the handle, in order, before any call of
// its own goes out (calls wait for authed): the credentials of a session
// the Conn gave up, for the one that replaces it.
func (h *handle) authenticate(creds []cred) {
	defer close(h.authed)
	for _, cr := range creds {
		if err := h.zk.AddAuth(cr.scheme, cr.auth); err != nil {
			return // the handle is closed, or gone: its calls will say so
		}
	}
}

// handle is the library's handle now in use.
func (c *Conn) handle() *handle {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.h
}

// Close implements client.Conn: the library's Close (closeSession, waiting
// up to a second for the answer; watches fire zk.EventNotWatching with
// zk.ErrClosing; later calls fail with zk.ErrConnectionClosed). The
// library fires the watches just after its Close returns; Close waits for
// that (a second at most), so that, as in the simulator, they have fired
// when it returns.
func (c *Conn) Close() {
	c.mu.Lock()
	c.closed = true
	if c.lossTimer != nil {
		c.lossTimer.Stop()
	}
	h := c.h
	c.mu.Unlock()
	h.zk.Close()
	select {
	case <-h.done:
	case <-time.After(time.Second):
	}
	c.mu.Lock()
	c.endPersistent(zk.ErrClosing) // after the events the close itself fired
	c.mu.Unlock()
}

// NewSession implements client.Conn: another session with the same
// servers and options (and so the same faults, through the same dialer).
func (c *Conn) NewSession(ctx context.Context) (client.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return Dial(c.servers, c.opt)
}

// event is the library's callback: it must not block. Events of a handle
// given up are no longer the Conn's.
func (c *Conn) event(h *handle, ev zk.Event) {
	if ev.Type != zk.EventSession {
		if ev.Type != zk.EventNotWatching {
			c.notifications.Add(1)
		}
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.h != nil && h != c.h {
		return
	}
	if ev.State == zk.StateExpired {
		c.endPersistent(zk.ErrSessionExpired) // they ended with the session
	}
	c.followForLoss(h, ev.State)
	c.publish(ev)
}

// publish hands ev to every subscriber; c.mu is held.
func (c *Conn) publish(ev zk.Event) {
	for _, s := range c.subs {
		s.push(ev)
	}
}

// call runs fn (one request, on the handle now in use) unless ctx has
// ended, and returns early if ctx ends first. A call cut short because
// the Conn gave its session up fails with zk.ErrSessionExpired.
func call[T any](ctx context.Context, c *Conn, fn func(h *handle) (T, error)) (T, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	c.requests.Add(1)
	h := c.handle()
	select {
	case <-h.authed:
	case <-ctx.Done():
		return zero, ctx.Err()
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := fn(h)
		if err != nil && h.lost.Load() && (errors.Is(err, zk.ErrClosing) || errors.Is(err, zk.ErrConnectionClosed)) {
			err = zk.ErrSessionExpired
		}
		// go-zk hands a request the socket's own error when its connection
		// closes as the request is written: to the caller, as to a
		// simulated client's, that is the connection lost.
		var opErr *net.OpError
		if err != nil && (errors.Is(err, net.ErrClosed) || errors.As(err, &opErr)) {
			err = fmt.Errorf("%w (%v)", zk.ErrConnectionClosed, err)
		}
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

type stat struct {
	ok bool
	st *zk.Stat
}

type dataStat struct {
	data []byte
	st   *zk.Stat
}

type kids struct {
	names []string
	st    *zk.Stat
}

// Create implements client.Conn.
func (c *Conn) Create(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL) (string, error) {
	return call(ctx, c, func(h *handle) (string, error) {
		c.createMu.Lock()
		defer c.createMu.Unlock()
		return h.zk.Create(path, data, flags, acl)
	})
}

// Create2 implements client.Conn: the library's Create, sent as create2
// by the handle's wire, which keeps the Stat of its answer.
func (c *Conn) Create2(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL) (string, *zk.Stat, error) {
	type pathStat struct {
		path string
		st   *zk.Stat
	}
	r, err := call(ctx, c, func(h *handle) (pathStat, error) {
		c.createMu.Lock()
		defer c.createMu.Unlock()
		h.wire.armCreate2()
		p, err := h.zk.Create(path, data, flags, acl)
		st := h.wire.disarm()
		if err == nil && st == nil {
			err = fmt.Errorf("live: create2 of %s: the answer carried no Stat", path)
		}
		return pathStat{p, st}, err
	})
	return r.path, r.st, err
}

// Delete implements client.Conn.
func (c *Conn) Delete(ctx context.Context, path string, version int32) error {
	_, err := call(ctx, c, func(h *handle) (struct{}, error) { return struct{}{}, h.zk.Delete(path, version) })
	return err
}

// Exists implements client.Conn.
func (c *Conn) Exists(ctx context.Context, path string) (bool, *zk.Stat, error) {
	r, err := call(ctx, c, func(h *handle) (stat, error) {
		ok, st, err := h.zk.Exists(path)
		return stat{ok, st}, err
	})
	if errors.Is(err, zk.ErrConnectionClosed) {
		// go-zk says false for a closed connection, and true with the
		// socket's own error when the close came as the request was
		// written, which call reports as the closed connection it is.
		return false, nil, err
	}
	return r.ok, r.st, err
}

// ExistsW implements client.Conn.
func (c *Conn) ExistsW(ctx context.Context, path string) (bool, *zk.Stat, client.Watch, error) {
	var ch <-chan zk.Event
	var on *handle
	r, err := call(ctx, c, func(h *handle) (stat, error) {
		ok, st, w, err := h.zk.ExistsW(path)
		ch, on = w, h
		return stat{ok, st}, err
	})
	if err != nil {
		return false, nil, nil, err
	}
	return r.ok, r.st, c.oneShotWatch(path, ch, on), nil
}

// Get implements client.Conn.
func (c *Conn) Get(ctx context.Context, path string) ([]byte, *zk.Stat, error) {
	r, err := call(ctx, c, func(h *handle) (dataStat, error) {
		data, st, err := h.zk.Get(path)
		return dataStat{data, st}, err
	})
	return r.data, r.st, err
}

// GetW implements client.Conn.
func (c *Conn) GetW(ctx context.Context, path string) ([]byte, *zk.Stat, client.Watch, error) {
	var ch <-chan zk.Event
	var on *handle
	r, err := call(ctx, c, func(h *handle) (dataStat, error) {
		data, st, w, err := h.zk.GetW(path)
		ch, on = w, h
		return dataStat{data, st}, err
	})
	if err != nil {
		return nil, nil, nil, err
	}
	return r.data, r.st, c.oneShotWatch(path, ch, on), nil
}

// Set implements client.Conn.
func (c *Conn) Set(ctx context.Context, path string, data []byte, version int32) (*zk.Stat, error) {
	return call(ctx, c, func(h *handle) (*zk.Stat, error) { return h.zk.Set(path, data, version) })
}

// Children implements client.Conn.
func (c *Conn) Children(ctx context.Context, path string) ([]string, *zk.Stat, error) {
	r, err := call(ctx, c, func(h *handle) (kids, error) {
		names, st, err := h.zk.Children(path)
		return kids{names, st}, err
	})
	return r.names, r.st, err
}

// ChildrenW implements client.Conn.
func (c *Conn) ChildrenW(ctx context.Context, path string) ([]string, *zk.Stat, client.Watch, error) {
	var ch <-chan zk.Event
	var on *handle
	r, err := call(ctx, c, func(h *handle) (kids, error) {
		names, st, w, err := h.zk.ChildrenW(path)
		ch, on = w, h
		return kids{names, st}, err
	})
	if err != nil {
		return nil, nil, nil, err
	}
	return r.names, r.st, c.oneShotWatch(path, ch, on), nil
}

// CreateContainer implements client.Conn.
func (c *Conn) CreateContainer(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL) (string, error) {
	return call(ctx, c, func(h *handle) (string, error) { return h.zk.CreateContainer(path, data, flags, acl) })
}

// CreateTTL implements client.Conn.
func (c *Conn) CreateTTL(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL, ttl time.Duration) (string, error) {
	return call(ctx, c, func(h *handle) (string, error) { return h.zk.CreateTTL(path, data, flags, acl, ttl) })
}

// CreateProtectedEphemeralSequential implements client.Conn.
func (c *Conn) CreateProtectedEphemeralSequential(ctx context.Context, path string, data []byte, acl []zk.ACL) (string, error) {
	return call(ctx, c, func(h *handle) (string, error) {
		c.createMu.Lock()
		defer c.createMu.Unlock()
		return h.zk.CreateProtectedEphemeralSequential(path, data, acl)
	})
}

// AddAuth implements client.Conn: the library's AddAuth; accepted
// credentials are also added to a handle that replaces this one.
func (c *Conn) AddAuth(ctx context.Context, scheme string, auth []byte) error {
	_, err := call(ctx, c, func(h *handle) (struct{}, error) { return struct{}{}, h.zk.AddAuth(scheme, auth) })
	if err == nil {
		c.mu.Lock()
		c.creds = append(c.creds, cred{scheme, slices.Clone(auth)})
		c.mu.Unlock()
	}
	return err
}

// GetACL implements client.Conn.
func (c *Conn) GetACL(ctx context.Context, path string) ([]zk.ACL, *zk.Stat, error) {
	type aclStat struct {
		acl []zk.ACL
		st  *zk.Stat
	}
	r, err := call(ctx, c, func(h *handle) (aclStat, error) {
		acl, st, err := h.zk.GetACL(path)
		return aclStat{acl, st}, err
	})
	return r.acl, r.st, err
}

// SetACL implements client.Conn.
func (c *Conn) SetACL(ctx context.Context, path string, acl []zk.ACL, version int32) (*zk.Stat, error) {
	return call(ctx, c, func(h *handle) (*zk.Stat, error) { return h.zk.SetACL(path, acl, version) })
}

// Sync implements client.Conn.
func (c *Conn) Sync(ctx context.Context, path string) (string, error) {
	return call(ctx, c, func(h *handle) (string, error) {
		c.syncMu.Lock()
		defer c.syncMu.Unlock()
		return h.zk.Sync(path)
	})
}

// GetEphemerals implements client.Conn: the library has no call for it,
// so the handle's wire sends a sync of prefix (the library checks the
// path) as getEphemerals.
func (c *Conn) GetEphemerals(ctx context.Context, prefix string) ([]string, error) {
	body, err := c.rewritten(ctx, client.OpGetEphemerals, prefix, func(p string) jute.Record {
		return &jute.GetEphemeralsRequest{PrefixPath: p}
	})
	if err != nil {
		return nil, err
	}
	r, ok := body.(*jute.GetEphemeralsResponse)
	if !ok {
		return nil, fmt.Errorf("live: getEphemerals %s: a malformed answer", prefix)
	}
	return append([]string{}, r.Ephemerals...), nil
}

// GetAllChildrenNumber implements client.Conn, as GetEphemerals.
func (c *Conn) GetAllChildrenNumber(ctx context.Context, path string) (int, error) {
	body, err := c.rewritten(ctx, client.OpGetAllChildren, path, func(p string) jute.Record {
		return &jute.GetAllChildrenNumberRequest{Path: p}
	})
	if err != nil {
		return 0, err
	}
	r, ok := body.(*jute.GetAllChildrenNumberResponse)
	if !ok {
		return 0, fmt.Errorf("live: getAllChildrenNumber %s: a malformed answer", path)
	}
	return int(r.TotalNumber), nil
}

// rewritten sends a sync of path as a request of type op (wire.go), whose
// body body makes of the path, and returns its answer's body.
func (c *Conn) rewritten(ctx context.Context, op client.Op, path string, body func(string) jute.Record) (jute.Record, error) {
	return call(ctx, c, func(h *handle) (jute.Record, error) { return c.rewrite(h, op, path, body) })
}

// rewrite sends, on handle h, a sync of path as a request of type op, whose
// body body makes of the path, and returns its answer's body (nil for
// none); the sync's error is the request's ("unknown error: -121").
func (c *Conn) rewrite(h *handle, op client.Op, path string, body func(string) jute.Record) (jute.Record, error) {
	c.syncMu.Lock()
	defer c.syncMu.Unlock()
	h.wire.armRewrite(op, body)
	_, err := h.zk.Sync(path)
	resp, answered := h.wire.disarmRewrite()
	if err == nil && !answered {
		err = fmt.Errorf("live: request %s on %s: no answer came", jute.OpName(op), path)
	}
	return resp, err
}

// Multi implements client.Conn.
func (c *Conn) Multi(ctx context.Context, ops ...any) ([]zk.MultiResponse, error) {
	return call(ctx, c, func(h *handle) ([]zk.MultiResponse, error) { return h.zk.Multi(ops...) })
}

// SessionID implements client.Conn.
func (c *Conn) SessionID() int64 { return c.handle().zk.SessionID() }

// State implements client.Conn.
func (c *Conn) State() zk.State { return c.handle().zk.State() }

// SessionEvents implements client.Conn.
func (c *Conn) SessionEvents() client.Subscription {
	s := &subscription{c: c, ready: make(chan struct{}, 1)}
	c.mu.Lock()
	c.subs = append(c.subs, s)
	c.mu.Unlock()
	return s
}

// Now implements client.Clock: the wall clock.
func (c *Conn) Now() time.Time { return time.Now() }

// Sleep implements client.Clock.
func (c *Conn) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// WithTimeout implements client.Clock.
func (c *Conn) WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, d)
}

// watch is a one-shot watch: the library's channel, and its event once
// received.
type watch struct {
	mu  sync.Mutex
	ch  <-chan zk.Event
	h   *handle // the handle that set it
	got *zk.Event
	// gone is closed when RemoveWatches removed the watch, its event
	// (NotWatching) in got.
	gone chan struct{}
}

// oneShotWatch is the watch a watching read of path left (the library's
// channel ch, on handle h), kept by path for RemoveWatches.
func (c *Conn) oneShotWatch(path string, ch <-chan zk.Event, h *handle) *watch {
	w := &watch{ch: ch, h: h, gone: make(chan struct{})}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.oneShot == nil {
		c.oneShot = map[string][]*watch{}
	}
	c.oneShot[path] = append(slices.DeleteFunc(c.oneShot[path], func(o *watch) bool { _, fired := o.Poll(); return fired }), w)
	return w
}

// remove ends the watch with ev, unless it has fired.
func (w *watch) remove(ev zk.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.got == nil {
		w.got = &ev
		close(w.gone)
	}
}

// Wait implements client.Watch. An event that has already arrived is
// returned even when ctx has ended; a select would pick at random.
func (w *watch) Wait(ctx context.Context) (zk.Event, error) {
	if ev, ok := w.Poll(); ok {
		return ev, nil
	}
	select {
	case ev, ok := <-w.ch:
		return w.keep(ev, ok), nil
	case <-w.gone:
		ev, _ := w.Poll()
		return ev, nil
	case <-ctx.Done():
		return zk.Event{}, ctx.Err()
	}
}

// Poll implements client.Waitable: the watch's event if it has fired; it
// stays fired.
func (w *watch) Poll() (zk.Event, bool) {
	w.mu.Lock()
	got := w.got
	w.mu.Unlock()
	if got != nil {
		return *got, true
	}
	select {
	case ev, ok := <-w.ch:
		return w.keep(ev, ok), true
	default:
		return zk.Event{}, false
	}
}

// keep records the event received from the channel (closed without one:
// the connection is gone for good). A watch of a handle the Conn gave up
// fails with zk.ErrSessionExpired, as in the simulator.
func (w *watch) keep(ev zk.Event, ok bool) zk.Event {
	if !ok {
		ev = zk.Event{Type: zk.EventNotWatching, State: zk.StateDisconnected, Err: zk.ErrClosing}
	}
	if ev.Type == zk.EventNotWatching && w.h != nil && w.h.lost.Load() {
		ev.Err = zk.ErrSessionExpired
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.got == nil {
		w.got = &ev
	}
	return *w.got
}

// subscription is one subscriber's queue of session events.
type subscription struct {
	c      *Conn
	mu     sync.Mutex
	queue  []zk.Event
	closed bool
	ready  chan struct{} // holds a token while the queue is not empty
}

func (s *subscription) push(ev zk.Event) {
	s.mu.Lock()
	if !s.closed {
		s.queue = append(s.queue, ev)
	}
	s.mu.Unlock()
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

// Next implements client.Subscription. An event already queued is
// returned even when ctx has ended.
func (s *subscription) Next(ctx context.Context) (zk.Event, error) {
	for {
		if ev, ok := s.Poll(); ok {
			return ev, nil
		}
		if err := ctx.Err(); err != nil {
			return zk.Event{}, err
		}
		select {
		case <-s.ready:
		case <-ctx.Done():
		}
	}
}

// Poll implements client.Waitable: the next queued event, taken from the
// queue.
func (s *subscription) Poll() (zk.Event, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) == 0 {
		return zk.Event{}, false
	}
	ev := s.queue[0]
	s.queue = s.queue[1:]
	return ev, true
}

// Close implements client.Subscription.
func (s *subscription) Close() {
	s.mu.Lock()
	s.closed, s.queue = true, nil
	s.mu.Unlock()
	c := s.c
	c.mu.Lock()
	for i, x := range c.subs {
		if x == s {
			c.subs = append(c.subs[:i], c.subs[i+1:]...)
			break
		}
	}
	c.mu.Unlock()
}

// OnNotification has fn told of every watch notification the session
// receives, in the order they arrive from the server, before the library
// fires any watch with it (fn must not block): the order across watches,
// which the library's one channel per watch loses. The simulator's
// sim.Client.OnNotification is the same.
func (c *Conn) OnNotification(fn func(zk.Event)) {
	c.mu.Lock()
	c.onNote = fn
	h := c.h
	c.mu.Unlock()
	h.wire.mu.Lock()
	h.wire.onNote = fn
	h.wire.mu.Unlock()
}
