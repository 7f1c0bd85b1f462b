package models

import (
	"cmp"
	"math"
	"slices"
	"sort"
)

// mutexWitness is Witness for the mutex and the election: the order in
// which a lock that behaved took ops. Each client's k-th acquire that
// returned OK and its k-th release (each in order of call) are a holding
// (see mutexParts); the holdings come in the order their acquires
// returned, each as its acquire, its holder's uses in order of call (a use
// goes with the last holding of its client whose acquire returned by the
// time the use returned), and its release. Every other operation (an
// acquire whose answer its caller never saw, a refused use) goes as late
// as real time lets it: before the first operation called after it
// returned. nil when some use or release belongs to no holding.
func mutexWitness(ops []Operation) []int32 {
	g := groupLockOps(ops)
	rank, release, ok := g.pairReleases()
	if !ok {
		return nil
	}
	g.sortHoldings(rank)
	uses, useStart, ok := g.holdingUses()
	if !ok {
		return nil
	}
	return g.witnessOrder(release, uses, useStart)
}

// The OK operations a holding is made of, as lockOpsByClient groups them.
const (
	okAcquire = iota
	okRelease
	okUse
	okKinds
)

// lockOpsByClient is a lock's history as mutexWitness reads it: the OK
// acquires, releases and uses of each client, in order of call, to pair
// them into holdings client by client; the OK acquires, one per holding;
// and every other operation, which no holding takes.
type lockOpsByClient struct {
	ops     []Operation
	ids     []int32 // each operation's client, numbered (numberClients)
	clients int
	// byClient[start[c*okKinds+k]:start[c*okKinds+k+1]] are client c's
	// operations of kind k, in order of call (see of).
	byClient, start []int32
	acquires, other []int32
}

// groupLockOps groups ops by client and kind (see lockOpsByClient), in
// arrays indexed by client number rather than maps, as a witness is
// built for every lock of every run checked.
func groupLockOps(ops []Operation) lockOpsByClient {
	g := lockOpsByClient{ops: ops}
	g.ids, g.clients = numberClients(len(ops), func(i int) int { return ops[i].Client })
	kind := make([]int8, len(ops)) // okAcquire, okRelease, okUse, or -1: anything else
	g.start = make([]int32, g.clients*okKinds+1)
	acquires := 0 // counted first, so that g.acquires is allocated once
	for i := range ops {
		if ops[i].Kind == Acquire && ops[i].Result == OK {
			acquires++
		}
	}
	g.acquires = make([]int32, 0, acquires)
	for i := range ops {
		op := &ops[i]
		k := int8(-1)
		switch {
		case op.Kind == Acquire && op.Result == OK:
			k = okAcquire
			g.acquires = append(g.acquires, int32(i))
		case op.Kind == Release && lets(op.Result):
			k = okRelease
		case op.Kind == Use && op.Result == OK:
			k = okUse
		}
		kind[i] = k
		if k < 0 {
			g.other = append(g.other, int32(i))
			continue
		}
		g.start[int(g.ids[i])*okKinds+int(k)+1]++
	}
	for j := 1; j < len(g.start); j++ {
		g.start[j] += g.start[j-1]
	}
	g.byClient = make([]int32, len(ops)-len(g.other))
	next := slices.Clone(g.start[:len(g.start)-1])
	for i := range ops {
		if k := kind[i]; k >= 0 {
			j := int(g.ids[i])*okKinds + int(k)
			g.byClient[next[j]] = int32(i)
			next[j]++
		}
	}
	for j := 0; j+1 < len(g.start); j++ {
		slices.SortFunc(g.byClient[g.start[j]:g.start[j+1]], func(i, j int32) int {
			if ops[i].Call != ops[j].Call {
				return cmp.Compare(ops[i].Call, ops[j].Call)
			}
			return cmp.Compare(i, j)
		})
	}
	return g
}

// of is client c's operations of kind k (okAcquire, okRelease, okUse),
// in order of call.
func (g *lockOpsByClient) of(c int32, k int) []int32 {
	return g.byClient[g.start[int(c)*okKinds+k]:g.start[int(c)*okKinds+k+1]]
}

// pairReleases pairs each client's k-th acquire with its k-th release,
// both in order of call: a holding (see mutexParts). rank[a] is acquire
// a's place among its client's, release[a] the release of the same place,
// or -1 when it was never released. ok is false when a client released
// more often than it acquired: a lock that behaved takes no such history.
func (g *lockOpsByClient) pairReleases() (rank, release []int32, ok bool) {
	rank, release = make([]int32, len(g.ops)), make([]int32, len(g.ops))
	for c := range int32(g.clients) {
		as, rs := g.of(c, okAcquire), g.of(c, okRelease)
		if len(rs) > len(as) {
			return nil, nil, false
		}
		for k, a := range as {
			rank[a], release[a] = int32(k), -1
			if k < len(rs) {
				release[a] = rs[k]
			}
		}
	}
	return rank, release, true
}

// sortHoldings puts the holdings (their acquires) in the order their
// acquires returned, the order a lock that behaved granted them (a
// history usually comes in that order already); ties go by client, then
// by rank among the client's acquires.
func (g *lockOpsByClient) sortHoldings(rank []int32) {
	ops, ids := g.ops, g.ids
	slices.SortFunc(g.acquires, func(i, j int32) int {
		switch {
		case ops[i].Return != ops[j].Return:
			return cmp.Compare(ops[i].Return, ops[j].Return)
		case ids[i] != ids[j]:
			return cmp.Compare(ids[i], ids[j])
		}
		return cmp.Compare(rank[i], rank[j])
	})
}

// holdingUses places each use in a holding: the last of its client's
// whose acquire returned by the time the use returned, the one it can
// have been made under. The uses of the p-th holding (of the sorted
// acquires) are uses[useStart[p]:useStart[p+1]], in order of call. ok is
// false when a use returned before any acquire of its client did: it
// belongs to no holding.
func (g *lockOpsByClient) holdingUses() (uses, useStart []int32, ok bool) {
	ops := g.ops
	holding := make([]int32, len(ops)) // each acquire's place in acquires, then each use's holding
	for p, a := range g.acquires {
		holding[a] = int32(p)
	}
	useStart = make([]int32, len(g.acquires)+1)
	for c := range int32(g.clients) {
		as := g.of(c, okAcquire)
		for _, u := range g.of(c, okUse) {
			k := sort.Search(len(as), func(k int) bool { return ops[as[k]].Return > ops[u].Return }) - 1
			if k < 0 {
				return nil, nil, false
			}
			holding[u] = holding[as[k]]
			useStart[holding[u]+1]++
		}
	}
	for p := 1; p < len(useStart); p++ {
		useStart[p] += useStart[p-1]
	}
	uses = make([]int32, useStart[len(g.acquires)])
	fill := slices.Clone(useStart[:len(g.acquires)])
	for c := range int32(g.clients) {
		for _, u := range g.of(c, okUse) {
			uses[fill[holding[u]]] = u
			fill[holding[u]]++
		}
	}
	return uses, useStart, true
}

// witnessOrder lays out the witness: each holding in turn, as its
// acquire, its uses and its release; and every other operation, by
// return, right before the first operation that must follow it (one
// called after it returned), as late as real time lets it go, where it
// constrains the fewest.
func (g *lockOpsByClient) witnessOrder(release, uses, useStart []int32) []int32 {
	ops, other := g.ops, g.other
	slices.SortFunc(other, func(i, j int32) int {
		if ops[i].Return != ops[j].Return {
			return cmp.Compare(ops[i].Return, ops[j].Return)
		}
		return cmp.Compare(i, j)
	})
	order := make([]int32, 0, len(ops))
	latest := int64(math.MinInt64)
	emit := func(i int32) {
		latest = max(latest, ops[i].Call)
		for len(other) > 0 && ops[other[0]].Return < latest {
			order = append(order, other[0])
			other = other[1:]
		}
		order = append(order, i)
	}
	for p, a := range g.acquires {
		emit(a)
		for _, u := range uses[useStart[p]:useStart[p+1]] {
			emit(u)
		}
		if r := release[a]; r >= 0 {
			emit(r)
		}
	}
	return append(order, other...)
}
