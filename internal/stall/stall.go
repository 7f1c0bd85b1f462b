// Package stall notices, in real time, a simulated client that never hands
// control back to the simulator's scheduler: one blocked on a raw channel, a
// mutex or the wall clock, or looping without end.
//
// It is the one place the simulator looks at the wall clock, and it only
// observes: it never influences a decision, an order or a trace. It is kept
// out of package sim so that sim itself holds no wall-clock reading at all.
//
// It must never decide anything. Its place is in docs/ARCHITECTURE.md.
package stall

import "time"

// Probe is what the watchdog reads from a running scheduler.
type Probe interface {
	// Progress is a counter that moves while the run makes progress: at
	// least at every client step.
	Progress() uint64
	// Busy reports whether a client is running right now (the scheduler is
	// waiting for it to hand control back).
	Busy() bool
}

// Look is what the watchdog saw the running client do at one poll.
type Look struct {
	Client string // the task running ("c2", "c1/listener"), or ""
	Wait   string // what it does, as Blocked says it, or "" when unknown
	Where  string // the innermost frame of its own code, as Blocked says it
}

// Report is why the watchdog gave up on a run: its last look, and what it
// had seen.
type Report struct {
	Look
	// Stuck is how long the client step it looked at last had kept
	// control, at least.
	Stuck time.Duration
	// Outside is how long, in all, it saw the run's clients wait outside
	// the simulator, in Waits of their steps.
	Outside time.Duration
	Waits   int
}

// polls is how many times the watchdog polls in early, the time a run's
// clients may wait outside the simulator in all: a client step that keeps
// control from one poll to the next (early/polls, 5ms for 100ms) is looked
// at.
const polls = 20

// Watch polls p until done is closed, and gives up on the run (calls
// onStall once, and returns) when one of its clients waits outside the
// simulator, or keeps control too long. A client step still running at
// two polls in a row has kept control for a poll at least; look says what
// its client does then (with early > 0), and Watch gives up:
//
//   - at once, if it sleeps on the wall clock (time.Sleep): a sleep is never
//     a computation a slow machine prolongs, and passes no virtual time
//     however short, so a recipe's 10ms back-off is told at its first or
//     second sleep, not only one that lasts early;
//   - once the run's clients have been seen waiting on a Go channel, a
//     select or a sync primitive for early in all, in one step or over
//     many (a brief contention on a mutex shared with goroutines outside
//     the run is not worth a report; a wait repeated in every call is);
//   - once one step has kept control for limit, whatever it does (a loop
//     that never calls the Conn).
func Watch(p Probe, early, limit time.Duration, done <-chan struct{}, look func() Look, onStall func(Report)) {
	poll := limit / 8
	if early > 0 {
		poll = min(poll, early/polls)
	}
	poll = max(poll, time.Millisecond)
	tick := time.NewTicker(poll)
	defer tick.Stop()
	last := p.Progress()
	since, prev := time.Now(), time.Now()
	var r Report
	seen := false // this step's wait is counted in r.Waits
	for {
		select {
		case <-done:
			return
		case now := <-tick.C:
			cur := p.Progress()
			if cur != last || !p.Busy() {
				last, since, prev, seen = cur, now, now, false
				continue
			}
			r.Stuck = now.Sub(since)
			if early > 0 && look != nil {
				l := look()
				if Waiting(l.Wait) {
					r.Look, r.Outside = l, r.Outside+now.Sub(prev)
					if !seen {
						r.Waits, seen = r.Waits+1, true
					}
					if Sleeping(l.Wait) || r.Outside >= early {
						onStall(r)
						return
					}
				}
			}
			prev = now
			if r.Stuck >= limit {
				if look != nil {
					r.Look = look()
				}
				onStall(r)
				return
			}
		}
	}
}

// Grace waits until ended is closed (a run's loop has ended, its tasks
// unwound) or d has passed, whichever comes first: a client given up on
// for a wait outside the simulator often comes back at once (a short
// sleep), and its run then ends whole before it is reported.
func Grace(ended <-chan struct{}, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ended:
	case <-t.C:
	}
}
