package models

import (
	"cmp"
	"math"
	"slices"
)

// fencedWitness is Witness for the fenced mutex: an order in which a lock
// over a fenced resource that behaved took ops. fencedStep constrains three
// things apart, so each gets its linearization point on its own, as early
// as its interval and its predecessors allow:
//
//   - the granted acquires (OK), in the order of their tokens: each at its
//     call, or at the point of the acquire before it if that is later;
//   - the uses the resource accepted (OK), in the order of their tokens
//     (equal tokens by return: the earliest deadline first), likewise;
//   - each use it refused, at its call or at the point of the first
//     accepted use with a higher token (the one that makes the refusal
//     right), if that is later.
//
// Everything else (a release, which is always legal, or an operation
// fencedStep refuses whatever the state) goes at its call. Sorted by
// point, with each chain's order kept at equal points, the order keeps
// real time whenever every point lies within its interval (x returned
// before y was called puts x's point before y's); isLinearization checks
// that and every step, so a point past its operation's return, or a chain
// out of order, only means porcupine decides. nil when a refused use has
// no accepted use with a higher token to follow.
func fencedWitness(ops []Operation) []int32 {
	const (
		chainAcquire = iota
		chainUse
		chainRefused
		chainOther
	)
	type placed struct {
		at    int64
		chain int8
		rank  int32 // the place in its chain
		i     int32
	}
	var acquires, uses, refused []int32
	order := make([]placed, 0, len(ops))
	for i := range ops {
		op := &ops[i]
		switch {
		case op.Kind == Acquire && op.Result == OK:
			acquires = append(acquires, int32(i))
		case op.Kind == Use && op.Result == OK:
			uses = append(uses, int32(i))
		case op.Kind == Use && op.Result == Rejected:
			refused = append(refused, int32(i))
		default:
			order = append(order, placed{at: op.Call, chain: chainOther, i: int32(i)})
		}
	}
	byToken := func(a, b int32) int {
		x, y := &ops[a], &ops[b]
		return cmp.Or(cmp.Compare(x.Token, y.Token), cmp.Compare(x.Return, y.Return), cmp.Compare(x.Call, y.Call), cmp.Compare(a, b))
	}
	slices.SortFunc(acquires, byToken)
	slices.SortFunc(uses, byToken)
	chain := func(list []int32, kind int8) []int64 {
		points := make([]int64, len(list))
		at := int64(math.MinInt64)
		for r, i := range list {
			at = max(at, ops[i].Call)
			points[r] = at
			order = append(order, placed{at: at, chain: kind, rank: int32(r), i: i})
		}
		return points
	}
	chain(acquires, chainAcquire)
	usePoints := chain(uses, chainUse)
	for _, i := range refused {
		// The first accepted use with a higher token: uses are sorted by
		// token, so the search finds where higher tokens begin.
		r, _ := slices.BinarySearchFunc(uses, ops[i].Token+1, func(u int32, t int64) int { return cmp.Compare(ops[u].Token, t) })
		if r == len(uses) {
			return nil
		}
		// After that use: at its point, the refusal sorts after the uses.
		order = append(order, placed{at: max(ops[i].Call, usePoints[r]), chain: chainRefused, i: i})
	}
	slices.SortFunc(order, func(a, b placed) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.chain, b.chain), cmp.Compare(a.rank, b.rank), cmp.Compare(a.i, b.i))
	})
	out := make([]int32, len(order))
	for k, p := range order {
		out[k] = p.i
	}
	return out
}
