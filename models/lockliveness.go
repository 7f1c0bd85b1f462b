package models

import (
	"math"
	"slices"
)

// orphanGuess is the liveness check's guess at what a lock's waiter
// waited behind while nobody held the lock (OrphanedNode), which a run
// that knows the nodes under the lock replaces with what they were.
const orphanGuess = ": an orphaned node?"

// acquireLiveness judges the waits for locks (and leaderships). Each wait
// is judged in time logarithmic in the history (see blockTimeline), so
// that ten thousand waiters, each blocked by the holdings of all those
// before it, are judged in n·log n.
func acquireLiveness(in *Input, stops map[int]int64) []Violation {
	paths, byPath := indicesByPath(in.Ops, false, Acquire, Release)
	var out []Violation
	for _, p := range paths {
		idx := byPath[p]
		if !mayWaitLong(in, idx, Acquire, stops) {
			continue
		}
		sortIndices(in.Ops, idx)
		ids, n := clientIDs(in.Ops, idx)
		holdings := lockHoldings(in.Ops, idx, ids, n, stops)
		// An exclusive acquire is blocked by every other client's
		// holding, a shared one by the exclusive ones only, and by the
		// exclusive acquires' waits (writerWaits).
		spans := make([]ownedSpan, len(holdings))
		for k, h := range holdings {
			spans[k] = ownedSpan{h.span, h.id}
		}
		all := newBlockTimeline(spans, n)
		var exclusive *blockTimeline
		var late []lateWait
		for k, i := range idx {
			w := &in.Ops[i]
			if w.Kind != Acquire || (w.Result != OK && w.Result != Pending) {
				continue
			}
			tl := all
			if w.Shared {
				if exclusive == nil {
					spans = spans[:0]
					for _, h := range holdings {
						if !h.shared {
							spans = append(spans, ownedSpan{h.span, h.id})
						}
					}
					exclusive = newBlockTimeline(append(spans, writerWaits(in.Ops, idx, ids, stops)...), n)
				}
				tl = exclusive
			}
			if lw, ok := tl.judgeWait(in, w, ids[k], stops, math.MinInt64); ok {
				late = append(late, lw)
			}
		}
		if len(late) > 0 {
			out = append(out, lateWaitsViolation(in, p, late, func(op Operation) waitStory {
				if op.Shared {
					return waitStory{"for a shared lock on " + p, "no writer held it or queued before it", OrphanedNode, orphanGuess}
				}
				return waitStory{"for the lock " + p, "nobody held it", OrphanedNode, orphanGuess}
			}))
		}
	}
	return out
}

// lockHolding is one client's hold of a lock: [span.from, span.to).
type lockHolding struct {
	client int
	id     int32 // the client's number among the lock's (clientIDs)
	shared bool
	span   timeSpan
}

// lockHoldings are the holdings of one lock, ops[idx] (idx sorted by
// call, sortOps; ids their clients' numbers, of which there are n): each
// OK Acquire until its holder's next Release returned, or its holder
// stopped, or for ever.
func lockHoldings(ops []Operation, idx, ids []int32, n int, stops map[int]int64) []lockHolding {
	// Each client's releases, in order: releases[from[c]:from[c+1]].
	from := make([]int32, n+1)
	acquires := 0
	for k, i := range idx {
		switch {
		case ops[i].Kind == Release:
			from[ids[k]+1]++
		case ops[i].Kind == Acquire && ops[i].Result == OK:
			acquires++
		}
	}
	for c := 1; c <= n; c++ {
		from[c] += from[c-1]
	}
	releases := make([]int32, from[n])
	next := slices.Clone(from[:n])
	for k, i := range idx {
		if ops[i].Kind == Release {
			releases[next[ids[k]]] = i
			next[ids[k]]++
		}
	}
	copy(next, from[:n]) // each client's next release
	out := make([]lockHolding, 0, acquires)
	for k, i := range idx {
		a := &ops[i]
		if a.Kind != Acquire || a.Result != OK {
			continue
		}
		c := ids[k]
		h := lockHolding{client: a.Client, id: c, shared: a.Shared, span: timeSpan{a.Return, math.MaxInt64}}
		for next[c] < from[c+1] && ops[releases[next[c]]].Return < a.Return {
			next[c]++ // a release of no holding
		}
		if next[c] < from[c+1] {
			h.span.to = ops[releases[next[c]]].Return
			next[c]++
		}
		if s, ok := stops[a.Client]; ok && s >= a.Return && s < h.span.to {
			h.span.to = s
		}
		out = append(out, h)
	}
	return out
}

// writerWaits are the waits of the exclusive acquires of ops[idx] (ids
// numbers their clients), each owned by its client: until it returned, or
// its client stopped. A shared acquire waiting meanwhile may be queued
// behind it, whenever it was called.
func writerWaits(ops []Operation, idx []int32, ids []int32, stops map[int]int64) []ownedSpan {
	var out []ownedSpan
	for k, i := range idx {
		x := &ops[i]
		if x.Kind != Acquire || x.Shared {
			continue
		}
		to := x.Return
		switch x.Result {
		case Pending:
			to = math.MaxInt64
		case OK:
		default:
			continue
		}
		if s, ok := stops[x.Client]; ok && s >= x.Call && s < to {
			to = s
		}
		out = append(out, ownedSpan{timeSpan{x.Call, to}, ids[k]})
	}
	return out
}
