package sim

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/trace"
)

// The tasks of a process beyond its first, and what they coordinate by
// (client.Process): each a coroutine of the scheduler like the first,
// sharing its process's sessions, pauses and end; its mutexes and events
// park and wake tasks as a session's calls do, so that every wait is the
// scheduler's and every switch between tasks is a choice of the run's.

// simTask is a client.Task: a task started by Go.
type simTask struct{ t *Task }

// Go implements client.Process: fn runs as a new task of the caller's
// process, named "<process>/<name>". The caller may give way to it at once
// (a choice of the run's), as a thread just started may run first.
func (c *Client) Go(ctx context.Context, name string, fn func(ctx context.Context) error) client.Task {
	caller := c.p.current()
	p := c.p
	t := c.w.s.spawn(p.t.name+"/"+name, func(*Task) error { return fn(ctx) })
	t.p, t.actor = p, c.actor
	t.ord = c.w.trace.AddTask(c.actor, t.name)
	t.onExit = p.wake // its waiters (Task.Wait, a Select on it)
	p.tasks = append(p.tasks, t)
	p.alive++
	c.w.s.record(trace.Record{Kind: trace.KNote, From: c.actor, Task: caller.ord, Path: "starts task " + t.name})
	caller.preempt()
	return &simTask{t}
}

// Poll implements client.Waitable: ready once the task has returned.
func (h *simTask) Poll() (zk.Event, bool) { return zk.Event{}, h.t.state == taskDone }

// Wait implements client.Task.
func (h *simTask) Wait(ctx context.Context) error {
	cur := h.t.p.current()
	for h.t.state != taskDone {
		cur.waitObj = h
		if err := cur.park(ctx, waitTask, 0, ""); err != nil {
			return err
		}
	}
	return h.t.result
}

// simMutex is a client.Mutex among a process's tasks.
type simMutex struct {
	p      *process
	name   string
	site   string // where an unnamed one was made (madeAt), for reports
	holder *Task  // nil when unlocked
}

// NewMutex implements client.Process.
func (c *Client) NewMutex(name string) client.Mutex {
	return &simMutex{p: c.p, name: name, site: madeAt(name)}
}

// Lock implements client.Mutex. Another task of the process may run
// first (a choice of the run's); a locked mutex parks the caller until it
// is unlocked, and the tasks it wakes then race for it.
func (m *simMutex) Lock(ctx context.Context) error {
	t := m.p.current()
	t.preempt()
	for m.holder != nil {
		t.waitObj = m
		if err := t.park(ctx, waitMutex, 0, ""); err != nil {
			return err
		}
	}
	m.holder = t
	return nil
}

// Unlock implements client.Mutex; a task it wakes may run at once.
func (m *simMutex) Unlock() {
	t := m.p.current()
	if m.holder == nil {
		panic(fmt.Sprintf("sim: %s: unlock of unlocked mutex %q", t.name, m.name))
	}
	m.holder = nil
	m.p.wakeFor(m)
	t.preempt()
}

// simEvent is a client.Event among a process's tasks.
type simEvent struct {
	p    *process
	name string
	site string // where an unnamed one was made (madeAt), for reports
	set  bool
}

// NewEvent implements client.Process.
func (c *Client) NewEvent(name string) client.Event {
	return &simEvent{p: c.p, name: name, site: madeAt(strings.TrimPrefix(name, client.MailboxPrefix))}
}

// Set implements client.Event; a task it wakes may run at once.
func (e *simEvent) Set() {
	t := e.p.current()
	e.set = true
	e.p.wake() // its waiters: Wait, and a Select on it
	t.preempt()
}

// Clear implements client.Event.
func (e *simEvent) Clear() { e.set = false }

// IsSet implements client.Event.
func (e *simEvent) IsSet() bool { return e.set }

// Poll implements client.Waitable: ready while set.
func (e *simEvent) Poll() (zk.Event, bool) { return zk.Event{}, e.set }

// Wait implements client.Event.
func (e *simEvent) Wait(ctx context.Context) error {
	t := e.p.current()
	for !e.set {
		t.waitObj = e
		if err := t.park(ctx, waitEvent, 0, ""); err != nil {
			return err
		}
	}
	return nil
}

// describeWaitObj says, for a deadlock report, what a task waits for: a
// mutex and who holds it, an event, a mailbox, another task ("mutex
// "recipe", held by c1"), each by the name it was made with, or where it
// was made if it has none.
func describeWaitObj(o any) string {
	switch o := o.(type) {
	case *simMutex:
		s := named("mutex", o.name, o.site)
		if o.holder != nil {
			s += ", held by " + o.holder.name
		}
		return s
	case *simEvent:
		if box, ok := strings.CutPrefix(o.name, client.MailboxPrefix); ok {
			return "a value in " + named("mailbox", box, o.site)
		}
		return named("event", o.name, o.site) + " to be set"
	case *simTask:
		return fmt.Sprintf("task %s to return", o.t.name)
	}
	return "something of another world"
}

// named is how a report names a mutex, event or mailbox (what): by its
// name ("event "wake""), or, made without one, by where it was made ("an
// unnamed event (made at lock.go:42)").
func named(what, name, site string) string {
	if name != "" || site == "" {
		return fmt.Sprintf("%s %q", what, name)
	}
	return fmt.Sprintf("an unnamed %s (made at %s)", what, site)
}

// madeAt is where the recipe's code made a mutex, event or mailbox named
// name ("lock.go:42": the innermost caller outside the simulator and the
// client package, which makes a mailbox's event, or a test of theirs), or
// "" when it has a name, which reports use instead.
func madeAt(name string) string {
	if name != "" {
		return ""
	}
	pcs := make([]uintptr, 16)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for {
		f, more := frames.Next()
		ours := strings.HasPrefix(f.Function, "github.com/zksim/zksim/sim.") ||
			strings.HasPrefix(f.Function, "github.com/zksim/zksim/client.")
		if !ours || strings.HasSuffix(f.File, "_test.go") {
			return fmt.Sprintf("%s:%d", filepath.Base(f.File), f.Line)
		}
		if !more {
			return ""
		}
	}
}
