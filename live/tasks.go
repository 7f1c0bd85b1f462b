package live

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// The tasks of a live process beyond its first, and what they coordinate
// by (client.Process): goroutines, and mutexes and events made of Go's
// own primitives. A World's process runs one task's code at a time, as it
// runs one process's code at a time: a task holds the world's lock while
// it runs and lets go of it while it waits (gate), so that tasks switch at
// the same points as in the simulator and their shared variables need no
// locks of their own. A bare Conn's tasks are plain goroutines.

// gate runs fn, a wait, letting the process's other tasks run meanwhile:
// Process.call for a World's process, nil (fn is run as is) for a bare Conn.
type gate func(fn func())

func (g gate) wait(fn func()) {
	if g == nil {
		fn()
		return
	}
	g(fn)
}

// waitChan waits, through g, for ch to close or ctx to end, and returns
// ctx's error if it ended first.
func (g gate) waitChan(ctx context.Context, ch <-chan struct{}) error {
	var err error
	g.wait(func() {
		select {
		case <-ch:
		case <-ctx.Done():
			err = ctx.Err()
		}
	})
	return err
}

// task is a client.Task: a goroutine started by Go.
type task struct {
	g        gate
	done     chan struct{} // closed when it has returned
	finished atomic.Bool
	err      error
}

// start runs fn on a new goroutine, around which run wraps it (taking the
// world's lock for a World's process).
func startTask(g gate, ctx context.Context, fn func(ctx context.Context) error, run func(func())) *task {
	t := &task{g: g, done: make(chan struct{})}
	go func() {
		defer close(t.done)
		run(func() { t.err = fn(ctx) })
		t.finished.Store(true)
	}()
	return t
}

// Poll implements client.Waitable: ready once the task has returned.
func (t *task) Poll() (zk.Event, bool) { return zk.Event{}, t.finished.Load() }

// Wait implements client.Task.
func (t *task) Wait(ctx context.Context) error {
	if err := t.g.waitChan(ctx, t.done); err != nil {
		return err
	}
	return t.err
}

// mutex is a client.Mutex: held or not, and a channel closed when it is
// released, which its waiters wait on.
type mutex struct {
	g    gate
	name string
	mu   sync.Mutex
	held bool
	free chan struct{}
}

func newMutex(g gate, name string) *mutex {
	return &mutex{g: g, name: name, free: make(chan struct{})}
}

// Lock implements client.Mutex.
func (m *mutex) Lock(ctx context.Context) error {
	for {
		m.mu.Lock()
		if !m.held {
			m.held = true
			m.mu.Unlock()
			return nil
		}
		free := m.free
		m.mu.Unlock()
		if err := m.g.waitChan(ctx, free); err != nil {
			return err
		}
	}
}

// Unlock implements client.Mutex.
func (m *mutex) Unlock() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.held {
		panic(fmt.Sprintf("live: unlock of unlocked mutex %q", m.name))
	}
	m.held = false
	close(m.free)
	m.free = make(chan struct{})
}

// event is a client.Event: set or not, and a channel closed while it is
// set, which its waiters (and Select) wait on.
type event struct {
	g   gate
	mu  sync.Mutex
	set bool
	ch  chan struct{}
}

func newEvent(g gate) *event { return &event{g: g, ch: make(chan struct{})} }

// Set implements client.Event.
func (e *event) Set() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.set {
		e.set = true
		close(e.ch)
	}
}

// Clear implements client.Event.
func (e *event) Clear() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.set {
		e.set = false
		e.ch = make(chan struct{})
	}
}

// IsSet implements client.Event.
func (e *event) IsSet() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.set
}

// Poll implements client.Waitable: ready while set.
func (e *event) Poll() (zk.Event, bool) { return zk.Event{}, e.IsSet() }

// signal is the channel that closes when the event is set (closed
// already if it is).
func (e *event) signal() chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.ch
}

// Wait implements client.Event.
func (e *event) Wait(ctx context.Context) error {
	for !e.IsSet() {
		if err := e.g.waitChan(ctx, e.signal()); err != nil {
			return err
		}
	}
	return nil
}

// Go implements client.Process: a bare Conn's task is a plain goroutine.
// A panic in it is re-raised on it, as any goroutine's.
func (c *Conn) Go(ctx context.Context, name string, fn func(ctx context.Context) error) client.Task {
	return startTask(nil, ctx, fn, func(f func()) { f() })
}

// NewMutex implements client.Process.
func (c *Conn) NewMutex(name string) client.Mutex { return newMutex(nil, name) }

// NewEvent implements client.Process.
func (c *Conn) NewEvent(name string) client.Event { return newEvent(nil) }

// Go implements client.Process for a World's process: the task runs
// holding the world's lock, as the process's first does, and ends with
// the process (its context is cancelled once the first task returns, and
// the process waits for it). A panic in it is kept as the process's
// failure.
func (c *procConn) Go(ctx context.Context, name string, fn func(ctx context.Context) error) client.Task {
	p := c.p
	tctx, cancel := context.WithCancel(ctx)
	full := p.name + "/" + name
	run := func(f func()) {
		p.w.gil.Lock()
		defer p.w.gil.Unlock()
		defer func() {
			if r := recover(); r != nil {
				p.taskFailed(fmt.Errorf("task %s panicked: %v\n%s", full, r, debug.Stack()))
			}
		}()
		f()
	}
	t := startTask(p.call, tctx, fn, run)
	p.addTask(full, t, cancel)
	return t
}

// NewMutex implements client.Process.
func (c *procConn) NewMutex(name string) client.Mutex { return newMutex(c.p.call, name) }

// NewEvent implements client.Process.
func (c *procConn) NewEvent(name string) client.Event { return newEvent(c.p.call) }
