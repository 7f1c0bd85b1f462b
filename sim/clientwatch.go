package sim

import (
	"cmp"
	"context"
	"slices"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/trace"
)

// The client's watchers, as go-zookeeper/zk keeps them: registered when a
// watching read's reply arrives, fired by a watch event, registered again
// on reconnection (setWatches), and failed when the session expires.

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

// simWatch is a client.Watch of the simulated world.
type simWatch struct {
	c     *Client
	op    client.Op
	path  string
	ev    zk.Event
	fired bool
}

func (w *simWatch) Wait(ctx context.Context) (zk.Event, error) {
	for !w.fired {
		if err := w.c.p.current().park(ctx, waitWatch, w.op, w.path); err != nil {
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
	case r.op == client.OpExists && code == trace.CodeOK, r.op == client.OpGetData && code == trace.CodeOK:
		r.watcher = c.addWatcher(r.path, watchData, r.op)
	case r.op == client.OpExists && code == trace.CodeNoNode:
		r.watcher = c.addWatcher(r.path, watchExist, r.op)
	case r.op == client.OpGetChildren && code == trace.CodeOK:
		r.watcher = c.addWatcher(r.path, watchChild, r.op)
	}
}

func (c *Client) addWatcher(path string, typ watchType, op client.Op) *simWatch {
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

func (c *Client) onWatchEvent(path string, typ zk.EventType) {
	ev := zk.Event{Type: typ, State: zk.StateSyncConnected, Path: path}
	if c.onNote != nil {
		c.onNote(ev)
	}
	for _, wt := range eventWatchTypes[typ] {
		c.fireWatchers(watchKey{path, wt}, ev)
	}
	c.notifyPersistent(ev)
	c.p.wake()
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
	c.p.wake()
}

// sendSetWatches re-registers the client's watches after a reconnection.
func (c *Client) sendSetWatches() {
	persist, recursive := c.persistentPaths()
	if len(c.watchers) == 0 && len(persist) == 0 && len(recursive) == 0 {
		return
	}
	req := &request{op: client.OpSetWatches, requestExtra: &requestExtra{relZxid: c.lastZxid,
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

// watchCode is a send's Code in the trace: 1 for a read that leaves a
// watch, so that a report can follow the watches a client holds.
func watchCode(r *request) int32 {
	if r.watch {
		return 1
	}
	return 0
}
