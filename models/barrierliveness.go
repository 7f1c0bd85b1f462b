package models

import (
	"math"
)

// passLiveness judges the waits to pass a barrier. A Wait or a Remove
// that failed and was made again is one with its retry (withRetries): a
// waiter waits from its first call.
func passLiveness(in *Input, stops map[int]int64) []Violation {
	paths, byPath := opsByPath(in.Ops, Lower, Pass)
	var out []Violation
	for _, p := range paths {
		ops := withRetries(byPath[p])
		up := timeSpan{math.MinInt64, math.MaxInt64}
		for _, op := range ops {
			if op.Kind == Lower && op.Result == OK && op.Return < up.to {
				up.to = op.Return
			}
		}
		var late []lateWait
		for _, w := range ops {
			if w.Kind != Pass || (w.Result != OK && w.Result != Pending) {
				continue
			}
			if lw, ok := judgeWait(in, w, stops, []timeSpan{up}); ok {
				late = append(late, lw)
			}
		}
		if len(late) > 0 {
			out = append(out, lateWaitsViolation(in, p, late, func(Operation) waitStory {
				return waitStory{what: "to pass the barrier " + p, free: "it was lowered"}
			}))
		}
	}
	return out
}
