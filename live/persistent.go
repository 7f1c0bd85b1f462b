package live

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// Persistent watches live. go-zookeeper/zk v1.0.4 has no addWatch; the
// wire sends it for the library, in a sync's place (as it sends
// getEphemerals), and removeWatches the same way. The library knows
// nothing of them, so the wire sets them again on each new connection of
// the session, as the Java client does (setWatches2, after the library's
// connect), and hands their notifications to the Conn, which passes each
// to the persistent watches that hear it, as sim.Client does.

// The modes of addWatch and the watch type of removeWatches, as ZooKeeper
// numbers them, and the xid of a setWatches (the Java client's, which the
// library does not use: the wire keeps the answer to itself).
const (
	addWatchPersistent int32 = 0
	addWatchRecursive  int32 = 1
	removeAnyWatches   int32 = 3
	opSetWatches2      int32 = 105
	setWatchesXid      int32 = -8
)

// persistentReg is one persistent watch the wire sets again.
type persistentReg struct {
	path      string
	recursive bool
}

// setPersistentAgain sends the session's persistent watches on a new
// connection that resumed it, as one setWatches2 (no one-shot watches:
// those are the library's own). The server sets them without firing for
// what changed meanwhile.
func (c *wireConn) setPersistentAgain() {
	c.w.mu.Lock()
	regs := slices.Clone(c.w.persistent)
	c.w.mu.Unlock()
	if len(regs) == 0 {
		return
	}
	var persist, recursive []string
	for _, r := range regs {
		if r.recursive {
			recursive = append(recursive, r.path)
		} else {
			persist = append(persist, r.path)
		}
	}
	xid := setWatchesXid
	body := binary.BigEndian.AppendUint32(nil, uint32(xid))
	body = binary.BigEndian.AppendUint32(body, uint32(opSetWatches2))
	body = binary.BigEndian.AppendUint64(body, 0) // relative zxid: nothing fires for persistent watches
	for _, list := range [][]string{nil, nil, nil, persist, recursive} {
		body = binary.BigEndian.AppendUint32(body, uint32(len(list)))
		for _, p := range list {
			body = binary.BigEndian.AppendUint32(body, uint32(len(p)))
			body = append(body, p...)
		}
	}
	frame := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.Conn.Write(append(frame, body...)) // a failed write is a lost connection: the next one sets them again
}

// persistentWatch is one AddWatch's stream of events.
type persistentWatch struct {
	*subscription
	path      string
	recursive bool
}

// hears reports whether the watch is told of an event of type typ on
// path: a persistent watch every event on its path; a recursive one every
// event on its path and below it, but NodeChildrenChanged (as
// sim.persistentWatch).
func (p *persistentWatch) hears(path string, typ zk.EventType) bool {
	if path == p.path {
		return !p.recursive || typ != zk.EventNodeChildrenChanged
	}
	return p.recursive && typ != zk.EventNodeChildrenChanged &&
		(p.path == "/" || strings.HasPrefix(path, p.path+"/"))
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
	mode := addWatchPersistent
	if recursive {
		mode = addWatchRecursive
	}
	var on *handle
	_, err := call(ctx, c, func(h *handle) (struct{}, error) {
		on = h
		return struct{}{}, c.bodiless(h, int32(client.OpAddWatch), path, mode)
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
		return struct{}{}, c.bodiless(h, int32(client.OpRemoveWatches), path, removeAnyWatches)
	})
	if err != nil {
		return err
	}
	on.wire.mu.Lock()
	on.wire.persistent = slices.DeleteFunc(on.wire.persistent, func(r persistentReg) bool { return r.path == path })
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

// bodiless sends a sync of path as a request of type op with arg after the
// path, whose answer has no body (addWatch, removeWatches), and returns
// its error.
func (c *Conn) bodiless(h *handle, op int32, path string, arg int32) error {
	c.syncMu.Lock()
	defer c.syncMu.Unlock()
	h.wire.armRewrite(op, binary.BigEndian.AppendUint32(nil, uint32(arg))...)
	_, err := h.zk.Sync(path) // its error is the request's ("unknown error: -121")
	if answered, _ := h.wire.disarmRewriteCode(); err == nil && !answered {
		return fmt.Errorf("live: request %d on %s: no answer came", op, path)
	}
	return err
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
