package live

import (
	"context"
	"slices"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/jute"
)

// Persistent watches live. go-zookeeper/zk v1.0.4 has no addWatch; the
// wire sends it for the library, in a sync's place (as it sends
// getEphemerals), and removeWatches the same way. The library knows
// nothing of them, so the wire sets them again on each new connection of
// the session, as the Java client does (setWatches2, after the library's
// connect), and hands their notifications to the Conn, which passes each
// to the persistent watches that hear it, as sim.Client does.

// persistentReg is one persistent watch the wire sets again.
type persistentReg struct {
	path      string
	recursive bool
}

// setPersistentAgain sends the session's persistent watches on a new
// connection that resumed it, as one setWatches2 (no one-shot watches:
// those are the library's own), with the Java client's xid for it
// (jute.XidSetWatches), which the library does not use: the wire keeps
// the answer to itself. The server sets them without firing for what
// changed meanwhile. If the library then sets its one-shot watches again,
// its setWatches goes out as a setWatches2 carrying the persistent ones as
// well, after its own (outgoing), so that on a path with both the
// persistent mode wins, as with the Java client.
func (c *wireConn) setPersistentAgain() {
	c.w.mu.Lock()
	regs := slices.Clone(c.w.persistent)
	c.w.mu.Unlock()
	if len(regs) == 0 {
		return
	}
	sw := &jute.SetWatches2{} // relative zxid 0: nothing fires for persistent watches
	sw.PersistentWatches, sw.PersistentRecursiveWatches = persistentLists(regs)
	frame := jute.AppendRequest(nil, jute.RequestHeader{Xid: jute.XidSetWatches, Type: jute.OpSetWatches2}, sw)
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.Conn.Write(jute.AppendFrame(nil, frame)) // a failed write is a lost connection: the next one sets them again
}

// setWatchesOut is the library's setWatches (its one-shot watches set
// again on a new connection), frame, header h and body sw, as it goes
// out: the paths whose watches RemoveWatches removed left out (the
// library, which has no removeWatches, still counts them); and the
// session's persistent watches with the rest, after them, as one
// setWatches2 (the Java client's), so that on a path with both the
// persistent mode is the one the server keeps. w.mu is held.
func (w *wire) setWatchesOut(h jute.RequestHeader, sw *jute.SetWatches, frame []byte) []byte {
	if len(w.removed) == 0 && len(w.persistent) == 0 {
		return frame
	}
	kept := func(paths []string) []string {
		return slices.DeleteFunc(paths, func(p string) bool { return w.removed[p] })
	}
	sw.DataWatches, sw.ExistWatches, sw.ChildWatches = kept(sw.DataWatches), kept(sw.ExistWatches), kept(sw.ChildWatches)
	if len(w.persistent) == 0 {
		return jute.AppendRequest(nil, h, sw)
	}
	sw2 := &jute.SetWatches2{RelativeZxid: sw.RelativeZxid, DataWatches: sw.DataWatches, ExistWatches: sw.ExistWatches,
		ChildWatches: sw.ChildWatches}
	sw2.PersistentWatches, sw2.PersistentRecursiveWatches = persistentLists(w.persistent)
	return jute.AppendRequest(nil, jute.RequestHeader{Xid: h.Xid, Type: jute.OpSetWatches2}, sw2)
}

// persistentLists are the two lists a setWatches2 ends with: the
// persistent watches' paths, then the recursive ones'.
func persistentLists(regs []persistentReg) (persist, recursive []string) {
	for _, r := range regs {
		if r.recursive {
			recursive = append(recursive, r.path)
		} else {
			persist = append(persist, r.path)
		}
	}
	return persist, recursive
}

// persistentWatch is one AddWatch's stream of events.
type persistentWatch struct {
	*subscription
	path      string
	recursive bool
}

// hears reports whether the watch is told of an event of type typ on
// path (client.PersistentHears).
func (p *persistentWatch) hears(path string, typ zk.EventType) bool {
	return client.PersistentHears(p.path, p.recursive, path, typ)
}

// end gives the watch its last event and closes it to more.
func (p *persistentWatch) end(ev zk.Event) {
	p.push(ev)
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
}

// AddWatch implements client.Conn: an addWatch sent by the wire in a
// sync's place; on success, a subscription to the events the watch hears.
func (c *Conn) AddWatch(ctx context.Context, path string, recursive bool) (client.Subscription, error) {
	var on *handle
	_, err := call(ctx, c, func(h *handle) (struct{}, error) {
		on = h
		_, err := c.rewrite(h, client.OpAddWatch, path, func(p string) jute.Record {
			return &jute.AddWatchRequest{Path: p, Mode: client.AddWatchModeOf(recursive)}
		})
		return struct{}{}, err
	})
	if err != nil {
		return nil, err
	}
	on.wire.mu.Lock()
	on.wire.persistent = append(on.wire.persistent, persistentReg{path, recursive})
	on.wire.mu.Unlock()
	p := &persistentWatch{subscription: &subscription{c: c, ready: make(chan struct{}, 1)}, path: path, recursive: recursive}
	c.mu.Lock()
	c.persistent = append(c.persistent, p)
	c.mu.Unlock()
	return p, nil
}

// RemoveWatches implements client.Conn: a removeWatches of every kind on
// path (NoWatcher, "unknown error: -121", when the session had none), sent
// by the wire in a sync's place; the session's own watches on path end
// with a zk.EventNotWatching, as in the simulator.
func (c *Conn) RemoveWatches(ctx context.Context, path string) error {
	var on *handle
	_, err := call(ctx, c, func(h *handle) (struct{}, error) {
		on = h
		_, err := c.rewrite(h, client.OpRemoveWatches, path, func(p string) jute.Record {
			return &jute.RemoveWatchesRequest{Path: p, Type: jute.WatcherAny}
		})
		return struct{}{}, err
	})
	if err != nil {
		return err
	}
	on.wire.mu.Lock()
	on.wire.persistent = slices.DeleteFunc(on.wire.persistent, func(r persistentReg) bool { return r.path == path })
	if on.wire.removed == nil {
		on.wire.removed = map[string]bool{}
	}
	on.wire.removed[path] = true
	on.wire.mu.Unlock()
	ev := zk.Event{Type: zk.EventNotWatching, State: zk.StateSyncConnected, Path: path}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.persistent = slices.DeleteFunc(c.persistent, func(p *persistentWatch) bool {
		if p.path == path {
			p.end(ev)
			return true
		}
		return false
	})
	for _, w := range c.oneShot[path] {
		w.remove(ev)
	}
	delete(c.oneShot, path)
	return nil
}

// persistentEvent passes a notification of handle h to the persistent
// watches that hear it.
func (c *Conn) persistentEvent(h *handle, ev zk.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h != c.h {
		return
	}
	for _, p := range c.persistent {
		if p.hears(ev.Path, ev.Type) {
			p.push(ev)
		}
	}
}

// endPersistent ends every persistent watch with a NotWatching event
// carrying err (the session expired or was closed); c.mu is held.
func (c *Conn) endPersistent(err error) {
	for _, p := range c.persistent {
		p.end(zk.Event{Type: zk.EventNotWatching, State: zk.StateDisconnected, Path: p.path, Err: err})
	}
	c.persistent = nil
}
