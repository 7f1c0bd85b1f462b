package models

import (
	"cmp"
	"math"
	"slices"
	"sort"
)

// Narrowing a lock's history. Porcupine searches for a linearization
// step by step, trying at each step every operation called and not yet
// placed; on a busy lock every client has an acquire waiting most of the
// time, so it tries them all at every step, and takes back much of what
// it tries. What every linearization must respect can be read off the
// history beforehand, so that the search never tries what cannot work.
//
// The reasoning rests on one fact about intervals. A linearization is an
// order of the operations that the model accepts (legal) and that keeps
// real time (valid): x comes before y whenever x returned before y was
// called (porcupine: x.Return < y.Call; at equal times neither is known
// to come first). Narrowing an operation's interval, raising its call or
// lowering its return within it, only adds such constraints, so it never
// makes a linearization where there was none. And it loses none when
// every legal order already keeps the new constraints: raising j's call
// to T is safe when every legal valid order puts before j each operation
// that returned before T, which holds when some y called at T comes
// before j in every legal valid order (an x that returned before T came
// before y, so before j); likewise lowering j's return to the return of
// an operation that comes after j in every legal valid order. Such
// narrowing keeps exactly the legal valid orders there were, so the facts
// it relies on stay true of the narrowed history, and any number of them
// can be applied at once. When there is no legal valid order at all,
// every narrowing keeps it that way (intervals must stay intervals: a
// call is never raised past its return).

// mutexParts is Narrow for the mutex and the election (mutexStep); ops
// are the operations of one lock. It
//
//  1. leaves out the acquires whose answer the caller never saw (Pending,
//     Unknown) and the rejected uses: mutexStep allows them in any state
//     and they change nothing, so each fits anywhere in its interval of a
//     linearization of the rest, and the rest of any linearization is one
//     (a step that changes nothing constrains nothing);
//  2. raises the calls of the acquires that waited to the last release
//     that must come before them;
//  3. splits the history where every linearization passes from one part
//     to the next with the lock free.
//
// Steps 2 and 3 rely on what the rest is made of, and are skipped (the
// whole is one part) unless every operation left is an OK acquire, use or
// release, and each client's acquires, and its releases, follow one
// another in real time (each returned before the next was called), with
// no more releases than acquires.
//
// Holdings. In a legal order the acquires and releases alternate,
// starting with an acquire, and each release is its client's, right after
// its client's acquire: so a client's acquires and releases alternate too,
// and its k-th release (in the order) closes its k-th acquire. When a
// client's acquires and its releases follow one another in real time,
// their order is their order in time, so its k-th acquire in time and its
// k-th release in time are a holding in every linearization: the segment
// from the one to the other, with only the holder's uses inside. A
// client's acquires beyond its releases are holdings without an end;
// with more than one of them (of all clients), there is no linearization.
// Write A_i for holding i's acquire (it returned at B_i), R_i for its
// release (called at C_i, its holder's last use) when it has one.
//
// Step 2. Holdings are segments that do not overlap: for holdings i and j
// (i released), either j's segment comes before i's, or R_i before A_j.
// The former needs R_j before A_i, which real time forbids when A_i
// returned before R_j was called (B_i < C_j), and which cannot be when j
// is never released (its segment is the last one). So R_i comes before A_j
// in every legal valid order, and A_j's call can rise to C_i: to the
// greatest such C_i. A waiter's acquire thus starts at the last use of the
// holder before it, and porcupine no longer tries it earlier.
//
// Step 3. A cut after some holdings splits the history into P (those
// holdings: their acquires, releases and uses) and S (the rest), each
// checked from a free lock. It is made only where:
//
//   - (a) every holding of P is released, and every B_i of P is below
//     every C_j of S's released holdings: then, by step 2, every segment of
//     P comes before every segment of S;
//   - (b) each use can lie in the segments of one side only: a use lies
//     inside a segment of its client (it needs its client to hold the
//     lock), but not one whose acquire was called after the use returned,
//     nor one whose release returned before the use was called;
//   - (c) no operation of S returned before an operation of P was called.
//
// If the whole has a linearization, by (a) and (b) it is a linearization
// of P (legal: P's segments are complete, so the lock is free after them)
// followed by one of S (legal from a free lock). If P and S each have one,
// P's ends with the lock free (its acquires and releases alternate, as
// many of each), so S's can follow it, and by (c) the two together keep
// real time: a linearization of the whole. So the whole is linearizable
// exactly when P and S are, and cuts can be made one after another.
//
// On a run of the recipe this splits the history at nearly every holding;
// the parts are made of about mutexPartSize operations, so that porcupine
// checks many small histories, each in about one step per operation. ops
// is not changed.
func mutexParts(ops []Operation) [][]Operation {
	kept := make([]Operation, 0, len(ops))
	plain := true
	for _, op := range ops {
		switch {
		case op.Kind == Acquire && (op.Result == Pending || op.Result == Unknown || op.Result == Failed):
			continue
		case op.Kind == Use && op.Result == Rejected:
			continue
		case op.Kind == Release && lets(op.Result):
		case op.Result != OK || (op.Kind != Acquire && op.Kind != Use && op.Kind != Release):
			plain = false
		}
		kept = append(kept, op)
	}
	whole := [][]Operation{kept}
	if !plain || len(kept) == 0 {
		return whole
	}
	hs, uses, ok := lockHoldingsOf(kept)
	if !ok {
		return whole
	}
	raiseAcquires(kept, hs)
	parts, ok := cutHoldings(kept, hs, uses)
	if !ok {
		return whole
	}
	return parts
}

// mutexPartSize is about how many operations mutexParts puts in a part: few
// enough that porcupine's set of placed operations fits in a word or two,
// enough that its overhead per part does not dominate. (A variable, so
// that tests can cut at every holding.)
var mutexPartSize = 48

// holding is one holding of a lock, for mutexParts: its acquire and
// release (indices into the operations, release -1 when it has none).
type holding struct {
	client           int
	acquire, release int
	// b is when the acquire returned, c when the release was called (its
	// holder's last use; math.MaxInt64 when it has no release).
	b, c int64
}

// lockHoldingsOf pairs each client's acquires and releases in ops (OK
// acquires, uses and releases only) into holdings, and returns them in
// order of b (then of client), with each client's uses. ok is false unless
// each client's acquires, and its releases, follow one another in real
// time, with no more releases than acquires.
func lockHoldingsOf(ops []Operation) (hs []holding, uses map[int][]int, ok bool) {
	type clientOps struct{ acquires, releases []int }
	byClient := map[int]*clientOps{}
	uses = map[int][]int{}
	for i, op := range ops {
		if op.Kind == Use {
			uses[op.Client] = append(uses[op.Client], i)
			continue
		}
		co := byClient[op.Client]
		if co == nil {
			co = &clientOps{}
			byClient[op.Client] = co
		}
		if op.Kind == Acquire {
			co.acquires = append(co.acquires, i)
		} else {
			co.releases = append(co.releases, i)
		}
	}
	inTurn := func(idx []int) bool {
		slices.SortFunc(idx, func(i, j int) int { return cmp.Compare(ops[i].Call, ops[j].Call) })
		for k := 1; k < len(idx); k++ {
			if ops[idx[k-1]].Return >= ops[idx[k]].Call {
				return false
			}
		}
		return true
	}
	for _, c := range sortedKeys(byClient) {
		co := byClient[c]
		if len(co.releases) > len(co.acquires) || !inTurn(co.acquires) || !inTurn(co.releases) {
			return nil, nil, false
		}
		for k, a := range co.acquires {
			h := holding{client: c, acquire: a, release: -1, b: ops[a].Return, c: math.MaxInt64}
			if k < len(co.releases) {
				h.release = co.releases[k]
				h.c = ops[h.release].Call
			}
			hs = append(hs, h)
		}
	}
	slices.SortFunc(hs, func(x, y holding) int { return cmp.Or(cmp.Compare(x.b, y.b), cmp.Compare(x.client, y.client)) })
	return hs, uses, true
}

// raiseAcquires is mutexParts' step 2: it raises the call of each
// holding's acquire in ops to the greatest c of the other released
// holdings i with i.b below its own c (all of them when it is never
// released), never past its return. hs are in order of b.
func raiseAcquires(ops []Operation, hs []holding) {
	// best[k] and second[k] are the holdings of greatest c among the
	// released ones of hs[:k+1] (second: the greatest other than best).
	var rel []int // the released holdings' indices in hs, in order of b
	for k, h := range hs {
		if h.release >= 0 {
			rel = append(rel, k)
		}
	}
	best, second := make([]int, len(rel)), make([]int, len(rel))
	b1, b2 := -1, -1
	for n, k := range rel {
		switch {
		case b1 < 0 || hs[k].c > hs[b1].c:
			b1, b2 = k, b1
		case b2 < 0 || hs[k].c > hs[b2].c:
			b2 = k
		}
		best[n], second[n] = b1, b2
	}
	for k, h := range hs {
		n := len(rel) // how many released holdings count
		if h.release >= 0 {
			n = sort.Search(len(rel), func(n int) bool { return hs[rel[n]].b >= h.c })
		}
		if n == 0 {
			continue
		}
		i := best[n-1]
		if i == k {
			i = second[n-1]
		}
		if i < 0 {
			continue
		}
		a := &ops[h.acquire]
		a.Call = min(max(a.Call, hs[i].c), a.Return)
	}
}

// cutHoldings is mutexParts' step 3: it cuts ops (their acquires raised)
// between holdings where (a), (b) and (c) allow, into parts of about
// mutexPartSize operations. hs are in order of b; uses are each client's
// uses. ok is false when a use can lie in none of its client's holdings
// (there is no linearization: the whole is left to porcupine).
func cutHoldings(ops []Operation, hs []holding, uses map[int][]int) (parts [][]Operation, ok bool) {
	n := len(hs)
	if n == 0 {
		return nil, false
	}
	// Each holding's members: its acquire, release and the uses placed
	// with it; the earliest return and latest call among them.
	members := make([][]int, n)
	latestCall := make([]int64, n)
	earliestReturn := make([]int64, n)
	for k, h := range hs {
		members[k] = append(members[k], h.acquire)
		if h.release >= 0 {
			members[k] = append(members[k], h.release)
		}
	}
	byClient := map[int][]int{} // each client's holdings (positions in hs), in order
	for k, h := range hs {
		byClient[h.client] = append(byClient[h.client], k)
	}
	// forbid[k] > 0: no cut between hs[k] and hs[k+1] (b).
	forbid := make([]int, n+1)
	for _, c := range sortedKeys(uses) {
		own := byClient[c]
		for _, u := range uses[c] {
			// The holdings u can lie in: from the first whose release did
			// not return before u's call to the last whose acquire was
			// called by u's return (both are in order of time).
			lo := sort.Search(len(own), func(i int) bool {
				h := hs[own[i]]
				return h.release < 0 || ops[h.release].Return >= ops[u].Call
			})
			hi := sort.Search(len(own), func(i int) bool { return ops[hs[own[i]].acquire].Call > ops[u].Return }) - 1
			if lo > hi {
				return nil, false
			}
			members[own[lo]] = append(members[own[lo]], u)
			forbid[own[lo]]++
			forbid[own[hi]]--
		}
	}
	for k := range hs {
		latestCall[k], earliestReturn[k] = math.MinInt64, math.MaxInt64
		for _, i := range members[k] {
			latestCall[k] = max(latestCall[k], ops[i].Call)
			earliestReturn[k] = min(earliestReturn[k], ops[i].Return)
		}
	}
	// After hs[k]: the least c of the released holdings, and the earliest
	// return, among hs[k+1:].
	leastC := make([]int64, n+1)
	minReturn := make([]int64, n+1)
	leastC[n], minReturn[n] = math.MaxInt64, math.MaxInt64
	for k := n - 1; k >= 0; k-- {
		leastC[k], minReturn[k] = leastC[k+1], min(minReturn[k+1], earliestReturn[k])
		if hs[k].release >= 0 {
			leastC[k] = min(leastC[k], hs[k].c)
		}
	}
	var part []Operation
	open := 0                      // uses whose holdings span the cut
	released := true               // every holding so far was released
	latest := int64(math.MinInt64) // the latest call so far
	for k := range hs {
		for _, i := range members[k] {
			part = append(part, ops[i])
		}
		open += forbid[k]
		released = released && hs[k].release >= 0
		latest = max(latest, latestCall[k])
		if k < n-1 && len(part) >= mutexPartSize && open == 0 && released &&
			hs[k].b < leastC[k+1] && latest <= minReturn[k+1] {
			parts = append(parts, part)
			part = nil
		}
	}
	return append(parts, part), true
}
