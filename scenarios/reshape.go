package scenarios

import (
	"slices"
	"time"

	"github.com/zksim/zksim/fault"
)

// The shrinker's moves beyond removing faults and renumbering triggers
// (minimize.go): each makes a schedule that minimize then runs, and keeps
// only if that run fails the same check.

// swapped are rest with two clients' names exchanged: for each client a
// removed fault was tied to or struck, and each other client the faults
// name. The clients of a workload do the same thing, and which of them
// comes first (wins a race for a lock, say) can hang on the faults
// removed: without them, the other client plays the part the remaining
// faults were aimed at.
func swapped(rest, removed fault.Schedule) []fault.Schedule {
	var named []int
	for _, f := range append(append(fault.Schedule{}, rest...), removed...) {
		named = append(named, clientsOf(f)...)
	}
	slices.Sort(named)
	named = slices.Compact(named)
	var out []fault.Schedule
	seen := map[[2]int]bool{}
	for _, r := range removed {
		for _, a := range clientsOf(r) {
			for _, b := range named {
				pair := [2]int{min(a, b), max(a, b)}
				if a == b || seen[pair] {
					continue
				}
				seen[pair] = true
				if alt, changed := relabeled(rest, a, b); changed {
					out = append(out, alt)
				}
			}
		}
	}
	return out
}

// clientsOf are the clients f is tied to or strikes (0-based).
func clientsOf(f fault.Fault) []int {
	var out []int
	if f.When != nil {
		out = append(out, f.When.Client)
	}
	for _, t := range []fault.Target{f.A, f.B} {
		if t.Kind == fault.ClientT {
			out = append(out, t.Index)
		}
	}
	return out
}

// relabeled is sched with clients a and b exchanged wherever a fault names
// them, and whether any does.
func relabeled(sched fault.Schedule, a, b int) (fault.Schedule, bool) {
	swap := func(c int) int {
		switch c {
		case a:
			return b
		case b:
			return a
		}
		return c
	}
	out := append(fault.Schedule{}, sched...)
	changed := false
	for i := range out {
		f := &out[i]
		for _, t := range []*fault.Target{&f.A, &f.B} {
			if t.Kind == fault.ClientT && swap(t.Index) != t.Index {
				t.Index, changed = swap(t.Index), true
			}
		}
		if f.When != nil && swap(f.When.Client) != f.When.Client {
			w := *f.When
			w.Client, f.When, changed = swap(w.Client), &w, true
		}
	}
	return out, changed
}

// draft is a schedule made from the counterexample's by removing faults
// and mending the rest, with the text each fault it keeps had there,
// position for position.
type draft struct {
	sched fault.Schedule
	was   []string
}

// timing compares a draft's run that did not fail (the probe) with the
// counterexample's (best): when the first removed fault struck in best
// (from), when each fault first struck in either, and the anchor: the
// draft's first trigger that struck in both at or after from.
type timing struct {
	from            time.Duration
	bestAt, probeAt map[string]time.Duration
	anchor          int
}

// timingOf is the timing of d's run probe against best, without the faults
// removed; false when none of those struck in best or no trigger kept
// struck after them in both runs.
func timingOf(d draft, removed fault.Schedule, best, probe []strike) (timing, bool) {
	tm := timing{bestAt: firstStrikes(best), probeAt: firstStrikes(probe), anchor: -1}
	struck := false
	for _, r := range removed {
		if at, ok := tm.bestAt[r.String()]; ok && (!struck || at < tm.from) {
			tm.from, struck = at, true
		}
	}
	for i, f := range d.sched {
		tb, inBest := tm.bestAt[d.was[i]]
		_, inProbe := tm.probeAt[f.String()]
		if !struck || f.When == nil || !inBest || !inProbe || tb < tm.from {
			continue
		}
		if tm.anchor < 0 || tb < tm.bestAt[d.was[tm.anchor]] {
			tm.anchor = i
		}
	}
	return tm, tm.anchor >= 0
}

// firstStrikes is when each fault (by its text) first struck.
func firstStrikes(struck []strike) map[string]time.Duration {
	at := map[string]time.Duration{}
	for _, s := range struck {
		if _, seen := at[s.text]; !seen {
			at[s.text] = s.at
		}
	}
	return at
}

// offsets are when d's fault i struck after the anchor, in best and in
// the probe, and whether it struck in both.
func (tm timing) offsets(d draft, i int) (time.Duration, time.Duration, bool) {
	tb, inBest := tm.bestAt[d.was[i]]
	tp, inProbe := tm.probeAt[d.sched[i].String()]
	a := tm.anchor
	return tb - tm.bestAt[d.was[a]], tp - tm.probeAt[d.sched[a].String()], inBest && inProbe
}

// retimed is d with its timed faults moved by as much as removing faults
// moved the run: a removed fault that held a client up (a lost
// connection, an expired session) delays all it does after, and the
// faults timed to strike among those doings strike elsewhere without it.
// The shift is how much sooner or later the anchor struck in the probe
// than in best; the timed faults from the first removed fault's strike on
// move by that much, and one moved before the run's start keeps what is
// left of it from 0, or goes. False when nothing moves.
func retimed(d draft, tm timing) (draft, bool) {
	a := tm.anchor
	shift := (tm.probeAt[d.sched[a].String()] - tm.bestAt[d.was[a]]).Round(time.Millisecond)
	if shift == 0 {
		return d, false
	}
	var out draft
	for i, f := range d.sched {
		if f.When == nil && f.At >= tm.from {
			var ok bool
			if f, ok = moved(f, shift); !ok {
				continue
			}
		}
		out.sched, out.was = append(out.sched, f), append(out.was, d.was[i])
	}
	return out, true
}

// recounted are d with one trigger after the anchor counting one or two
// events later, when in the probe it struck sooner after the anchor than
// in best, or earlier, when it struck later or not at all: removing a
// fault can leave a client with fewer requests to send again, or with
// more notifications (those it no longer missed while cut off), so a
// trigger's count can go either way. The anchor stays as it is.
func recounted(d draft, tm timing) []draft {
	var out []draft
	for i, f := range d.sched {
		ob, op, both := tm.offsets(d, i)
		if _, inBest := tm.bestAt[d.was[i]]; f.When == nil || i == tm.anchor || !inBest || ob < 0 {
			continue
		}
		dir := -1
		switch {
		case both && op < ob-time.Millisecond:
			dir = 1
		case both && op <= ob+time.Millisecond:
			continue // it struck where it did
		}
		for _, n := range []int{f.When.Nth + dir, f.When.Nth + 2*dir} {
			if n >= 1 {
				w := *f.When
				w.Nth = n
				alt := draft{append(fault.Schedule{}, d.sched...), d.was}
				alt.sched[i].When = &w
				out = append(out, alt)
			}
		}
	}
	return out
}

// moved is timed fault f struck d later (earlier, when negative). Moved
// before the run's start, it strikes at 0 for what is left of it, and is
// gone (false) when nothing is.
func moved(f fault.Fault, d time.Duration) (fault.Fault, bool) {
	f.At += d
	if f.At >= 0 {
		return f, true
	}
	n := length(f)
	switch {
	case n == 0:
		f.At = 0
	case f.At+n <= 0:
		return f, false
	default:
		f = withLength(f, f.At+n)
		f.At = 0
	}
	return f, true
}

// length is how long f lasts once struck: a pause's length, or how long
// until a crash, a cut or a slowdown is undone (0 for an instant, or for
// a fault never undone).
func length(f fault.Fault) time.Duration {
	switch f.Kind {
	case fault.Pause:
		return f.D
	case fault.Delay:
		return 0 // how late one message leaves, not a while
	}
	return f.For
}

// withLength is f lasting d (see length).
func withLength(f fault.Fault, d time.Duration) fault.Fault {
	if f.Kind == fault.Pause {
		f.D = d
	} else {
		f.For = d
	}
	return f
}
