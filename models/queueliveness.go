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
// the liveness check's doc.
func emptySpans(ops []Operation) []timeSpan {
	type change struct {
		at    int64
		delta int
	}
	var changes []change
	for _, op := range ops {
		switch {
		case op.Kind == Put && op.Result == OK:
			changes = append(changes, change{op.Return, +1})
		case op.Kind == Take && op.Result == OK:
			changes = append(changes, change{op.Return, -1})
		case op.Kind == Take && op.Result == Unknown:
			changes = append(changes, change{op.Call, -1})
		}
	}
	slices.SortFunc(changes, func(a, b change) int { return cmp.Compare(a.at, b.at) })
	var out []timeSpan
	items, emptyFrom := 0, int64(math.MinInt64)
	for i := 0; i < len(changes); {
		// The changes of one instant together: a put and a take at once
		// leave the count as it was.
		at, delta := changes[i].at, 0
		for ; i < len(changes) && changes[i].at == at; i++ {
			delta += changes[i].delta
		}
		items = max(0, items+delta)
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
