package sim

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// Poll implements client.Waitable: a fired watch's event; it stays fired.
func (w *simWatch) Poll() (zk.Event, bool) { return w.ev, w.fired }

// Poll implements client.Waitable: the subscription's next event, taken
// from it.
func (s *subscription) Poll() (zk.Event, bool) {
	if len(s.queue) == 0 {
		return zk.Event{}, false
	}
	ev := s.queue[0]
	s.queue = s.queue[1:]
	return ev, true
}

// simTimer is a client.Timer in virtual time. Firing wakes its process.
type simTimer struct {
	p     *process
	at    Time
	tm    *timer
	fired bool
}

// Poll implements client.Waitable.
func (tm *simTimer) Poll() (zk.Event, bool) { return zk.Event{}, tm.fired }

// Stop implements client.Timer.
func (tm *simTimer) Stop() bool { return tm.p.s.stopTimer(tm.tm) }

// NewTimer implements client.Clock: a timer in virtual time. While armed it
// counts as something that will happen, so a process waiting on it is not
// deadlocked.
func (c *Client) NewTimer(d time.Duration) client.Timer {
	tm := &simTimer{p: c.p, at: c.w.s.now + Time(d)}
	tm.tm = c.w.s.timerAfter(Time(max(d, 0)), func() {
		tm.fired = true
		tm.p.wake()
	})
	return tm
}

// Select implements client.Clock: it polls the waitables in order and
// parks the calling task until one of them is ready. Everything a
// waitable waits for wakes the process it belongs to (a watch's event, a
// session event, a timer, an event set, a task's return), so one park
// covers them all, and the lowest index wins when several are ready at
// once.
func (c *Client) Select(ctx context.Context, ws ...client.Waitable) (int, zk.Event, error) {
	t := c.p.current()
	for _, w := range ws {
		c.checkOwn(w)
	}
	for {
		for i, w := range ws {
			if ev, ok := w.Poll(); ok {
				return i, ev, nil
			}
		}
		t.waitSet = ws
		err := t.park(ctx, waitSelect, 0, "")
		t.waitSet = nil
		if err != nil {
			return -1, zk.Event{}, err
		}
	}
}

// checkOwn panics unless w belongs to this client's process: a waitable of
// another process (or world) would never wake this one.
func (c *Client) checkOwn(w client.Waitable) {
	var p *process
	switch w := w.(type) {
	case *simWatch:
		p = w.c.p
	case *subscription:
		p = w.c.p
	case *persistentWatch:
		p = w.c.p
	case *simTimer:
		p = w.p
	case *simEvent:
		p = w.p
	case *simTask:
		p = w.t.p
	case client.Waiter:
		c.checkOwn(w.WaitsOn())
		return
	default:
		panic(fmt.Sprintf("sim: %s: Select on a %T, which is not the simulator's watch, subscription, timer, task, event or mailbox", c.name, w))
	}
	if p != c.p {
		panic(fmt.Sprintf("sim: %s: Select on a waitable of process %s", c.name, p.t.name))
	}
}

// describeWaitSet says, for a deadlock report, what a Select waits for
// ("the first of: a watch (set by exists) on /x or a session event"), in
// words a list of tasks' waits, parted by semicolons, can hold.
func describeWaitSet(ws []client.Waitable) string {
	parts := make([]string, 0, len(ws))
	for _, w := range ws {
		switch w := w.(type) {
		case *simWatch:
			parts = append(parts, fmt.Sprintf("a watch (set by %s) on %s", w.op, w.path))
		case *subscription:
			parts = append(parts, "a session event")
		case *persistentWatch:
			parts = append(parts, "a persistent watch on "+w.path)
		case *simTimer:
			parts = append(parts, "a timer at "+strings.TrimSpace(w.at.String()))
		case client.Waiter:
			parts = append(parts, describeWaitObj(w.WaitsOn()))
		default:
			parts = append(parts, describeWaitObj(w))
		}
	}
	switch len(parts) {
	case 0:
		return "waiting on a Select of nothing"
	case 1:
		return "waiting for " + parts[0]
	}
	last := len(parts) - 1
	return "waiting for the first of: " + strings.Join(parts[:last], ", ") + " or " + parts[last]
}
