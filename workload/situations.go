package workload

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"github.com/zksim/zksim/models"
)

// situation is a recipe-level situation a run of a kind may reach: the
// contention, waits and recoveries that make its pass worth something (a
// lock whose clients never waited for each other proved little). It is
// counted from the run's history, so both worlds count it the same way.
type situation struct {
	name  string
	count func(ops []models.Operation) int
}

// The situations common to every kind.
var unknownOutcomes = situation{"calls with an unknown outcome (connection lost in flight)", func(ops []models.Operation) int {
	return countOps(ops, func(op models.Operation) bool { return op.Result == models.Unknown })
}}

// The situations of the kinds whose clients hold something (locks,
// leadership).
var (
	waitedForHolder = situation{"acquires that waited for a holder", func(ops []models.Operation) int {
		byPath := map[string]*pathHolds{}
		for _, h := range holdsOf(ops) {
			p := byPath[h.path]
			if p == nil {
				p = &pathHolds{}
				byPath[h.path] = p
			}
			p.holds = append(p.holds, h)
		}
		for _, p := range byPath {
			p.index()
		}
		return countOps(ops, func(op models.Operation) bool {
			p := byPath[op.Path]
			return op.Kind == models.Acquire && op.Result == models.OK && p != nil && p.heldDuring(op.Call, op.Return, op.Shared)
		})
	}}
	fenceRefused = situation{"uses a fence refused (a stale token)", func(ops []models.Operation) int {
		return countOps(ops, func(op models.Operation) bool { return op.Kind == models.Use && op.Result == models.Rejected })
	}}
	readsTogether = situation{"reads that held the lock together", func(ops []models.Operation) int {
		var reads []hold
		for _, h := range holdsOf(ops) {
			if h.shared {
				reads = append(reads, h)
			}
		}
		slices.SortStableFunc(reads, func(a, b hold) int { return cmp.Compare(a.from, b.from) })
		n := 0
		var under []hold // the reads begun so far and not yet ended
		for _, r := range reads {
			under = slices.DeleteFunc(under, func(o hold) bool { return o.to <= r.from })
			for _, o := range under {
				if o.path == r.path && o.client != r.client {
					n++
				}
			}
			under = append(under, r)
		}
		return n
	}}
	withdrawals = situation{"waits given up (candidates withdrawn)", func(ops []models.Operation) int {
		return countOps(ops, func(op models.Operation) bool { return op.Kind == models.Withdraw })
	}}
	revocationsSettled = situation{"revocations settled", func(ops []models.Operation) int {
		return countOps(ops, func(op models.Operation) bool { return op.Kind == models.Revoke && op.Result == models.OK })
	}}
)

// The situations of queues, barriers and the rest.
var (
	takesWaitedForPut = situation{"takes that waited for a put", func(ops []models.Operation) int {
		putCall := map[string]int64{}
		for _, op := range ops {
			if op.Kind == models.Put {
				putCall[op.Path+"\x00"+op.Data] = op.Call
			}
		}
		return countOps(ops, func(op models.Operation) bool {
			c, ok := putCall[op.Path+"\x00"+op.OutData]
			return op.Kind == models.Take && op.Result == models.OK && ok && op.Call < c
		})
	}}
	passesWaited = situation{"waits at a raised barrier", func(ops []models.Operation) int {
		first := firstCalls(ops, models.Lower, models.Pass)
		lowers := map[string][]int64{} // by barrier: when each Lower was called
		for s, at := range first {
			if s.kind == models.Lower {
				lowers[s.path] = append(lowers[s.path], at)
			}
		}
		return countOps(ops, func(pass models.Operation) bool {
			call := first[step{pass.Path, pass.Client, pass.Kind}]
			return pass.Kind == models.Pass && pass.Result == models.OK &&
				slices.ContainsFunc(lowers[pass.Path], func(at int64) bool { return call < at && at < pass.Return })
		})
	}}
	entersWaited = situation{"enters that waited for the others", waitedForLast(models.Enter)}
	leavesWaited = situation{"leaves that waited for the others", waitedForLast(models.Leave)}
	committed    = situation{"transactions committed", decided("commit")}
	aborted      = situation{"transactions aborted", decided("abort")}
	viewsChanged = situation{"views that changed", func(ops []models.Operation) int {
		return countChanges(ops, models.View, func(op models.Operation) string { return op.OutData })
	}}
	membersFailed = situation{"members that failed", func(ops []models.Operation) int {
		return countOps(ops, func(op models.Operation) bool { return op.Kind == models.Fail })
	}}
	newerConfig = situation{"reads of a newer configuration", func(ops []models.Operation) int {
		return countChanges(ops, models.Read, func(op models.Operation) string { return strconv.Itoa(int(op.OutVersion)) })
	}}
	namesTaken = situation{"registrations refused (the name taken)", func(ops []models.Operation) int {
		return countOps(ops, func(op models.Operation) bool { return op.Kind == models.Register && op.Result == models.NodeExists })
	}}
	syncedReads = situation{"reads after a sync", func(ops []models.Operation) int {
		return countOps(ops, func(op models.Operation) bool { return op.Synced })
	}}
)

// Situations counts, by name, the situations the operations of a run of
// the kind reached (those reached none times left out).
func (k *Kind) Situations(ops []models.Operation) map[string]int {
	c := map[string]int{}
	for _, s := range append([]situation{unknownOutcomes}, k.situations...) {
		if n := s.count(ops); n > 0 {
			c[s.name] += n
		}
	}
	return c
}

// SituationNames are the names of the kind's situations.
func (k *Kind) SituationNames() []string {
	names := []string{unknownOutcomes.name}
	for _, s := range k.situations {
		names = append(names, s.name)
	}
	return names
}

func countOps(ops []models.Operation, f func(models.Operation) bool) int {
	n := 0
	for _, op := range ops {
		if f(op) {
			n++
		}
	}
	return n
}

// hold is a client's holding of a lock: from its acquire's return to its
// release's (or the end of the run).
type hold struct {
	client   int
	path     string
	shared   bool
	from, to int64
}

func holdsOf(ops []models.Operation) []hold {
	var out []hold
	type key struct {
		client int
		path   string
	}
	open := map[key]int{} // its hold in out
	for _, op := range ops {
		k := key{op.Client, op.Path}
		switch {
		case op.Kind == models.Acquire && op.Result == models.OK:
			open[k] = len(out)
			out = append(out, hold{client: op.Client, path: op.Path, shared: op.Shared, from: op.Return, to: math.MaxInt64})
		case op.Kind == models.Release:
			if i, ok := open[k]; ok {
				out[i].to = op.Return
				delete(open, k)
			}
		}
	}
	return out
}

// pathHolds are the holds of one lock, by when they began, with the
// latest end among the first i of them (all, and the exclusive ones).
type pathHolds struct {
	holds            []hold
	maxTo, maxExclTo []int64
}

func (p *pathHolds) index() {
	slices.SortStableFunc(p.holds, func(a, b hold) int { return cmp.Compare(a.from, b.from) })
	all, excl := int64(math.MinInt64), int64(math.MinInt64)
	for _, h := range p.holds {
		all = max(all, h.to)
		if !h.shared {
			excl = max(excl, h.to)
		}
		p.maxTo, p.maxExclTo = append(p.maxTo, all), append(p.maxExclTo, excl)
	}
}

// heldDuring reports whether a hold that keeps out an acquire (shared: a
// read, kept out by writes only) was under way between its call and its
// return: one that began before the return and ended after the call. The
// acquire's own hold begins at its return; the client's earlier ones ended
// before its call.
func (p *pathHolds) heldDuring(call, ret int64, shared bool) bool {
	i, _ := slices.BinarySearchFunc(p.holds, ret, func(h hold, t int64) int { return cmp.Compare(h.from, t) })
	if i == 0 {
		return false
	}
	if shared {
		return p.maxExclTo[i-1] > call
	}
	return p.maxTo[i-1] > call
}

// waitedForLast counts the operations of kind k (a double barrier's enter
// or leave) that returned after, and were called before, the last call of
// k on their barrier: those that waited for the others. A process's step
// is called at its first call: one made again after an error is the same
// step.
func waitedForLast(k models.OpKind) func(ops []models.Operation) int {
	return func(ops []models.Operation) int {
		first := firstCalls(ops, k)
		last := map[string]int64{}
		for s, t := range first {
			last[s.path] = max(last[s.path], t)
		}
		return countOps(ops, func(op models.Operation) bool {
			call := first[step{op.Path, op.Client, k}]
			return op.Kind == k && op.Result == models.OK && call < last[op.Path] && op.Return > last[op.Path]
		})
	}
}

// step is one client's step of one kind on one object (a barrier's pass,
// a double barrier's enter), which the workloads of those kinds make once
// per object, calling again after an error.
type step struct {
	path   string
	client int
	kind   models.OpKind
}

// firstCalls is when each step of the given kinds was first called: a call
// made again after an error is the same step (as models.withRetries reads
// it).
func firstCalls(ops []models.Operation, kinds ...models.OpKind) map[step]int64 {
	first := map[step]int64{}
	for _, op := range ops {
		s := step{op.Path, op.Client, op.Kind}
		if t, ok := first[s]; slices.Contains(kinds, op.Kind) && (!ok || op.Call < t) {
			first[s] = op.Call
		}
	}
	return first
}

// decided counts the transactions whose coordinator learnt decision.
func decided(decision string) func(ops []models.Operation) int {
	return func(ops []models.Operation) int {
		return countOps(ops, func(op models.Operation) bool {
			return op.Kind == models.Propose && op.Result == models.OK && op.OutData == decision
		})
	}
}

// countChanges counts, per client, the operations of kind k whose value
// differs from the client's previous one of that kind.
func countChanges(ops []models.Operation, k models.OpKind, value func(models.Operation) string) int {
	prev := map[int]string{}
	n := 0
	for _, op := range ops {
		if op.Kind != k || op.Result != models.OK {
			continue
		}
		v := value(op)
		if p, ok := prev[op.Client]; ok && p != v {
			n++
		}
		prev[op.Client] = v
	}
	return n
}
