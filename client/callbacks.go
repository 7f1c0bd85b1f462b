package client

import (
	"context"

	"github.com/go-zookeeper/zk"
)

// Callbacks runs a recipe's callbacks on one task of its process, one at
// a time: the ZooKeeper Java client's event thread (which runs every
// watcher, and on which Curator's recipes take their monitors), kazoo's
// callback worker. A recipe ported from a callback-style library keeps its
// shape: it registers a watch callback (OnWatch) or a session-state
// listener (OnSession) and goes on; the callback runs later, on the
// dispatcher, while the caller may be anywhere in its own code. That is
// the race such libraries live with, and the simulator searches it: which
// of the dispatcher and the caller runs first, at each point where either
// may, is a choice of the run's.
//
// The dispatcher takes, in this order of precedence: work posted to it
// (Post, and each registration), the session's events (each given to
// every listener, in registration order), and the watches registered with
// a callback (each callback run once, when its watch fires). A callback
// that blocks holds up every callback after it, as on the event thread;
// one that waits for the caller, while the caller waits for a later
// callback, deadlocks the two, and the simulator reports what each waits
// for.
type Callbacks struct {
	conn      Conn
	posted    *Mailbox[func(context.Context)]
	events    Subscription
	listeners []func(context.Context, zk.Event)
	watches   []watchCallback
	task      Task
}

type watchCallback struct {
	w  Watch
	fn func(context.Context, zk.Event)
}

// NewCallbacks starts the dispatcher of conn's process, named name
// ("event-thread"), hearing the session's events from now on. It runs
// until ctx ends or its process does.
func NewCallbacks(ctx context.Context, conn Conn, name string) *Callbacks {
	c := &Callbacks{conn: conn, posted: NewMailbox[func(context.Context)](conn, name, 0), events: conn.SessionEvents()}
	c.task = conn.Go(ctx, name, c.run)
	return c
}

// run is the dispatcher's loop: one callback at a time.
func (c *Callbacks) run(ctx context.Context) error {
	defer c.events.Close()
	for {
		ws := make([]Waitable, 0, 2+len(c.watches))
		ws = append(ws, c.posted, c.events)
		for _, wc := range c.watches {
			ws = append(ws, wc.w)
		}
		i, ev, err := c.conn.Select(ctx, ws...)
		switch {
		case err != nil:
			return err
		case i == 0:
			if fn, ok := c.posted.TryTake(); ok {
				fn(ctx)
			}
		case i == 1:
			for _, fn := range c.listeners {
				fn(ctx, ev)
			}
		default:
			wc := c.watches[i-2]
			c.watches = append(c.watches[:i-2], c.watches[i-1:]...)
			wc.fn(ctx, ev)
		}
	}
}

// Post has fn run on the dispatcher, after the work posted before it.
func (c *Callbacks) Post(fn func(ctx context.Context)) { c.posted.Put(fn) }

// OnWatch has fn run on the dispatcher, with the watch's event, when w
// fires (at once, if it has fired already when the registration is taken
// up).
func (c *Callbacks) OnWatch(w Watch, fn func(ctx context.Context, ev zk.Event)) {
	c.Post(func(context.Context) { c.watches = append(c.watches, watchCallback{w, fn}) })
}

// OnSession has fn run on the dispatcher with every session event that
// comes after the registration is taken up, in order: Curator's
// ConnectionStateListener, kazoo's add_listener.
func (c *Callbacks) OnSession(fn func(ctx context.Context, ev zk.Event)) {
	c.Post(func(context.Context) { c.listeners = append(c.listeners, fn) })
}

// Task is the dispatcher's task: ready once the dispatcher has stopped.
func (c *Callbacks) Task() Task { return c.task }
