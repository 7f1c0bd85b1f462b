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
	const (
		acq = iota
		rel
		use
		kinds
	)
	ids, clients := numberClients(len(ops), func(i int) int { return ops[i].Client })
	kind := make([]int8, len(ops)) // acq, rel, use, or -1: anything else
	start := make([]int32, clients*kinds+1)
	var acquires, other []int32
	for i := range ops {
		op := &ops[i]
		k := int8(-1)
		if op.Result == OK {
			switch op.Kind {
			case Acquire:
				k = acq
				acquires = append(acquires, int32(i))
			case Release:
				k = rel
			case Use:
				k = use
			}
		}
		kind[i] = k
		if k < 0 {
			other = append(other, int32(i))
			continue
		}
		start[int(ids[i])*kinds+int(k)+1]++
	}
	// byClient[start[c*kinds+k]:start[c*kinds+k+1]] are client c's
	// operations of kind k, in order of call.
	for j := 1; j < len(start); j++ {
		start[j] += start[j-1]
	}
	byClient := make([]int32, len(ops)-len(other))
	next := slices.Clone(start[:len(start)-1])
	for i := range ops {
		if k := kind[i]; k >= 0 {
			j := int(ids[i])*kinds + int(k)
			byClient[next[j]] = int32(i)
			next[j]++
		}
	}
	for j := 0; j+1 < len(start); j++ {
		slices.SortFunc(byClient[start[j]:start[j+1]], func(i, j int32) int {
			if ops[i].Call != ops[j].Call {
				return cmp.Compare(ops[i].Call, ops[j].Call)
			}
			return cmp.Compare(i, j)
		})
	}
	seg := func(c int32, k int) []int32 { return byClient[start[int(c)*kinds+k]:start[int(c)*kinds+k+1]] }
	// rank[a]: acquire a's place among its client's; release[a]: the
	// release of the same place, or -1.
	rank, release := make([]int32, len(ops)), make([]int32, len(ops))
	for c := range int32(clients) {
		as, rs := seg(c, acq), seg(c, rel)
		if len(rs) > len(as) {
			return nil
		}
		for k, a := range as {
			rank[a], release[a] = int32(k), -1
			if k < len(rs) {
				release[a] = rs[k]
			}
		}
	}
	// The holdings, by their acquires' return (a history usually comes in
	// that order already).
	slices.SortFunc(acquires, func(i, j int32) int {
		switch {
		case ops[i].Return != ops[j].Return:
			return cmp.Compare(ops[i].Return, ops[j].Return)
		case ids[i] != ids[j]:
			return cmp.Compare(ids[i], ids[j])
		}
		return cmp.Compare(rank[i], rank[j])
	})
	holding := make([]int32, len(ops)) // each acquire's place in acquires, then each use's holding
	for p, a := range acquires {
		holding[a] = int32(p)
	}
	// The uses of each holding, in order of call.
	useStart := make([]int32, len(acquires)+1)
	for c := range int32(clients) {
		as := seg(c, acq)
		for _, u := range seg(c, use) {
			k := sort.Search(len(as), func(k int) bool { return ops[as[k]].Return > ops[u].Return }) - 1
			if k < 0 {
				return nil
			}
			holding[u] = holding[as[k]]
			useStart[holding[u]+1]++
		}
	}
	for p := 1; p < len(useStart); p++ {
		useStart[p] += useStart[p-1]
	}
	uses := make([]int32, useStart[len(acquires)])
	fill := slices.Clone(useStart[:len(acquires)])
	for c := range int32(clients) {
		for _, u := range seg(c, use) {
			uses[fill[holding[u]]] = u
			fill[holding[u]]++
		}
	}
	// The rest, by return: each goes right before the first operation
	// that must follow it.
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
	for p, a := range acquires {
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
