package models

import (
	"cmp"
	"math"
	"slices"
)

// takeLiveness judges the waits for a queue's items.
func takeLiveness(in *Input, stops map[int]int64) []Violation {
	paths, byPath := opsByPath(in.Ops, Put, Take)
	var out []Violation
	for _, p := range paths {
		ops := byPath[p]
		empty := emptySpans(ops)
		spans := make([]ownedSpan, len(empty))
		for k, s := range empty {
			spans[k] = ownedSpan{s, -1}
		}
		tl := newBlockTimeline(spans, 0)
		var late []lateWait
		for k := range ops {
			w := &ops[k]
			if w.Kind != Take || (w.Result != OK && w.Result != Pending) {
				continue
			}
			if lw, ok := tl.judgeWait(in, w, ownsNothing, stops, math.MinInt64); ok {
				late = append(late, lw)
			}
		}
		if len(late) > 0 {
			out = append(out, lateWaitsViolation(in, p, late, func(Operation) waitStory {
				return waitStory{what: "for an item of " + p, free: "it had items"}
			}))
		}
	}
	return out
}

// emptySpans are the spans during which a queue had no item available: see
// the liveness check's doc. A take of unknown outcome may have taken an
// item at any moment from its call to when it ended (Ended): one there was
// at its call, or else the next one put before it ended. Counted so, an
// item the take may have taken does not make the queue look full to the
// waiters after it (a consumer whose own take in doubt took the item put
// while it waited was once told it waited "though the queue had items").
func emptySpans(ops []Operation) []timeSpan {
	// A change at an instant: an item put (+1) or taken (-1), or a take in
	// doubt beginning (doubt: its index+1) or ending (doubt: -(index+1)).
	type change struct {
		at           int64
		delta, doubt int
	}
	var changes []change
	ends := map[int]int64{} // each take in doubt's end (the end of time when not known)
	for k, op := range ops {
		switch {
		case op.Kind == Put && op.Result == OK:
			changes = append(changes, change{at: op.Return, delta: +1})
		case op.Kind == Take && op.Result == OK:
			changes = append(changes, change{at: op.Return, delta: -1})
		case op.Kind == Take && op.Result == Unknown:
			changes = append(changes, change{at: op.Call, doubt: k + 1})
			ends[k] = math.MaxInt64
			if op.Ended > op.Call {
				ends[k] = op.Ended
				changes = append(changes, change{at: op.Ended, doubt: -(k + 1)})
			}
		}
	}
	slices.SortFunc(changes, func(a, b change) int { return cmp.Compare(a.at, b.at) })
	var out []timeSpan
	// owed are the takes in doubt under way that have taken no item yet
	// (as counted): an item that comes goes to the one that ends first, so
	// that those left wait as long as they may.
	var owed []int
	items, emptyFrom := 0, int64(math.MinInt64)
	for i := 0; i < len(changes); {
		// The changes of one instant together: a put and a take at once
		// leave the count as it was.
		at, delta := changes[i].at, 0
		for ; i < len(changes) && changes[i].at == at; i++ {
			switch d := changes[i].doubt; {
			case d > 0:
				owed = append(owed, d-1)
			case d < 0:
				owed = slices.DeleteFunc(owed, func(k int) bool { return k == -d-1 }) // it ended owed nothing more
			}
			delta += changes[i].delta
		}
		items = max(0, items+delta)
		slices.SortFunc(owed, func(a, b int) int { return cmp.Compare(ends[a], ends[b]) })
		for len(owed) > 0 && items > 0 {
			owed, items = owed[1:], items-1
		}
		switch {
		case items > 0 && emptyFrom != math.MaxInt64:
			out = append(out, timeSpan{emptyFrom, at})
			emptyFrom = math.MaxInt64 // not empty
		case items == 0 && emptyFrom == math.MaxInt64:
			emptyFrom = at
		}
	}
	if emptyFrom != math.MaxInt64 {
		out = append(out, timeSpan{emptyFrom, math.MaxInt64})
	}
	return out
}
