package live

import (
	"context"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// procConn is one session of a World's process as its code sees it: the
// session's calls, each letting the world's other processes run while it
// waits (Process.call), and times counted from the run's start
// (client.Epoch stands for it, as in the simulator, so the workloads'
// clocks read the same).
type procConn struct {
	p    *Process
	conn *Conn
}

var (
	_ client.Conn   = (*procConn)(nil)
	_ client.Pauser = (*procConn)(nil)
)

func (c *procConn) Create(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL) (p string, err error) {
	c.p.call(func() { p, err = c.conn.Create(ctx, path, data, flags, acl) })
	return p, err
}

func (c *procConn) Create2(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL) (p string, st *zk.Stat, err error) {
	c.p.call(func() { p, st, err = c.conn.Create2(ctx, path, data, flags, acl) })
	return p, st, err
}

func (c *procConn) CreateContainer(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL) (p string, err error) {
	c.p.call(func() { p, err = c.conn.CreateContainer(ctx, path, data, flags, acl) })
	return p, err
}

func (c *procConn) CreateTTL(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL, ttl time.Duration) (p string, err error) {
	c.p.call(func() { p, err = c.conn.CreateTTL(ctx, path, data, flags, acl, ttl) })
	return p, err
}

func (c *procConn) CreateProtectedEphemeralSequential(ctx context.Context, path string, data []byte, acl []zk.ACL) (p string, err error) {
	c.p.call(func() { p, err = c.conn.CreateProtectedEphemeralSequential(ctx, path, data, acl) })
	return p, err
}

func (c *procConn) GetEphemerals(ctx context.Context, prefix string) (paths []string, err error) {
	c.p.call(func() { paths, err = c.conn.GetEphemerals(ctx, prefix) })
	return paths, err
}

func (c *procConn) GetAllChildrenNumber(ctx context.Context, path string) (n int, err error) {
	c.p.call(func() { n, err = c.conn.GetAllChildrenNumber(ctx, path) })
	return n, err
}

func (c *procConn) Delete(ctx context.Context, path string, version int32) (err error) {
	c.p.call(func() { err = c.conn.Delete(ctx, path, version) })
	return err
}

func (c *procConn) Exists(ctx context.Context, path string) (ok bool, st *zk.Stat, err error) {
	c.p.call(func() { ok, st, err = c.conn.Exists(ctx, path) })
	return ok, st, err
}

func (c *procConn) ExistsW(ctx context.Context, path string) (ok bool, st *zk.Stat, w client.Watch, err error) {
	c.p.call(func() { ok, st, w, err = c.conn.ExistsW(ctx, path) })
	return ok, st, c.watch(w), err
}

func (c *procConn) Get(ctx context.Context, path string) (data []byte, st *zk.Stat, err error) {
	c.p.call(func() { data, st, err = c.conn.Get(ctx, path) })
	return data, st, err
}

func (c *procConn) GetW(ctx context.Context, path string) (data []byte, st *zk.Stat, w client.Watch, err error) {
	c.p.call(func() { data, st, w, err = c.conn.GetW(ctx, path) })
	return data, st, c.watch(w), err
}

func (c *procConn) Set(ctx context.Context, path string, data []byte, version int32) (st *zk.Stat, err error) {
	c.p.call(func() { st, err = c.conn.Set(ctx, path, data, version) })
	return st, err
}

func (c *procConn) Children(ctx context.Context, path string) (kids []string, st *zk.Stat, err error) {
	c.p.call(func() { kids, st, err = c.conn.Children(ctx, path) })
	return kids, st, err
}

func (c *procConn) ChildrenW(ctx context.Context, path string) (kids []string, st *zk.Stat, w client.Watch, err error) {
	c.p.call(func() { kids, st, w, err = c.conn.ChildrenW(ctx, path) })
	return kids, st, c.watch(w), err
}

func (c *procConn) Sync(ctx context.Context, path string) (p string, err error) {
	c.p.call(func() { p, err = c.conn.Sync(ctx, path) })
	return p, err
}

func (c *procConn) Multi(ctx context.Context, ops ...any) (res []zk.MultiResponse, err error) {
	c.p.call(func() { res, err = c.conn.Multi(ctx, ops...) })
	return res, err
}

func (c *procConn) AddWatch(ctx context.Context, path string, recursive bool) (sub client.Subscription, err error) {
	c.p.call(func() { sub, err = c.conn.AddWatch(ctx, path, recursive) })
	if err != nil {
		return nil, err
	}
	return &procSubscription{p: c.p, s: sub}, nil
}

func (c *procConn) RemoveWatches(ctx context.Context, path string) (err error) {
	c.p.call(func() { err = c.conn.RemoveWatches(ctx, path) })
	return err
}

func (c *procConn) AddAuth(ctx context.Context, scheme string, auth []byte) (err error) {
	c.p.call(func() { err = c.conn.AddAuth(ctx, scheme, auth) })
	return err
}

func (c *procConn) GetACL(ctx context.Context, path string) (acl []zk.ACL, st *zk.Stat, err error) {
	c.p.call(func() { acl, st, err = c.conn.GetACL(ctx, path) })
	return acl, st, err
}

func (c *procConn) SetACL(ctx context.Context, path string, acl []zk.ACL, version int32) (st *zk.Stat, err error) {
	c.p.call(func() { st, err = c.conn.SetACL(ctx, path, acl, version) })
	return st, err
}

// Pause stops the session's process for d (Process.Pause): what a crash
// or a long garbage-collection pause does to it, as sim.Client.Pause does
// in the simulator.
func (c *procConn) Pause(d time.Duration) { c.p.Pause(d) }

func (c *procConn) SessionID() int64 { return c.conn.SessionID() }
func (c *procConn) State() zk.State  { return c.conn.State() }

func (c *procConn) SessionEvents() client.Subscription {
	return &procSubscription{p: c.p, s: c.conn.SessionEvents()}
}

// Now is the run's time: client.Epoch plus the time since the run started.
func (c *procConn) Now() time.Time { return client.Epoch.Add(time.Since(c.p.w.origin)) }

func (c *procConn) Sleep(ctx context.Context, d time.Duration) (err error) {
	c.p.call(func() { err = c.conn.Sleep(ctx, d) })
	return err
}

func (c *procConn) WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, d)
}

// Close ends the session (go-zookeeper/zk's Close), letting other
// processes run while it waits for the server's answer.
func (c *procConn) Close() {
	c.p.call(c.conn.Close)
}

// NewSession opens another session of the same process: the same servers,
// the same faults (through the same dialer), the same pauses.
func (c *procConn) NewSession(ctx context.Context) (client.Conn, error) {
	conn, err := c.conn.NewSession(ctx)
	if err != nil {
		return nil, err
	}
	lc := conn.(*Conn)
	c.p.add(lc)
	return &procConn{p: c.p, conn: lc}, nil
}

func (c *procConn) NewTimer(d time.Duration) client.Timer { return c.conn.NewTimer(d) }

// Select waits, letting other processes run, on the sessions' own
// waitables beneath the wrappers.
func (c *procConn) Select(ctx context.Context, ws ...client.Waitable) (i int, ev zk.Event, err error) {
	inner := make([]client.Waitable, len(ws))
	for k, w := range ws {
		switch w := w.(type) {
		case *procWatch:
			inner[k] = w.w
		case *procSubscription:
			inner[k] = w.s
		default:
			inner[k] = w
		}
	}
	c.p.call(func() { i, ev, err = c.conn.Select(ctx, inner...) })
	return i, ev, err
}

// watch wraps a watch so that waiting on it lets other processes run.
func (c *procConn) watch(w client.Watch) client.Watch {
	if w == nil {
		return nil
	}
	return &procWatch{p: c.p, w: w}
}

type procWatch struct {
	p *Process
	w client.Watch
}

func (w *procWatch) Wait(ctx context.Context) (ev zk.Event, err error) {
	if ctx.Err() != nil { // a poll: no need to let go
		return w.w.Wait(ctx)
	}
	w.p.call(func() { ev, err = w.w.Wait(ctx) })
	return ev, err
}

func (w *procWatch) Poll() (zk.Event, bool) { return w.w.Poll() }

type procSubscription struct {
	p *Process
	s client.Subscription
}

func (s *procSubscription) Next(ctx context.Context) (ev zk.Event, err error) {
	if ctx.Err() != nil {
		return s.s.Next(ctx)
	}
	s.p.call(func() { ev, err = s.s.Next(ctx) })
	return ev, err
}

func (s *procSubscription) Close() { s.s.Close() }

func (s *procSubscription) Poll() (zk.Event, bool) { return s.s.Poll() }
