package client

import (
	"context"
	"sync"

	"github.com/go-zookeeper/zk"
)

// Process is the client process a session belongs to, as one of its tasks
// sees it: how a recipe starts more tasks (a listener, a callback
// dispatcher, a background refresher, as real libraries run them beside
// their caller's thread), and the mutexes and events those tasks
// coordinate by.
//
// Every task of a process shares its sessions, their watches, its memory
// and its pauses: a paused process runs none of its tasks. A process ends
// when its first task (the workload's body) returns, and its other tasks
// end with it: in the simulator at once, wherever they wait (as a real
// process's threads end when it exits); live, their contexts are cancelled
// and the process waits for them to return. A recipe that wants its tasks
// to finish their work cancels and waits for them itself.
//
// Tasks take turns: in both worlds a task's code runs only while its
// process's other tasks wait (on a call, a watch, a timer, a mutex, an
// event), so plain Go variables they share need no locking of their own.
// Where tasks switch is the race a recipe must survive: the simulator
// switches, chosen by the run's seed, at every call into the session,
// every wait, every Go, Unlock and Set, so a search explores the orders
// in which a listener and its caller can interleave, and replays and
// shrinks them like every other choice. In the simulator a task must
// never wait on a Go channel, a sync primitive or time.Sleep: those wait
// outside the scheduler (the run stalls and says where); use these.
type Process interface {
	// Go starts fn as a new task of the caller's process, named name
	// ("listener": reports call it "c1/listener"), and returns at once.
	// fn gets ctx. The task's error, or nil, is what its Wait returns; a
	// task's error does not end the run (a panic does, as in any task).
	Go(ctx context.Context, name string, fn func(ctx context.Context) error) Task
	// NewMutex returns an unlocked mutex for the process's tasks, named
	// for reports (a deadlock names the mutex a task waits for and who
	// holds it).
	NewMutex(name string) Mutex
	// NewEvent returns a cleared event for the process's tasks, named for
	// reports.
	NewEvent(name string) Event
}

// Task is a task started by Process.Go. As a Waitable it is ready once
// the task has returned.
type Task interface {
	Waitable
	// Wait blocks until the task has returned and returns its error, or
	// returns the context's error first.
	Wait(ctx context.Context) error
}

// Mutex is a mutual-exclusion lock among the tasks of one process, as
// sync.Mutex is among goroutines (Java's synchronized, in a library's
// port). Holding it across a call into the session is allowed: that is
// how a listener comes to wait behind a caller that waits on the server.
type Mutex interface {
	// Lock blocks until the caller holds the mutex, or returns the
	// context's error first (then it does not hold it).
	Lock(ctx context.Context) error
	// Unlock releases the mutex; any task may release it. Unlocking a
	// mutex that is not locked panics.
	Unlock()
}

// Event is a level-triggered flag among the tasks of one process: kazoo's
// wake_event, a Java monitor's notifyAll. Set raises it and wakes every
// task waiting on it; it stays raised until Clear. As a Waitable it is
// ready while raised (Poll does not clear it), so a task can wait for "my
// event, or my watch, or my session changed" in one Select.
type Event interface {
	Waitable
	// Set raises the event.
	Set()
	// Clear lowers it.
	Clear()
	// IsSet reports whether it is raised.
	IsSet() bool
	// Wait blocks until the event is raised, or returns the context's
	// error first.
	Wait(ctx context.Context) error
}

// Waiter is a Waitable built on another, which Select waits on in its
// stead: a Mailbox is ready when its Event is raised.
type Waiter interface {
	Waitable
	WaitsOn() Waitable
}

// Mailbox is an ordered queue of values between the tasks of one process:
// what a callback dispatcher reads from and a listener posts to. Put never
// blocks. With a capacity, a Put to a full mailbox drops the oldest value
// first, as Curator's connection-state queue does (go-zookeeper/zk drops
// the newest event instead; write that with Len). As a Waitable it is
// ready while it holds a value; Select does not take it (Take does).
type Mailbox[T any] struct {
	mu      sync.Mutex // for a bare live session's tasks, which are goroutines
	ready   Event
	items   []T
	limit   int
	dropped int
}

// NewMailbox returns an empty mailbox of p's tasks, named for reports,
// holding at most capacity values (0: no limit). Its event, raised while
// it holds a value, is named "mailbox NAME".
func NewMailbox[T any](p Process, name string, capacity int) *Mailbox[T] {
	return &Mailbox[T]{ready: p.NewEvent(MailboxPrefix + name), limit: capacity}
}

// MailboxPrefix begins the name of a mailbox's event, so that a report
// says a task waits for a value in the mailbox.
const MailboxPrefix = "mailbox "

// Put appends v, dropping the oldest value first if the mailbox is full.
//
// Setting its event is a point at which a task that waits for a value may
// run first; the mailbox's lock is not held then.
func (m *Mailbox[T]) Put(v T) {
	m.mu.Lock()
	if m.limit > 0 && len(m.items) == m.limit {
		var zero T
		m.items[0] = zero
		m.items = m.items[1:]
		m.dropped++
	}
	m.items = append(m.items, v)
	m.mu.Unlock()
	m.ready.Set()
}

// TryTake takes the oldest value without blocking; ok is false when the
// mailbox is empty.
func (m *Mailbox[T]) TryTake() (v T, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.items) == 0 {
		m.ready.Clear() // raised by a Put whose value was taken meanwhile
		return v, false
	}
	v = m.items[0]
	var zero T
	m.items[0] = zero
	m.items = m.items[1:]
	if len(m.items) == 0 {
		m.ready.Clear()
	}
	return v, true
}

// Take takes the oldest value, blocking while the mailbox is empty, or
// returns the context's error first.
func (m *Mailbox[T]) Take(ctx context.Context) (T, error) {
	for {
		if v, ok := m.TryTake(); ok {
			return v, nil
		}
		if err := m.ready.Wait(ctx); err != nil {
			var zero T
			return zero, err
		}
	}
}

// Len is how many values the mailbox holds.
func (m *Mailbox[T]) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.items)
}

// Dropped is how many values Put dropped from a full mailbox.
func (m *Mailbox[T]) Dropped() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.dropped
}

// Poll implements Waitable: ready, with the zero event, while the mailbox
// holds a value (which stays in it): while its event is raised.
func (m *Mailbox[T]) Poll() (zk.Event, bool) { return m.ready.Poll() }

// WaitsOn implements Waiter.
func (m *Mailbox[T]) WaitsOn() Waitable { return m.ready }
