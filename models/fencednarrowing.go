package models

import (
	"cmp"
	"math"
	"slices"
	"sort"
)

// fencedParts is Narrow for the fenced mutex (fencedStep); ops are one
// lock's operations without those fencedOnly leaves out. Unless some
// operation is one fencedStep never allows (the whole is then one part),
// it splits them into the acquires and the uses, and narrows each (see
// the reasoning above mutexParts, in mutexnarrowing.go):
//
//   - The two parts are independent: an acquire reads and writes only the
//     tokens granted, a use only the token accepted. Given a linearization
//     of each, place every operation at a point of its interval, in order
//     (each at the latest call so far among those before it, which is no
//     later than its return, or real time would forbid the order); merged
//     by those points they are a linearization of the whole. And the whole
//     linearization restricted to each part is one of the part.
//   - Tokens grow with each grant: an acquire comes after every acquire of
//     a lower token and before every acquire of a higher one. Its call
//     rises to the latest call of a lower token's acquire, its return
//     falls to the earliest return of a higher token's. And the acquires
//     split further, in order of token, wherever no acquire of a higher
//     token returned before one of a lower token was called (narrowed):
//     every linearization takes the lower tokens first, and a
//     linearization of the lower ones followed by one of the higher ones
//     (from Init: their tokens are above every lower one anyway) keeps
//     real time and grows the tokens, so it is a linearization of both.
//     Porcupine, which tries the acquires called in any order, would
//     otherwise try every order of many acquires waiting at once.
//   - The resource accepts tokens in order: an accepted use comes after
//     every accepted use of a lower token and before every one of a
//     higher token, and is narrowed the same way. A refused use comes
//     after some accepted use of a higher token: its call rises to the
//     earliest call of those.
//
// ops is not changed.
func fencedParts(ops []Operation) [][]Operation {
	var acquires, accepted, refused []Operation
	for _, op := range ops {
		switch {
		case op.Kind == Acquire && op.Result == OK:
			acquires = append(acquires, op)
		case op.Kind == Use && op.Result == OK:
			accepted = append(accepted, op)
		case op.Kind == Use && op.Result == Rejected:
			refused = append(refused, op)
		default:
			return [][]Operation{ops}
		}
	}
	narrowByToken(acquires)
	parts := splitByToken(acquires)
	// The earliest call of an accepted use of a token above each refused
	// one's, before accepted are narrowed (their calls only rise).
	sorted := slices.Clone(accepted)
	slices.SortFunc(sorted, func(a, b Operation) int { return cmp.Compare(a.Token, b.Token) })
	earliest := make([]int64, len(sorted)+1) // earliest[k]: the earliest call in sorted[k:]
	earliest[len(sorted)] = math.MaxInt64
	for k := len(sorted) - 1; k >= 0; k-- {
		earliest[k] = min(earliest[k+1], sorted[k].Call)
	}
	for i := range refused {
		u := &refused[i]
		k := sort.Search(len(sorted), func(k int) bool { return sorted[k].Token > u.Token })
		if k < len(sorted) {
			u.Call = min(max(u.Call, earliest[k]), u.Return)
		}
	}
	narrowByToken(accepted)
	return append(parts, append(accepted, refused...))
}

// splitByToken splits ops, which must take effect in strictly growing
// order of Token, into parts of consecutive tokens, cutting between two
// tokens wherever no operation of the higher tokens returned before one of
// the lower tokens was called.
func splitByToken(ops []Operation) [][]Operation {
	slices.SortFunc(ops, func(a, b Operation) int { return cmp.Compare(a.Token, b.Token) })
	earliest := make([]int64, len(ops)+1) // earliest[k]: the earliest return in ops[k:]
	earliest[len(ops)] = math.MaxInt64
	for k := len(ops) - 1; k >= 0; k-- {
		earliest[k] = min(earliest[k+1], ops[k].Return)
	}
	var parts [][]Operation
	from, latest := 0, int64(math.MinInt64)
	for k := range ops {
		latest = max(latest, ops[k].Call)
		if k+1 < len(ops) && ops[k+1].Token != ops[k].Token && latest <= earliest[k+1] {
			parts = append(parts, ops[from:k+1])
			from = k + 1
		}
	}
	return append(parts, ops[from:])
}

// narrowByToken narrows ops, which must take effect in order of Token
// (ops of equal tokens in any order between them): each one's call rises
// to the latest call of those of lower tokens, and its return falls to
// the earliest return of those of higher tokens, within its interval.
func narrowByToken(ops []Operation) {
	idx := make([]int, len(ops))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(i, j int) int { return cmp.Compare(ops[i].Token, ops[j].Token) })
	// Groups of equal tokens: [from, to) in idx.
	type group struct{ from, to int }
	var groups []group
	for k := 0; k < len(idx); {
		g := group{from: k}
		for k < len(idx) && ops[idx[k]].Token == ops[idx[g.from]].Token {
			k++
		}
		g.to = k
		groups = append(groups, g)
	}
	// The bounds come from the intervals as recorded.
	lower := make([]int64, len(groups)) // the latest call below each group
	upper := make([]int64, len(groups)) // the earliest return above each group
	latest := int64(math.MinInt64)
	for g, gr := range groups {
		lower[g] = latest
		for _, i := range idx[gr.from:gr.to] {
			latest = max(latest, ops[i].Call)
		}
	}
	earliest := int64(math.MaxInt64)
	for g := len(groups) - 1; g >= 0; g-- {
		upper[g] = earliest
		for _, i := range idx[groups[g].from:groups[g].to] {
			earliest = min(earliest, ops[i].Return)
		}
	}
	for g, gr := range groups {
		for _, i := range idx[gr.from:gr.to] {
			op := &ops[i]
			call := min(max(op.Call, lower[g]), op.Return)
			op.Call, op.Return = call, max(min(op.Return, upper[g]), call)
		}
	}
}
