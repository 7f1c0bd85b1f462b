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
	// Progress is a counter that moves while the run makes progress.
	Progress() uint64
	// Busy reports whether a client is running right now (the scheduler is
	// waiting for it to hand control back).
	Busy() bool
}

// Watch polls p until done is closed. If a client stays busy while progress
// stands still for limit, Watch calls onStall once and returns. Sooner, once
// it has stood still for early (0: never), Watch asks waits at each poll
// whether the client waits outside the simulator (a wall-clock sleep, a Go
// channel, a sync primitive: not a computation, which a slow machine may
// merely prolong); two yeses in a row, and it calls onStall then.
func Watch(p Probe, early, limit time.Duration, done <-chan struct{}, waits func() bool, onStall func()) {
	poll := limit / 8
	if early > 0 {
		poll = min(poll, early/4)
	}
	if poll < time.Millisecond {
		poll = time.Millisecond
	}
	tick := time.NewTicker(poll)
	defer tick.Stop()
	last := p.Progress()
	since := time.Now()
	yes := 0
	for {
		select {
		case <-done:
			return
		case now := <-tick.C:
			cur := p.Progress()
			if cur != last || !p.Busy() {
				last, since, yes = cur, now, 0
				continue
			}
			stuck := now.Sub(since)
			if early > 0 && stuck >= early && waits != nil {
				if yes++; !waits() {
					yes = 0
				}
			}
			if yes >= 2 || stuck >= limit {
				onStall()
				return
			}
		}
	}
}
