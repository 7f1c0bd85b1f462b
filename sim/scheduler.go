package sim

import (
	"cmp"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/trace"
)

// Scheduler is the heart of a run: a virtual clock, the event queue, the
// runnable clients, the source of choices and the trace. Its loop fires every
// event that is due, else steps one runnable client, else advances the clock
// to the next event. Nothing here runs concurrently: clients are coroutines and
// exactly one of them, or the loop itself, runs at any moment.
type Scheduler struct {
	now     Time
	q       eventQueue
	runq    []*Task
	runHead int
	tasks   []*Task
	cur     *Task
	live    int
	fg      int // pending foreground events

	src   Source
	trace *trace.Trace

	cancelable []*Task // parked tasks whose context can end

	parkSeq     uint64
	steps       uint64
	events      uint64 // events fired
	clientSteps uint64 // times a client was resumed
	lastExit    Time   // when the last client returned; -1 before
	maxSteps    uint64
	maxTime     Time

	progress atomic.Uint64        // steps, published for the stall watchdog
	running  atomic.Pointer[Task] // the task running now, nil when none
	stalled  atomic.Bool          // set by the watchdog; the loop is abandoned
	stop     func() bool          // World.StopWhen's

	failure error // first failure of a client (error, panic)

	// quiet reports whether, with no foreground event pending, the world
	// can still change by itself; nil means it cannot.
	quiet func() bool

	// stepped is set for a world its caller steps (stepped.go): the loop
	// returns errReached once nothing is due by until, rather than end
	// the run when no client is left or report a deadlock.
	stepped bool
	until   Time
}

// Progress implements stall.Probe.
func (s *Scheduler) Progress() uint64 { return s.progress.Load() }

// Busy implements stall.Probe.
func (s *Scheduler) Busy() bool { return s.running.Load() != nil }

func newScheduler(src Source, tr *trace.Trace, maxSteps uint64, maxTime Time) *Scheduler {
	return &Scheduler{src: src, trace: tr, maxSteps: maxSteps, maxTime: maxTime, lastExit: -1}
}

// Now is the current virtual time.
func (s *Scheduler) Now() Time { return s.now }

// choose draws a value in [0, n) from the run's source and hashes it into the
// trace, so that every decision is covered by the trace hash.
func (s *Scheduler) choose(n int) int {
	if n <= 1 {
		return 0
	}
	v := s.src.Choose(n)
	if v < 0 || v >= n {
		panic(fmt.Sprintf("sim: source answered %d to a choice in [0,%d)", v, n))
	}
	s.trace.Choice(n, v)
	return v
}

// schedule makes h fire at virtual time t (not earlier than now). A
// background event is housekeeping that by itself cannot make a blocked
// client runnable (a heartbeat): pending background events do not keep a
// deadlock from being reported.
func (s *Scheduler) schedule(t Time, h handler, bg bool) {
	if t < s.now {
		t = s.now
	}
	if !bg {
		s.fg++
	}
	s.q.push(t, h, bg)
}

// at schedules fn at virtual time t.
func (s *Scheduler) at(t Time, fn func()) { s.schedule(t, funcHandler(fn), false) }

// after schedules fn d after now.
func (s *Scheduler) after(d Time, fn func()) { s.at(s.now+d, fn) }

// background schedules housekeeping fn at t.
func (s *Scheduler) background(t Time, fn func()) { s.schedule(t, funcHandler(fn), true) }

func (s *Scheduler) record(r trace.Record) {
	r.At = s.now
	s.trace.Add(r)
}

// recordFault records that f strikes now, printed as text.
func (s *Scheduler) recordFault(f fault.Fault, text string) {
	s.trace.AddFault(s.now, f, text)
}

// makeRunnable puts t at the end of the run queue.
func (s *Scheduler) makeRunnable(t *Task) {
	s.runq = append(s.runq, t)
}

func (s *Scheduler) popRunnable() *Task {
	t := s.runq[s.runHead]
	s.runq[s.runHead] = nil
	s.runHead++
	if s.runHead == len(s.runq) {
		s.runq = s.runq[:0]
		s.runHead = 0
	}
	return t
}

// nextRunnable takes the task to step next: the first in the run queue,
// or, when other tasks of its process are runnable too, the one of them
// the run's source chooses (0: the first, so that a run whose choices are
// all zero is the plain first-come order). Which of a process's tasks
// runs first is the race between a listener and its caller.
func (s *Scheduler) nextRunnable() *Task {
	t := s.popRunnable()
	if t.state != taskRunnable || t.frozen {
		return t
	}
	chosen := s.chooseSibling(t)
	if chosen == nil {
		return t
	}
	s.pushFront(t) // next after the chosen one, as it was next before
	return chosen
}

// chooseSibling is the choice between t and the other runnable tasks of
// its process: nil when t goes on (no other is runnable, or the run's
// source chose 0), else the one chosen, taken out of the run queue.
func (s *Scheduler) chooseSibling(t *Task) *Task {
	if t.p == nil || t.p.alive < 2 {
		return nil
	}
	others := s.runnableSiblings(t)
	if len(others) == 0 {
		return nil
	}
	v := s.choose(1 + len(others))
	if v == 0 {
		return nil
	}
	chosen := others[v-1]
	s.unqueue(chosen)
	return chosen
}

// runnableSiblings are the other tasks of t's process waiting in the run
// queue to run, each once, in queue order.
func (s *Scheduler) runnableSiblings(t *Task) []*Task {
	var out []*Task
	for _, u := range s.runq[s.runHead:] {
		if u != nil && u != t && u.p == t.p && u.state == taskRunnable && !u.frozen && !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	return out
}

// unqueue removes t's first entry from the run queue.
func (s *Scheduler) unqueue(t *Task) {
	for i := s.runHead; i < len(s.runq); i++ {
		if s.runq[i] == t {
			s.runq = slices.Delete(s.runq, i, i+1)
			return
		}
	}
}

// pushFront puts t at the head of the run queue.
func (s *Scheduler) pushFront(t *Task) {
	if s.runHead > 0 {
		s.runHead--
		s.runq[s.runHead] = t
		return
	}
	s.runq = slices.Insert(s.runq, 0, t)
}

// preempt is a point at which t, running, may give way to another
// runnable task of its process, chosen by the run's source (0: t goes on).
// t then waits at the head of the run queue, right behind the one chosen.
func (t *Task) preempt() {
	s := t.s
	chosen := s.chooseSibling(t)
	if chosen == nil {
		return
	}
	t.state = taskRunnable
	s.pushFront(t)
	s.pushFront(chosen)
	if !t.yield(struct{}{}) || t.killed {
		t.killed = true
		panic(killedSignal{})
	}
}

// loop runs until every client has returned, or a failure, deadlock or
// budget ends the run.
func (s *Scheduler) loop() error {
	for {
		if s.failure != nil {
			return s.failure
		}
		if s.stalled.Load() {
			return nil // abandoned; the caller reports the stall
		}
		if s.live == 0 && !s.stepped && s.drained() {
			return nil
		}
		s.steps++
		if s.steps&1023 == 0 {
			s.progress.Store(s.steps)
			if s.stop != nil && s.stop() {
				return ErrStopped
			}
		}
		if s.maxSteps > 0 && s.steps > s.maxSteps {
			return &BudgetError{What: "steps", Limit: fmt.Sprint(s.maxSteps), At: s.now}
		}
		if s.q.due(s.now) {
			_, h, bg := s.q.pop()
			if !bg {
				s.fg--
			}
			s.events++
			h.handle()
			continue
		}
		if s.runHead < len(s.runq) {
			s.step(s.nextRunnable())
			continue
		}
		// The current instant is over: contexts ended by code that ran in it
		// now wake the clients parked on them.
		if s.wakeCancelled() {
			continue
		}
		if s.stepped {
			// A stepped world has no deadlock: an idle ensemble waits for
			// its outside clients.
			if s.q.len() == 0 || s.q.nextAt() > s.until {
				s.now = max(s.now, s.until)
				return errReached
			}
		} else if s.q.len() == 0 || (s.fg == 0 && (s.quiet == nil || s.quiet())) {
			return s.deadlock()
		}
		next := s.q.nextAt()
		if s.maxTime > 0 && next > s.maxTime {
			return &BudgetError{What: "virtual time", Limit: s.maxTime.Std().String(), At: s.now}
		}
		// The clock moves to the next event, which fires at once (the
		// loop's checks above hold: nothing ran since).
		s.now = next
		_, h, bg := s.q.pop()
		if !bg {
			s.fg--
		}
		s.events++
		h.handle()
	}
}

// guardedLoop runs the loop and turns a panic in an event (not in a client:
// those are ClientErrors) into an error, so that a broken fault or hook
// fails the run instead of the whole program.
func (s *Scheduler) guardedLoop() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("sim: panic in an event at %s: %v\n%s", strings.TrimSpace(s.now.String()), r, debug.Stack())
		}
	}()
	return s.loop()
}

// drainWindow is how long after the last client returns the run goes on,
// so that what is in flight (a closing session, its ephemerals' deletion)
// lands: far longer than any message takes, and bounded, so that a timer a
// client left behind does not stretch the run.
const drainWindow = Time(time.Second)

// drained reports, once every client has returned, whether the run may end:
// no foreground event is pending, or the drain window has passed.
func (s *Scheduler) drained() bool {
	if s.lastExit < 0 {
		s.lastExit = s.now
	}
	return s.fg == 0 || s.q.len() == 0 || s.q.nextAt() > s.lastExit+drainWindow
}

// step resumes t until it blocks again or returns.
func (s *Scheduler) step(t *Task) {
	if t.state != taskRunnable || t.frozen {
		return
	}
	s.cur = t
	t.state = taskRunning
	s.clientSteps++
	s.running.Store(t)
	s.progress.Store(s.steps)
	_, alive := t.next()
	s.running.Store(nil)
	s.cur = nil
	if s.stalled.Load() {
		return
	}
	if !alive {
		s.finish(t)
	}
}

// wakeCancelled wakes every parked task whose context has ended, in the order
// they parked. It reports whether it woke any.
func (s *Scheduler) wakeCancelled() bool {
	if len(s.cancelable) == 0 {
		return false
	}
	var woken []*Task
	for i := 0; i < len(s.cancelable); {
		t := s.cancelable[i]
		select {
		case <-t.ctxDone:
			s.unlistCancelable(t) // moves the last entry to i
			woken = append(woken, t)
		default:
			i++
		}
	}
	if len(woken) > 1 {
		slices.SortFunc(woken, func(a, b *Task) int { return cmp.Compare(a.parkSeq, b.parkSeq) })
	}
	for _, t := range woken {
		t.cancelled = true
		t.wake()
	}
	return len(woken) > 0
}

func (s *Scheduler) listCancelable(t *Task) {
	t.cancelIdx = len(s.cancelable)
	s.cancelable = append(s.cancelable, t)
}

func (s *Scheduler) unlistCancelable(t *Task) {
	i := t.cancelIdx
	if i < 0 {
		return
	}
	last := len(s.cancelable) - 1
	s.cancelable[i] = s.cancelable[last]
	s.cancelable[i].cancelIdx = i
	s.cancelable[last] = nil
	s.cancelable = s.cancelable[:last]
	t.cancelIdx = -1
}

// ErrStopped ends a run that World.StopWhen's function stopped.
var ErrStopped = errors.New("the run was stopped before it ended")

// BudgetError reports a run stopped at its step or virtual-time budget.
type BudgetError struct {
	What  string
	Limit string
	At    Time
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("run stopped at %s: past its %s budget of %s",
		strings.TrimSpace(e.At.String()), e.What, e.Limit)
}

// StallError reports a client that did not hand control back to the
// simulator: it blocked outside it (a raw channel, a mutex, real time) or ran
// without end.
type StallError struct {
	Client string
	// For is how long, in real time, it was waited for: "at least 10ms",
	// "120ms in all, over 14 client steps", or the stall timeout.
	For   string
	Wait  string // what it does, in plain words ("waits on a Go channel (chan receive)"), if known
	Where string // the innermost frame of its own code, "function (file:line)", if known
}

func (e *StallError) Error() string {
	msg := fmt.Sprintf("client %s blocked outside the simulator: it did not return control for %s", e.Client, e.For)
	if e.Wait != "" {
		msg += ": it " + e.Wait
		if e.Where != "" {
			msg += " in " + e.Where
		}
	}
	switch {
	case strings.HasPrefix(e.Wait, "sleeps on the wall clock"):
		msg += ". A wall-clock sleep passes no virtual time (a back-off does nothing): use the Conn's Sleep, or NewTimer in a Select"
	case strings.HasPrefix(e.Wait, "waits on a Go channel"), strings.HasPrefix(e.Wait, "waits in a Go select"):
		msg += ". Tasks of one process wait for each other through the Conn: its Select on a client.Mailbox, an Event or a Task " +
			"(and for a timer's channel, time.After's or a Ticker's, the Conn's Sleep, or NewTimer in a Select)"
	case strings.HasPrefix(e.Wait, "waits on a sync primitive"):
		msg += ". Tasks of one process lock through the Conn: its NewMutex, or NewEvent to wait for a signal"
	}
	return msg + ". A client waits only through client.Conn (its calls, a Watch, Sleep, NewTimer, " +
		"WithTimeout, Select, and its tasks' NewMutex, NewEvent and client.Mailbox): a raw channel, a sync " +
		"mutex, time.Sleep or a loop that never calls the Conn waits outside the simulator's virtual time"
}

// ClientError reports a client process that returned an error or panicked.
type ClientError struct {
	Client string
	At     Time
	Err    error
	Stack  string // for a panic
}

func (e *ClientError) Error() string {
	msg := fmt.Sprintf("client %s failed at %s: %v", e.Client, strings.TrimSpace(e.At.String()), e.Err)
	if e.Stack != "" {
		msg += "\n" + e.Stack
	}
	return msg
}

func (e *ClientError) Unwrap() error { return e.Err }

// timer is a foreground event that can be stopped before it fires; a stopped
// timer no longer keeps a deadlock from being reported.
type timer struct {
	s  *Scheduler
	fn func()
	// wakes, when set instead of fn, is the sleeping task the timer wakes
	// (a task's sleep needs no closure).
	wakes *Task
	dead  bool
}

// handle fires the timer unless it was stopped. A timer is a background
// event of its own (no closure to allocate); while armed it counts as a
// foreground one.
func (tm *timer) handle() {
	if !tm.dead {
		tm.dead = true
		tm.s.fg--
		if tm.wakes != nil {
			tm.wakes.wake()
			return
		}
		tm.fn()
	}
}

// timerAfter arms fn to run d after now, unless stopped first.
func (s *Scheduler) timerAfter(d Time, fn func()) *timer {
	return s.arm(&timer{s: s, fn: fn}, d)
}

// arm schedules tm, new or fired, to fire d after now.
func (s *Scheduler) arm(tm *timer, d Time) *timer {
	tm.dead = false
	s.fg++
	s.schedule(s.now+d, tm, true)
	return tm
}

// stop disarms tm; it reports whether tm had not fired yet.
func (s *Scheduler) stopTimer(tm *timer) bool {
	if tm.dead {
		return false
	}
	tm.dead = true
	s.fg--
	return true
}
