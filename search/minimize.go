package search

import (
	"time"

	"github.com/zksim/zksim/fault"
)

// strike is a fault striking in a run: its text and when.
type strike struct {
	text string
	at   time.Duration
}

// trial is a run of a schedule as minimize sees it: whether it broke the
// check, the faults that struck (in order, with when), and, when it
// broke it, the counterexample the caller makes of it.
type trial struct {
	failed bool
	struck []strike
	cx     *Counterexample
}

// kept is a schedule that fails, with the trial that showed it.
type kept struct {
	sched fault.Schedule
	tr    trial
}

// texts are the texts of struck, in order.
func texts(struck []strike) []string {
	out := make([]string, len(struck))
	for i, s := range struck {
		out[i] = s.text
	}
	return out
}

// minimize removes faults from k's schedule while run says the run without
// them still fails: whole chunks first (halves, then quarters, ...), then
// one fault at a time, then any two at once, until none can go; every
// fault left is needed. It finishes what rapid's shrinking of Shrink
// leaves: rapid starts from random draws, each keeping most faults, and
// when a failure hangs on many of them together none of those draws
// fails, so rapid has nothing to shrink.
//
// A removal changes the run around the faults kept, and the schedule
// without a chunk is mended when it no longer fails as it stands: its
// later triggers renumbered (a fault tied to "c2's create #3" strikes
// another create once an earlier fault no longer makes c2 retry:
// renumbered, recounted), two clients swapped (swapped), its timed faults
// moved as far as the removal moved the run (retimed). Two faults that
// failed it together are made one (merges), and a fault is made lighter
// (a shorter one, a lost reply for a disconnect: lighter) when that lets
// another go; a fault removed that held the run up may leave a timed fault
// kept made wider in its place (stretched).
//
// Each schedule kept is a counterexample as it stands, replayed by its own
// run: run(k, sched) runs sched as it would run k's, and returns a failing
// trial, or else the trial of k's own seed.
func minimize(k kept, run func(kept, fault.Schedule) trial) kept {
	k = reduce(k, run)
	for {
		smaller, ok := lightened(k, run)
		if !ok {
			return k
		}
		k = smaller
	}
}

// reduce removes faults (removeAll, then removePair) and merges two into
// one (merges) while the schedule still fails, until none of those can.
func reduce(k kept, run func(kept, fault.Schedule) trial) kept {
	for {
		k = removeAll(k, run)
		if smaller, ok := removePair(k, run); ok {
			k = smaller
			continue
		}
		merged := false
		for _, c := range merges(k.sched, k.tr.struck) {
			if t := run(k, c); t.failed {
				k, merged = kept{c, t}, true
				break
			}
		}
		if !merged {
			return k
		}
	}
}

// removePair removes two faults at once, any two, where neither can go
// alone: two that shaped the run together (each delayed a client, say, and
// the faults kept strike where they must with both or with neither) go
// together, what is left mended as without mends it.
func removePair(k kept, run func(kept, fault.Schedule) trial) (kept, bool) {
	for i := range k.sched {
		for j := i + 1; j < len(k.sched); j++ {
			rest := append(append(append(fault.Schedule{}, k.sched[:i]...), k.sched[i+1:j]...), k.sched[j+1:]...)
			if smaller, ok := without(k, rest, fault.Schedule{k.sched[i], k.sched[j]}, run); ok {
				return smaller, true
			}
		}
	}
	return k, false
}

// removeAll removes chunks of faults, halves first, then quarters, down to
// one fault at a time, until no single fault can go.
func removeAll(k kept, run func(kept, fault.Schedule) trial) kept {
	chunk := max(len(k.sched)/2, 1) // a lone fault is tried too
	for chunk >= 1 && len(k.sched) > 0 {
		removed := false
		for start := 0; start < len(k.sched); {
			end := min(start+chunk, len(k.sched))
			rest := append(append(fault.Schedule{}, k.sched[:start]...), k.sched[end:]...)
			if smaller, ok := without(k, rest, k.sched[start:end], run); ok {
				k, removed = smaller, true
				continue // the next chunk now begins at start
			}
			start = end
		}
		if !removed || chunk > 1 {
			chunk /= 2
		}
	}
	return k
}

// lightened is k with one fault made lighter (lighter) and then reduced,
// when that still fails and ends with fewer faults than k. A lighter fault
// that lets no other go is not kept: the counterexample stays as it was
// found.
func lightened(k kept, run func(kept, fault.Schedule) trial) (kept, bool) {
	for i, f := range k.sched {
		for _, g := range lighter(f) {
			c := append(fault.Schedule{}, k.sched...)
			c[i] = g
			t := run(k, c)
			if !t.failed {
				continue
			}
			if r := reduce(kept{c, t}, run); len(r.sched) < len(k.sched) {
				return r, true
			}
		}
	}
	return k, false
}

// without is rest, k without the faults removed, when that fails, or else
// rest with the later triggers renumbered, or two clients swapped
// (swapped), if one of those fails, or else one of those mended, or else,
// for a single fault removed, rest with a timed fault made wider
// (stretched).
func without(k kept, rest, removed fault.Schedule, run func(kept, fault.Schedule) trial) (kept, bool) {
	was := make([]string, len(rest))
	for i, f := range rest {
		was[i] = f.String()
	}
	cands := []draft{{rest, was}}
	for _, c := range append(renumbered(rest, removed, texts(k.tr.struck)), swapped(rest, removed)...) {
		cands = append(cands, draft{c, was})
	}
	probes := make([]trial, len(cands))
	for i, c := range cands {
		if probes[i] = run(k, c.sched); probes[i].failed {
			return kept{c.sched, probes[i]}, true
		}
	}
	for i, c := range cands {
		if smaller, ok := mended(k, c, removed, probes[i], run); ok {
			return smaller, true
		}
	}
	if len(removed) > 1 {
		return k, false // a wider fault stands in for one removed at a time
	}
	for _, c := range stretched(rest, removed) {
		if t := run(k, c); t.failed {
			return kept{c, t}, true
		}
	}
	return k, false
}

// mended is d, whose run probe did not fail, with its timed faults moved
// as far as removing faults moved the run (retimed), when that fails, or
// else with one of its triggers counting an event or two further either
// way (recounted), if one of those fails.
func mended(k kept, d draft, removed fault.Schedule, probe trial, run func(kept, fault.Schedule) trial) (kept, bool) {
	tm, ok := timingOf(d, removed, k.tr.struck, probe.struck)
	if !ok {
		return k, false
	}
	if re, moved := retimed(d, tm); moved {
		if probe = run(k, re.sched); probe.failed {
			return kept{re.sched, probe}, true
		}
		if tm, ok = timingOf(re, removed, k.tr.struck, probe.struck); !ok {
			return k, false
		}
		d = re
	}
	for _, alt := range recounted(d, tm) {
		if t := run(k, alt.sched); t.failed {
			return kept{alt.sched, t}, true
		}
	}
	return k, false
}

// renumbered are rest with the triggers that counted past a removed
// fault's moved back by one, and by two: a removed fault tied to a
// client's Nth request of a kind (or its Nth notification) may have made
// the client send that request again (a lost reply's retry), so the
// later triggers of that client on that kind, past N, name the request
// one or two earlier without it. Nil when no trigger counts past a
// removed one.
//
// With order (the faults' texts in the order they struck in the last run
// that failed) there is one more: every trigger of a client a removed
// fault struck or was tied to, whatever it counts, that struck after the
// removed fault, moved back by one: a cut connection makes a client send
// its requests again, and set its watches again.
func renumbered(rest, removed fault.Schedule, order []string) []fault.Schedule {
	var out []fault.Schedule
	for d := 1; d <= 2; d++ {
		alt := append(fault.Schedule{}, rest...)
		moved := false
		for i := range alt {
			w := alt[i].When
			if w == nil {
				continue
			}
			for _, r := range removed {
				if r.When != nil && countsPast(*w, *r.When) && w.Nth-d >= 1 {
					t := *w
					t.Nth -= d
					alt[i].When, moved = &t, true
					break
				}
			}
		}
		if moved {
			out = append(out, alt)
		}
	}
	if alt, moved := afterRemoved(rest, removed, order); moved {
		out = append(out, alt)
	}
	return out
}

// countsPast says whether trigger w counts the same requests (or
// notifications) of the same client as r, past r's.
func countsPast(w, r fault.Trigger) bool {
	notifies := func(t fault.Trigger) bool { return t.On == fault.OnNotified }
	failed := func(t fault.Trigger) bool { return t.On == fault.OnFailed } // counts only failed requests
	return w.Client == r.Client && w.Op == r.Op && notifies(w) == notifies(r) && failed(w) == failed(r) &&
		w.On != fault.OnHolds && w.Nth > r.Nth
}

// afterRemoved is rest with every trigger of a removed fault's client that
// struck after that fault (by order) moved back by one, and whether any
// moved.
func afterRemoved(rest, removed fault.Schedule, order []string) (fault.Schedule, bool) {
	at := map[string]int{}
	for i, text := range order {
		if _, seen := at[text]; !seen {
			at[text] = i
		}
	}
	alt := append(fault.Schedule{}, rest...)
	moved := false
	for i := range alt {
		w := alt[i].When
		wi, ok := at[alt[i].String()]
		if w == nil || !ok || w.Nth < 2 || w.On == fault.OnHolds {
			continue
		}
		for _, r := range removed {
			ri, ok := at[r.String()]
			if c, has := faultClient(r); ok && has && c == w.Client && ri < wi {
				t := *w
				t.Nth--
				alt[i].When, moved = &t, true
				break
			}
		}
	}
	return alt, moved
}

// faultClient is the client a fault is tied to or strikes, if any.
func faultClient(f fault.Fault) (int, bool) {
	switch {
	case f.When != nil:
		return f.When.Client, true
	case f.A.Kind == fault.ClientT:
		return f.A.Index, true
	case f.B.Kind == fault.ClientT:
		return f.B.Index, true
	}
	return 0, false
}
