package live

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Process is one client process of a World: its code, its sessions (the
// first dialled by the world, more opened by NewSession), the faults its
// dialer injects, and its pauses, which every session of it shares.
type Process struct {
	w       *World
	name    string
	servers []int
	body    Body
	faults  *ClientFaults
	first   *procConn // the session the world dialled

	pausedUntil atomic.Int64 // unix ns: the process runs no code before
	// inCall counts the process's calls waiting on the ensemble or the
	// clock; cutPending says a pause struck while it ran code, and its
	// connections go quiet at its next call.
	inCall     atomic.Int32
	cutPending atomic.Bool

	mu       sync.Mutex
	sessions []*Conn

	// tasks are those its code started with Go; failed, the first of them
	// that panicked. Both are the world's lock's.
	tasks  []procTask
	failed error
}

// procTask is a task a process started, and how to end it.
type procTask struct {
	name   string
	t      *task
	cancel context.CancelFunc
}

// taskWait is how long a process whose first task returned waits for its
// other tasks, their contexts cancelled, to return.
const taskWait = 10 * time.Second

// Name is the process's name (c1, c2, ...).
func (p *Process) Name() string { return p.name }

// Faults is the fault injector of the process's dialer.
func (p *Process) Faults() *ClientFaults { return p.faults }

// SessionIDs are the ids of the sessions the process opened, in order (0
// for one that never got an id).
func (p *Process) SessionIDs() []int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	ids := make([]int64, len(p.sessions))
	for i, s := range p.sessions {
		ids[i] = s.SessionID()
	}
	return ids
}

func (p *Process) add(conn *Conn) {
	p.mu.Lock()
	p.sessions = append(p.sessions, conn)
	p.mu.Unlock()
}

// addTask keeps a task the process's code started, to end it with the
// process.
func (p *Process) addTask(name string, t *task, cancel context.CancelFunc) {
	p.tasks = append(p.tasks, procTask{name, t, cancel})
}

// taskFailed keeps the first panic of one of the process's tasks.
func (p *Process) taskFailed(err error) {
	if p.failed == nil {
		p.failed = err
	}
}

// endTasks ends the tasks the process started, as its first task has
// returned: their contexts are cancelled, and it waits for them to return,
// letting them run, for taskWait at most. It returns the first task's
// panic, or a task that would not end.
func (p *Process) endTasks() error {
	for _, t := range p.tasks {
		t.cancel()
	}
	var stuck []string
	p.call(func() {
		timeout := time.After(taskWait)
		expired := false
		for _, t := range p.tasks {
			if expired {
				select {
				case <-t.t.done:
				default:
					stuck = append(stuck, t.name)
				}
				continue
			}
			select {
			case <-t.t.done:
			case <-timeout:
				expired = true
				stuck = append(stuck, t.name)
			}
		}
	})
	if p.failed != nil {
		return p.failed
	}
	if len(stuck) > 0 {
		return fmt.Errorf("task %s did not return within %s of its context's end, after its process's first task returned",
			stuck[0], taskWait)
	}
	return nil
}

// Pause stops the process for d: its connections carry nothing (no
// heartbeats) and its code does not run until d has passed.
//
// A process waiting in a call stops at once. One running code (a fault
// tied to its own holding strikes as its acquisition returns) stops at
// its next call, as in the simulator, where the code between two calls
// takes no time: until then its connection carries on, so that what it
// checks in between (its lease) reads as it would have at that instant.
func (p *Process) Pause(d time.Duration) {
	p.pausedUntil.Store(time.Now().Add(d).UnixNano())
	if p.inCall.Load() > 0 {
		p.faults.BlackHole(d)
		return
	}
	p.cutPending.Store(true)
}

// waitPause sleeps out the process's pause, if any, or until the run
// ends (a paused process ends with it, as a stopped one is killed).
func (p *Process) waitPause() {
	if d := time.Until(time.Unix(0, p.pausedUntil.Load())); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-p.w.ended:
		}
	}
}

// expireAll has the ensemble expire every session of the process now
// (Conn.Expire), as the simulator's leader does on "expire cN"; one
// already closed is gone already.
func (p *Process) expireAll(log io.Writer) {
	p.mu.Lock()
	sessions := slices.Clone(p.sessions)
	p.mu.Unlock()
	for _, conn := range sessions {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := conn.Expire(ctx); err != nil {
				fmt.Fprintf(log, "live: expire: %v\n", err)
			}
		}()
	}
}

// counters sums the traffic of every session of the process.
func (p *Process) counters() Counters {
	p.mu.Lock()
	defer p.mu.Unlock()
	var k Counters
	for _, conn := range p.sessions {
		n := conn.Counters()
		k.Requests += n.Requests
		k.Notifications += n.Notifications
	}
	return k
}

// call lets the world's other processes run while fn waits on the
// ensemble or the clock. A paused process neither starts a call nor
// returns from one before its pause is over: a call or a sleep that ends
// during the pause returns after it, as in a process stopped by a long
// garbage collection.
func (p *Process) call(fn func()) {
	p.w.gil.Unlock()
	defer p.w.gil.Lock()
	p.inCall.Add(1)
	defer p.inCall.Add(-1)
	if p.cutPending.Swap(false) {
		if d := time.Until(time.Unix(0, p.pausedUntil.Load())); d > 0 {
			p.faults.BlackHole(d)
		}
	}
	p.waitPause()
	fn()
	p.waitPause()
}
