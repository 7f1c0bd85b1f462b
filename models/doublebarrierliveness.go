package models

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// doubleBarrierLiveness judges the waits to enter and to leave a double
// barrier.
func doubleBarrierLiveness(in *Input, stops map[int]int64) []Violation {
	paths, byPath := opsByPath(in.Ops, Enter, Leave)
	var out []Violation
	for _, p := range paths {
		ops := withRetries(byPath[p])
		size, _ := doubleBarrierSize(in, ops)
		closed := []timeSpan{{math.MinInt64, enteredBy(ops, size, stops)}}
		busy := []timeSpan{{math.MinInt64, leftBy(ops, stops)}}
		var lateEnter, lateLeave []lateWait
		for _, w := range ops {
			if w.Result != OK && w.Result != Pending {
				continue
			}
			if w.Kind == Enter {
				if lw, ok := judgeWait(in, w, stops, closed); ok {
					lateEnter = append(lateEnter, lw)
				}
			} else if lw, ok := judgeWait(in, w, stops, busy); ok {
				lateLeave = append(lateLeave, lw)
			}
		}
		if len(lateEnter) > 0 {
			out = append(out, lateWaitsViolation(in, p, lateEnter, func(Operation) waitStory {
				return waitStory{what: "to enter the double barrier " + p, free: fmt.Sprintf("%d processes had entered it", size)}
			}))
		}
		if len(lateLeave) > 0 {
			out = append(out, lateWaitsViolation(in, p, lateLeave, func(Operation) waitStory {
				return waitStory{what: "to leave the double barrier " + p, free: "every process that entered had left it or stopped"}
			}))
		}
	}
	return out
}

// enteredBy is the first time size distinct clients had called Enter on
// a double barrier and not stopped (math.MaxInt64 if never).
func enteredBy(ops []Operation, size int, stops map[int]int64) int64 {
	first := map[int]int64{} // each client's first Enter call
	for _, op := range ops {
		if t, ok := first[op.Client]; op.Kind == Enter && (!ok || op.Call < t) {
			first[op.Client] = op.Call
		}
	}
	// At t, the clients that had entered are those whose first Enter came
	// by t, less those that had also stopped by t: whose later of the two
	// came by t.
	var times, gone []int64
	for c, t := range first {
		times = append(times, t)
		if s, ok := stops[c]; ok {
			gone = append(gone, max(t, s))
		}
	}
	slices.Sort(times)
	slices.Sort(gone)
	by := func(ts []int64, t int64) int { return sort.Search(len(ts), func(k int) bool { return ts[k] > t }) }
	for _, t := range times {
		if by(times, t)-by(gone, t) >= size {
			return t
		}
	}
	return math.MaxInt64
}

// leftBy is the time by which every client whose Enter returned OK on a
// double barrier had called Leave or stopped (math.MaxInt64 if never).
func leftBy(ops []Operation, stops map[int]int64) int64 {
	done := map[int]int64{} // each entered client: its first Leave call or its stop
	for _, op := range ops {
		if op.Kind == Enter && op.Result == OK {
			if _, ok := done[op.Client]; !ok {
				done[op.Client] = math.MaxInt64
				if s, ok := stops[op.Client]; ok {
					done[op.Client] = s
				}
			}
		}
	}
	for _, op := range ops {
		if t, ok := done[op.Client]; ok && op.Kind == Leave && op.Call < t {
			done[op.Client] = op.Call
		}
	}
	by := int64(math.MinInt64)
	for _, t := range done {
		by = max(by, t)
	}
	return by
}
