package models

import (
	"cmp"
	"fmt"
	"slices"
)

// leaseGuess is the liveness check's guess at why a semaphore's waiter
// waited while a lease was free (LeaseLeft), which a run that knows the
// lease nodes replaces with what they were.
const leaseGuess = ": an orphaned lease node, or a waiter that missed a lease's release?"

// semaphoreLiveness judges the waits for a semaphore's lease (Acquire,
// when Input.Permits is more than one: for one, acquireLiveness judges
// them as a lock's). A wait is blocked while at least Permits other
// clients hold a lease (each holding as lockHoldings reads it: from its
// acquire's return to its release's, or its holder's stop, or for ever);
// with fewer holders a slot is free, and a client that keeps waiting
// waits for nothing: a lease node orphaned by a lost reply or by an
// acquisition that failed without returning its lease, a waiter watching
// the wrong node. Each wait is judged against the spans of the others'
// holdings, in time linear in the holdings.
func semaphoreLiveness(in *Input, stops map[int]int64) []Violation {
	permits := in.Permits
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
		var late []lateWait
		for _, i := range idx {
			w := in.Ops[i]
			if w.Kind != Acquire || (w.Result != OK && w.Result != Pending) {
				continue
			}
			if lw, ok := judgeWait(in, w, stops, fullSpans(holdings, w.Client, permits)); ok {
				late = append(late, lw)
			}
		}
		if len(late) > 0 {
			out = append(out, lateWaitsViolation(in, p, late, func(Operation) waitStory {
				return waitStory{"for a lease on " + p, fmt.Sprintf("fewer than %d others held one", permits), LeaseLeft, leaseGuess}
			}))
		}
	}
	return out
}

// fullSpans are the spans during which at least permits clients other
// than client held, of holdings.
func fullSpans(holdings []lockHolding, client, permits int) []timeSpan {
	type edge struct {
		at    int64
		delta int
	}
	var edges []edge
	for _, h := range holdings {
		if h.client != client && h.span.from < h.span.to {
			edges = append(edges, edge{h.span.from, +1}, edge{h.span.to, -1})
		}
	}
	slices.SortFunc(edges, func(a, b edge) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.delta, b.delta)) })
	var out []timeSpan
	held, from := 0, int64(0)
	for _, e := range edges {
		before := held
		held += e.delta
		switch {
		case before < permits && held >= permits:
			from = e.at
		case before >= permits && held < permits && e.at > from:
			out = append(out, timeSpan{from, e.at})
		}
	}
	return out
}
