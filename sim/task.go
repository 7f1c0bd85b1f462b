package sim

import (
	"context"
	"fmt"
	"iter"
	"runtime/debug"
	"strings"
	"sync/atomic"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/internal/stall"
	"github.com/zksim/zksim/trace"
)

type taskState uint8

const (
	taskRunnable taskState = iota
	taskRunning
	taskParked
	taskDone
)

// waitKind says what a parked task waits for, for deadlock reports.
type waitKind uint8

const (
	waitNothing waitKind = iota
	waitReply
	waitWatch
	waitSleep
	waitSession
	waitConnect
	waitSelect
	waitMutex
	waitEvent
	waitTask
)

// Task is one coroutine of a simulated client process (its first, the
// workload's body, or one it started with Go), resumed by the scheduler
// until it parks at a blocking point. All parking goes through park, so
// the scheduler always knows what a task waits on.
type Task struct {
	s     *Scheduler
	id    int
	name  string
	p     *process    // nil for a task of no process (a benchmark's)
	actor trace.Actor // its process's client, in the trace
	ord   uint16      // which of its process's tasks (trace.Record.Task): 0 the first
	next  func() (struct{}, bool)
	stop  func()
	yield func(struct{}) bool
	state taskState

	waitKind waitKind
	waitOp   client.Op
	waitPath string
	waitTill Time
	waitSet  []client.Waitable // what a Select waits for
	waitObj  any               // the mutex, event or task it waits for

	ctxDone   <-chan struct{}
	cancelIdx int
	cancelled bool
	parkSeq   uint64
	killed    bool
	frozen    bool // its process is paused: it does not run even if woken
	thawWake  bool // woken while frozen

	result   error
	panicked any
	stack    string
	onExit   func()
	nap      *timer // the timer of its sleeps (see sleep)
	// gid is its goroutine's id, which the stall watchdog reads its stack
	// by (stall.Blocked), set by the task itself as it starts.
	gid atomic.Uint64
}

// errKilled unwinds a task's stack when the run ends while it is parked.
type killedSignal struct{}

// taskBody names the function every task's body runs in, which the stall
// report looks for among the goroutines' stacks (stall.Blocked) while a
// task has yet to record its goroutine's id.
const taskBody = "zksim/sim.(*Scheduler).spawn.func1"

// spawn starts a task running body. It becomes runnable at once.
func (s *Scheduler) spawn(name string, body func(t *Task) error) *Task {
	t := &Task{s: s, id: len(s.tasks), name: name, cancelIdx: -1}
	t.next, t.stop = iter.Pull(func(yield func(struct{}) bool) {
		t.yield = yield
		t.gid.Store(stall.GoroutineID())
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(killedSignal); ok {
					return
				}
				t.panicked = r
				t.stack = string(debug.Stack())
			}
		}()
		t.result = body(t)
	})
	s.tasks = append(s.tasks, t)
	s.live++
	s.makeRunnable(t)
	return t
}

// finish records a task's end and reports a failure to the scheduler. A
// process's first task ending ends the process, and its other tasks with
// it; another task's error is its own (Task.Wait returns it), but a panic
// anywhere fails the run.
func (s *Scheduler) finish(t *Task) {
	t.state = taskDone
	s.live--
	if t.p != nil {
		t.p.alive--
	}
	if t.panicked != nil && s.failure == nil {
		s.failure = &ClientError{Client: t.name, At: s.now, Err: fmt.Errorf("panic: %v", t.panicked), Stack: t.stack}
	}
	if t.p != nil && t != t.p.t {
		s.record(trace.Record{Kind: trace.KNote, From: t.actor, Task: t.ord, Path: taskEnd(t)})
	} else {
		switch {
		case t.panicked != nil:
			s.record(trace.Record{Kind: trace.KExit, From: t.actor, Code: 1, Path: fmt.Sprint("panic: ", t.panicked)})
		case t.result != nil:
			s.record(trace.Record{Kind: trace.KExit, From: t.actor, Code: 1, Path: t.result.Error()})
			if s.failure == nil {
				s.failure = &ClientError{Client: t.name, At: s.now, Err: t.result}
			}
		default:
			s.record(trace.Record{Kind: trace.KExit, From: t.actor})
		}
		if t.p != nil {
			t.p.endTasks()
		}
	}
	if t.onExit != nil {
		t.onExit()
	}
}

// taskEnd says, for the trace, how a task other than a process's first
// ended.
func taskEnd(t *Task) string {
	switch {
	case t.panicked != nil:
		return fmt.Sprintf("task %s panicked: %v", t.name, t.panicked)
	case t.result != nil:
		return fmt.Sprintf("task %s returned: %v", t.name, t.result)
	}
	return fmt.Sprintf("task %s returned", t.name)
}

// kill ends t where it waits, as its process ends: its stack unwinds (a
// call it makes on the way fails at once), and it does not run again.
func (s *Scheduler) kill(t *Task) {
	if t.state == taskDone {
		return
	}
	t.killed = true
	prev := s.cur
	s.cur = t // a session call its unwinding makes sees it is killed
	t.stop()
	s.cur = prev
	t.state = taskDone
	s.live--
	if t.p != nil {
		t.p.alive--
	}
	s.record(trace.Record{Kind: trace.KNote, From: t.actor, Task: t.ord, Path: fmt.Sprintf("task %s ended with its process", t.name)})
}

// shutdown unwinds every task still parked when the run ends.
func (s *Scheduler) shutdown() {
	for _, t := range s.tasks {
		if t.state != taskDone {
			t.killed = true
			s.cur = t // a session call its unwinding makes sees it is killed
			t.stop()
			s.cur = nil
			t.state = taskDone
		}
	}
}

// checkCurrent panics unless t is the task running now: a session used from
// outside its own client's coroutine (another goroutine, another client) would
// break the one-at-a-time rule silently.
func (t *Task) checkCurrent() {
	if t.killed {
		panic(killedSignal{})
	}
	if t.s.cur != t {
		panic(fmt.Sprintf("sim: client %s's session used outside its own process "+
			"(from another goroutine or another client)", t.name))
	}
}

// park blocks t until wake is called or ctx ends. Wake-ups may be spurious:
// every caller re-checks what it waits for in a loop. It returns ctx's error
// when the context ended first.
func (t *Task) park(ctx context.Context, kind waitKind, op client.Op, path string) error {
	t.checkCurrent()
	s := t.s
	var done <-chan struct{}
	if ctx != nil {
		done = ctx.Done()
	}
	if done != nil {
		select {
		case <-done:
			return ctx.Err()
		default:
		}
		t.ctxDone = done
		s.listCancelable(t)
	}
	t.waitKind, t.waitOp, t.waitPath = kind, op, path
	t.state = taskParked
	s.parkSeq++
	t.parkSeq = s.parkSeq
	if !t.yield(struct{}{}) {
		t.killed = true
		panic(killedSignal{})
	}
	if t.killed {
		panic(killedSignal{})
	}
	t.waitKind, t.waitObj = waitNothing, nil
	if done != nil {
		s.unlistCancelable(t)
		t.ctxDone = nil
	}
	if t.cancelled {
		t.cancelled = false
		return ctx.Err()
	}
	return nil
}

// wake makes a parked task runnable. Waking a task that is not parked does
// nothing; waking a frozen one takes effect when it thaws.
func (t *Task) wake() {
	if t.frozen {
		t.thawWake = true
		return
	}
	if t.state == taskParked {
		t.state = taskRunnable
		t.s.makeRunnable(t)
	}
}

// freeze stops t from running until thaw: a paused process.
func (t *Task) freeze() {
	t.frozen = true
	if t.state == taskRunnable {
		// Already queued: it will be skipped and woken again on thaw.
		t.thawWake = true
	}
}

// thaw lets a frozen task run again, waking it if it was woken meanwhile.
func (t *Task) thaw() {
	t.frozen = false
	if t.thawWake {
		t.thawWake = false
		if t.state == taskRunnable {
			t.s.makeRunnable(t)
		} else {
			t.wake()
		}
	}
}

// sleep parks t for d of virtual time. Its timer is the task's nap, used
// again by the next sleep once it has fired (it has then left the event
// queue); one stopped early may still be queued, and is left to it.
func (t *Task) sleep(ctx context.Context, d Time) error {
	t.waitTill = t.s.now + d
	if t.nap == nil {
		t.nap = &timer{s: t.s, wakes: t}
	}
	tm := t.s.arm(t.nap, d)
	for !tm.dead { // only its firing or the stop below ends it
		if err := t.park(ctx, waitSleep, 0, ""); err != nil {
			t.s.stopTimer(tm)
			t.nap = nil
			return err
		}
	}
	return nil
}

// waitingOn says, for a deadlock report, what t waits for.
func (t *Task) waitingOn() string {
	switch t.state {
	case taskRunnable, taskRunning:
		return "runnable"
	case taskDone:
		return "finished"
	}
	var b strings.Builder
	switch t.waitKind {
	case waitReply:
		fmt.Fprintf(&b, "waiting for the reply to %s %s", t.waitOp, t.waitPath)
	case waitWatch:
		fmt.Fprintf(&b, "waiting on a watch (set by %s) on %s", t.waitOp, t.waitPath)
	case waitSleep:
		fmt.Fprintf(&b, "sleeping until %s", strings.TrimSpace(t.waitTill.String()))
	case waitSession:
		b.WriteString("waiting for a session event")
	case waitConnect:
		b.WriteString("waiting for its session to connect")
	case waitSelect:
		b.WriteString(describeWaitSet(t.waitSet))
	case waitMutex, waitEvent, waitTask:
		b.WriteString("waiting for " + describeWaitObj(t.waitObj))
	default:
		b.WriteString("parked")
	}
	return b.String()
}
