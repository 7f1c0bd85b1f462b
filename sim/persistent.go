package sim

import (
	"context"
	"slices"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/trace"
)

// Persistent watches, as ZooKeeper 3.6 and later keep them (addWatch): the
// server does not remove one when it fires. A persistent watch hears every
// event on its path (NodeCreated, NodeDataChanged, NodeDeleted,
// NodeChildrenChanged); a recursive one every event on its path and below
// it, but NodeChildrenChanged. They are set again on each new connection,
// firing nothing for what changed meanwhile, and end with the session.

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

// AddWatch implements client.Conn.
func (c *Client) AddWatch(ctx context.Context, path string, recursive bool) (client.Subscription, error) {
	if !validClientPath(path, false) {
		return nil, zk.ErrInvalidPath
	}
	rep, err := c.do(ctx, &request{op: client.OpAddWatch, path: path, flags: int32(client.AddWatchModeOf(recursive))})
	if err == nil {
		err = trace.CodeError(rep.code)
	}
	if err != nil {
		return nil, err
	}
	p := &persistentWatch{subscription: &subscription{c: c}, path: path, recursive: recursive}
	c.persistent = append(c.persistent, p)
	return p, nil
}

// RemoveWatches implements client.Conn: the server forgets the session's
// watches on path, of every kind, or answers NoWatcher ("unknown error:
// -121") if it had none; the client ends its own on path with a
// zk.EventNotWatching.
func (c *Client) RemoveWatches(ctx context.Context, path string) error {
	if !validClientPath(path, false) {
		return zk.ErrInvalidPath
	}
	rep, err := c.do(ctx, &request{op: client.OpRemoveWatches, path: path, flags: 3})
	if err == nil {
		err = trace.CodeError(rep.code)
	}
	if err != nil {
		return err
	}
	ev := zk.Event{Type: zk.EventNotWatching, State: zk.StateSyncConnected, Path: path}
	for _, wt := range []watchType{watchExist, watchData, watchChild} {
		c.fireWatchers(watchKey{path, wt}, ev)
	}
	c.persistent = slices.DeleteFunc(c.persistent, func(p *persistentWatch) bool {
		if p.path == path {
			p.end(ev)
			return true
		}
		return false
	})
	c.p.wake()
	return nil
}

// end gives the watch its last event and closes it to more.
func (p *persistentWatch) end(ev zk.Event) {
	if !p.closed {
		p.queue = append(p.queue, ev)
	}
	p.closed = true
}

// notifyPersistent passes a watch event to the persistent watches that
// hear it.
func (c *Client) notifyPersistent(ev zk.Event) {
	for _, p := range c.persistent {
		if !p.closed && p.hears(ev.Path, ev.Type) {
			p.queue = append(p.queue, ev)
		}
	}
}

// endPersistent ends every persistent watch with a NotWatching event
// carrying err (the session expired or was closed).
func (c *Client) endPersistent(err error) {
	for _, p := range c.persistent {
		p.end(zk.Event{Type: zk.EventNotWatching, State: zk.StateDisconnected, Path: p.path, Err: err})
	}
	c.persistent = nil
}

// persistentPaths are the paths of the persistent watches of each mode, in
// order, for setWatches.
func (c *Client) persistentPaths() (persist, recursive []string) {
	for _, p := range c.persistent {
		if p.closed {
			continue
		}
		if p.recursive {
			recursive = append(recursive, p.path)
		} else {
			persist = append(persist, p.path)
		}
	}
	slices.Sort(persist)
	slices.Sort(recursive)
	return slices.Compact(persist), slices.Compact(recursive)
}
