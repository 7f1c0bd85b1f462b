package sim

import "errors"

// A world stepped by its caller, for clients outside the simulator
// (outside.go): the front end that serves them starts the world with
// Begin, and then, as real time passes and frames arrive, runs it up to
// a virtual time with RunUntil, hands in what arrived (Wire.Send) and asks
// when it next has something to do (NextAt). Nothing in the world knows
// it is stepped but the loop, which stops at the time given rather than
// at the end of the clients: a stepped world has no end of its own, and
// no deadlock (an idle ensemble waits for its clients). The same calls at
// the same virtual times make the same run: a served run replays from
// its tape by making them again.

// errReached ends a step of the loop: nothing more is due by its time.
var errReached = errors.New("sim: the step's time is reached")

// Begin starts a world its caller steps: the ensemble elects its first
// leader, as Run has it do before the clients start, and any client
// spawned so far starts. A world begun is run by RunUntil, never by Run.
func (w *World) Begin() {
	if w.ran {
		panic("sim: a World runs once")
	}
	w.ran = true
	w.s.stepped = true
	w.elect(w.servers)
	for _, c := range w.clients {
		if c.outside == nil {
			c.start()
		}
	}
	w.s.quiet = w.quiet
	if w.cfg.ProgressBound > 0 {
		w.watchProgress()
	}
}

// RunUntil runs the world until virtual time t: every event due by then
// fires, and the clock then stands at t (or later, if it already was). It
// returns what ended the run early, if anything did: a simulated client's
// failure, or a budget passed.
func (w *World) RunUntil(t Time) error {
	if !w.s.stepped {
		panic("sim: RunUntil on a world not begun (Begin)")
	}
	w.s.until = t
	if err := w.s.guardedLoop(); !errors.Is(err, errReached) {
		return err
	}
	return nil
}

// NextAt is when the world next has something to do on its own (a
// message arriving, a timer, a fault), and false when nothing is pending.
func (w *World) NextAt() (Time, bool) {
	if w.s.q.len() == 0 {
		return 0, false
	}
	return w.s.q.nextAt(), true
}

// Finish ends a stepped world and says how it went, as Run does for a
// world run to its end.
func (w *World) Finish() Result {
	w.s.shutdown()
	return Result{Struck: w.struck, Hash: w.trace.Hash(), Records: w.trace.Len(), Ops: w.ops, Steps: w.s.steps,
		Events: w.s.events, ClientSteps: w.s.clientSteps, End: w.s.now, Violations: w.violations}
}
