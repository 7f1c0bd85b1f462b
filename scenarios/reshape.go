package scenarios

import (
	"slices"

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
