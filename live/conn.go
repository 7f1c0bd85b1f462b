package live

import (
	"context"
	"io"
	"log"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
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
type Conn struct {
	zk *zk.Conn

	mu   sync.Mutex
	subs []*subscription

	requests, notifications atomic.Int64
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
	// SessionTimeout is asked of the ensemble (default 10s).
	SessionTimeout time.Duration
	// Dialer replaces the library's net.DialTimeout: the live faults wrap
	// the connection this way (FaultDialer).
	Dialer zk.Dialer
	// Log receives the library's log lines (default: discarded).
	Log io.Writer
}

// Dial opens a session with the servers ("127.0.0.1:2181", ...). It
// returns at once; the session is established in the background, as the
// library does, and calls made meanwhile wait for it.
func Dial(servers []string, opt Options) (*Conn, error) {
	if opt.SessionTimeout == 0 {
		opt.SessionTimeout = 10 * time.Second
	}
	out := opt.Log
	if out == nil {
		out = io.Discard
	}
	c := &Conn{}
	dialer := opt.Dialer
	if dialer == nil {
		dialer = net.DialTimeout
	}
	conn, events, err := zk.Connect(servers, opt.SessionTimeout,
		zk.WithLogger(log.New(out, "zk: ", log.Lmicroseconds)),
		zk.WithLogInfo(opt.Log != nil),
		zk.WithEventCallback(c.event),
		zk.WithDialer(dialer))
	if err != nil {
		return nil, err
	}
	go func() { // the library's channel must be drained; the callback saw everything
		for range events {
		}
	}()
	c.zk = conn
	return c, nil
}

// Close ends the session.
func (c *Conn) Close() { c.zk.Close() }

// event is the library's callback: it must not block.
func (c *Conn) event(ev zk.Event) {
	if ev.Type != zk.EventSession {
		if ev.Type != zk.EventNotWatching {
			c.notifications.Add(1)
		}
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.subs {
		s.push(ev)
	}
}

// call runs fn (one request) unless ctx has ended, and returns early if
// ctx ends first.
func call[T any](ctx context.Context, c *Conn, fn func() (T, error)) (T, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	c.requests.Add(1)
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := fn()
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
	return call(ctx, c, func() (string, error) { return c.zk.Create(path, data, flags, acl) })
}

// Delete implements client.Conn.
func (c *Conn) Delete(ctx context.Context, path string, version int32) error {
	_, err := call(ctx, c, func() (struct{}, error) { return struct{}{}, c.zk.Delete(path, version) })
	return err
}

// Exists implements client.Conn.
func (c *Conn) Exists(ctx context.Context, path string) (bool, *zk.Stat, error) {
	r, err := call(ctx, c, func() (stat, error) {
		ok, st, err := c.zk.Exists(path)
		return stat{ok, st}, err
	})
	return r.ok, r.st, err
}

// ExistsW implements client.Conn.
func (c *Conn) ExistsW(ctx context.Context, path string) (bool, *zk.Stat, client.Watch, error) {
	var ch <-chan zk.Event
	r, err := call(ctx, c, func() (stat, error) {
		ok, st, w, err := c.zk.ExistsW(path)
		ch = w
		return stat{ok, st}, err
	})
	if err != nil {
		return false, nil, nil, err
	}
	return r.ok, r.st, &watch{ch: ch}, nil
}

// Get implements client.Conn.
func (c *Conn) Get(ctx context.Context, path string) ([]byte, *zk.Stat, error) {
	r, err := call(ctx, c, func() (dataStat, error) {
		data, st, err := c.zk.Get(path)
		return dataStat{data, st}, err
	})
	return r.data, r.st, err
}

// GetW implements client.Conn.
func (c *Conn) GetW(ctx context.Context, path string) ([]byte, *zk.Stat, client.Watch, error) {
	var ch <-chan zk.Event
	r, err := call(ctx, c, func() (dataStat, error) {
		data, st, w, err := c.zk.GetW(path)
		ch = w
		return dataStat{data, st}, err
	})
	if err != nil {
		return nil, nil, nil, err
	}
	return r.data, r.st, &watch{ch: ch}, nil
}

// Set implements client.Conn.
func (c *Conn) Set(ctx context.Context, path string, data []byte, version int32) (*zk.Stat, error) {
	return call(ctx, c, func() (*zk.Stat, error) { return c.zk.Set(path, data, version) })
}

// Children implements client.Conn.
func (c *Conn) Children(ctx context.Context, path string) ([]string, *zk.Stat, error) {
	r, err := call(ctx, c, func() (kids, error) {
		names, st, err := c.zk.Children(path)
		return kids{names, st}, err
	})
	return r.names, r.st, err
}

// ChildrenW implements client.Conn.
func (c *Conn) ChildrenW(ctx context.Context, path string) ([]string, *zk.Stat, client.Watch, error) {
	var ch <-chan zk.Event
	r, err := call(ctx, c, func() (kids, error) {
		names, st, w, err := c.zk.ChildrenW(path)
		ch = w
		return kids{names, st}, err
	})
	if err != nil {
		return nil, nil, nil, err
	}
	return r.names, r.st, &watch{ch: ch}, nil
}

// Sync implements client.Conn.
func (c *Conn) Sync(ctx context.Context, path string) (string, error) {
	return call(ctx, c, func() (string, error) { return c.zk.Sync(path) })
}

// Multi implements client.Conn.
func (c *Conn) Multi(ctx context.Context, ops ...any) ([]zk.MultiResponse, error) {
	return call(ctx, c, func() ([]zk.MultiResponse, error) { return c.zk.Multi(ops...) })
}

// SessionID implements client.Conn.
func (c *Conn) SessionID() int64 { return c.zk.SessionID() }

// State implements client.Conn.
func (c *Conn) State() zk.State { return c.zk.State() }

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
	got *zk.Event
}

// Wait implements client.Watch. An event that has already arrived is
// returned even when ctx has ended (the recipes poll a watch that way,
// with a cancelled context); a select would pick at random.
func (w *watch) Wait(ctx context.Context) (zk.Event, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.got != nil {
		return *w.got, nil
	}
	select {
	case ev, ok := <-w.ch:
		return w.keep(ev, ok), nil
	default:
	}
	select {
	case ev, ok := <-w.ch:
		return w.keep(ev, ok), nil
	case <-ctx.Done():
		return zk.Event{}, ctx.Err()
	}
}

func (w *watch) keep(ev zk.Event, ok bool) zk.Event {
	if !ok { // closed without an event: the connection is gone for good
		ev = zk.Event{Type: zk.EventNotWatching, State: zk.StateDisconnected, Err: zk.ErrClosing}
	}
	w.got = &ev
	return ev
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
		s.mu.Lock()
		if len(s.queue) > 0 {
			ev := s.queue[0]
			s.queue = s.queue[1:]
			s.mu.Unlock()
			return ev, nil
		}
		s.mu.Unlock()
		if err := ctx.Err(); err != nil {
			return zk.Event{}, err
		}
		select {
		case <-s.ready:
		case <-ctx.Done():
		}
	}
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
