package sim

import (
	"context"

	"github.com/zksim/zksim/trace"
)

// The scheduler's floor: what its machinery costs when a step does no work.
// Every event a simulated operation takes costs at least an idle event, and
// every time a client acts on a reply at least an idle client step, however
// little the step itself does; `zksim bench` times these two and multiplies
// them out by a run's counts (Result.Events, Result.ClientSteps), so that a
// run's cost can be told apart from the machinery's. Nothing here reads a
// clock: the caller times them.

// floorPending is how many events IdleEvents keeps pending: about what
// lock-contention keeps (heartbeats, timers and the messages in flight).
const floorPending = 64

// idleEvent reschedules itself a fixed stride ahead while the budget lasts:
// a queue of pending events that keeps its size, as a run's does.
type idleEvent struct {
	s      *Scheduler
	stride Time
	left   *int
}

func (e *idleEvent) handle() {
	if *e.left > 0 {
		*e.left--
		e.s.schedule(e.s.now+e.stride, e, false)
	}
}

// IdleEvents fires n events that do nothing, floorPending of them pending at
// a time, through the scheduler's loop: popping each, dispatching it and
// pushing its successor. It returns how many it fired.
func IdleEvents(n int) (uint64, error) {
	s := newScheduler(NewSeeded(1), trace.New(false), 0, 0)
	left := max(n-floorPending, 0)
	for i := range min(n, floorPending) {
		// Strides of tens of nanoseconds: no client runs, so the loop's
		// drain window (a second of virtual time) must not end it first.
		s.schedule(Time(i), &idleEvent{s: s, stride: Time(floorPending + i), left: &left}, false)
	}
	err := s.loop()
	return s.events, err
}

// wakeEvent wakes its task.
type wakeEvent struct{ t *Task }

func (w *wakeEvent) handle() { w.t.wake() }

// IdleClientSteps has one client park n times, each time woken by an event:
// n client steps (a switch into its coroutine and back) and n events. It
// returns how many client steps it took.
func IdleClientSteps(n int) (uint64, error) {
	s := newScheduler(NewSeeded(1), trace.New(false), 0, 0)
	wake := &wakeEvent{}
	wake.t = s.spawn("idle", func(t *Task) error {
		for range n {
			s.schedule(s.now+1000, wake, false)
			if err := t.park(context.Background(), waitNothing, 0, ""); err != nil {
				return err
			}
		}
		return nil
	})
	err := s.loop()
	s.shutdown()
	return s.clientSteps, err
}
