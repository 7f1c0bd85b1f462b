package scenarios

import "github.com/zksim/zksim/fault"

// minimize removes faults from sched while fails says the run without
// them still fails: whole chunks first (halves, then quarters, ...), then
// one fault at a time, until no single fault can go. The result is
// 1-minimal: every fault left is needed. It finishes what rapid's shrinking
// of Shrink leaves: rapid starts from random draws, each keeping most
// faults, and when a failure hangs on many of them together none of those
// draws fails, so rapid has nothing to shrink.
//
// Removing a fault can shift what a later one names (a fault tied to "c2's
// create #3" strikes another create once an earlier fault no longer makes
// c2 retry): each schedule kept is a counterexample as it stands, replayed
// by its own run.
func minimize(sched fault.Schedule, fails func(fault.Schedule) bool) fault.Schedule {
	chunk := max(len(sched)/2, 1) // a lone fault is tried too
	for chunk >= 1 && len(sched) > 0 {
		removed := false
		for start := 0; start < len(sched); {
			end := min(start+chunk, len(sched))
			rest := append(append(fault.Schedule{}, sched[:start]...), sched[end:]...)
			if fails(rest) {
				sched, removed = rest, true
				continue // the next chunk now begins at start
			}
			start = end
		}
		if !removed || chunk > 1 {
			chunk /= 2
		}
	}
	return sched
}
