package models

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

func init() {
	register(Checker{
		Name:  "liveness",
		Kind:  Liveness,
		Doc:   "no client keeps waiting (for a lock, an item, a barrier, a decision) when nothing blocks it",
		Check: checkLiveness,
	})
}

// checkLiveness is the liveness checker. It flags a client that keeps
// waiting although nothing should block it. Every waiting operation of every
// recipe kind is judged the same way: what blocks it is worked out from the
// history (spans of virtual time, below), and the rest of its wait is "free
// waiting".
//
//   - A wait whose free waiting exceeds the bound (Input.BoundOrDefault: it
//     covers a dead holder's session timeout and an election) is a
//     violation, shown at the instant the free waiting reached the bound.
//   - In a Stuck run (nothing could happen any more), a wait still Pending
//     at the end that nothing blocks at the end would wait for ever: a
//     violation at once, shown at the end.
//
// A wait lasts from its Call to its Return (Input.End when Pending), or to
// its client's Fail when the client's process stopped first (then it is no
// longer waiting, and never "waits for ever"). A client's process stopped
// at the Call of its first Fail, on whatever Path: a process stops as a
// whole.
//
// What blocks each kind of wait (one violation per object and kind of
// wait, naming the first wait that shows it and the others it explains):
//
//   - Acquire (per Path): other clients' holdings. A holding lasts from an
//     OK Acquire's Return to the Return of the holder's next Release, or to
//     its Fail (its node goes when its session expires, which the bound
//     covers), or for ever. An exclusive acquire is blocked by any holding;
//     a Shared one by exclusive holdings, and also by the exclusive
//     acquires of other clients that may have queued before it, while they
//     wait and hold: a reader queues behind a waiting writer, and if that
//     writer waits for nothing it is the writer that is reported, once. A
//     writer may have queued before a reader called before it: the
//     reader's node may have been created as late as its acquire returned
//     (its server lagged, its create was retried), so a writer's wait
//     blocks every reader waiting meanwhile. A lock that nobody
//     holds while a waiter waits is an orphaned lock node: the node a lost
//     create() reply left behind, which the waiter waits for.
//   - Take (per Path): an empty queue. The items available at t are the
//     Puts that returned OK by t minus the Takes that returned OK by t,
//     never below zero; a Take of Unknown result counts as having taken an
//     item at its Call (it may have), a Put of Unknown result as having put
//     none, so that doubt never makes a violation.
//   - Pass (per Path): the barrier, until the first Lower returned OK.
//   - Enter (per Path): the double barrier, until Size distinct clients had
//     called Enter and not failed (Size inferred as in the double-barrier
//     check when Input.Size is 0).
//   - Leave (per Path): every client whose Enter returned OK, until it
//     called Leave or failed.
//   - Propose and Vote (per transaction Path): the 2pc termination. When no
//     Fail is recorded on the transaction, a Propose or Vote still Pending
//     at the end, called more than the bound before the end (or in a Stuck
//     run), is a violation: the decision was never reached although no
//     site failed.
func checkLiveness(in *Input) []Violation {
	kinds := kindsOf(in.Ops) // each rule judges only waits of its kinds
	stops := map[int]int64{}
	if kinds.hasAny(Fail) {
		stops = stopTimes(in.Ops)
	}
	var out []Violation
	if kinds.hasAny(Acquire) {
		out = append(out, acquireLiveness(in, stops)...)
	}
	if kinds.hasAny(Take) {
		out = append(out, takeLiveness(in, stops)...)
	}
	if kinds.hasAny(Pass) {
		out = append(out, passLiveness(in, stops)...)
	}
	if kinds.hasAny(Enter, Leave) {
		out = append(out, doubleBarrierLiveness(in, stops)...)
	}
	if kinds.hasAny(Propose, Vote) {
		out = append(out, twoPhaseCommitLiveness(in, stops)...)
	}
	sortViolations(out)
	return out
}

// timeSpan is the virtual time [from, to): a span during which a wait is
// blocked. math.MinInt64 and math.MaxInt64 stand for "since ever" and "for
// ever".
type timeSpan struct{ from, to int64 }

// covers says whether t is in s.
func (s timeSpan) covers(t int64) bool { return s.from <= t && t < s.to }

// freeStretches is [from, to] less the blocked spans: the stretches of a
// wait that nothing blocked, in order.
func freeStretches(from, to int64, blocked []timeSpan) []timeSpan {
	spans := slices.Clone(blocked)
	slices.SortFunc(spans, func(a, b timeSpan) int { return cmp.Compare(a.from, b.from) })
	var out []timeSpan
	at := from
	for _, s := range spans {
		if s.to <= at {
			continue
		}
		if s.from >= to {
			break
		}
		if s.from > at {
			out = append(out, timeSpan{at, s.from})
		}
		at = s.to
		if at >= to {
			return out
		}
	}
	if at < to {
		out = append(out, timeSpan{at, to})
	}
	return out
}

// lateWait is one wait the liveness check faults.
type lateWait struct {
	op      Operation
	end     int64 // the wait's end: Return, Input.End when Pending, or the client's stop
	at      int64 // when it shows: the free waiting reached the bound, or the stuck end
	since   int64 // the start of the free stretch it shows in
	free    int64 // the free waiting, in all
	forever bool  // Pending in a Stuck run and free at the end
}

// waitEnd is when op's wait ended: its Return, Input.End when it is
// Pending, or its client's stop if that came first (stopped is then true).
func waitEnd(in *Input, op Operation, stops map[int]int64) (end int64, stopped bool) {
	end = op.Return
	if op.Pending() {
		end = in.End
	}
	if s, has := stops[op.Client]; has && s >= op.Call && s < end {
		return s, true
	}
	return end, false
}

// judgeWait decides whether op, blocked by the given spans, waited too long
// for nothing; ok is false when it did not.
func judgeWait(in *Input, op Operation, stops map[int]int64, blocked []timeSpan) (w lateWait, ok bool) {
	end, stopped := waitEnd(in, op, stops)
	if end < op.Call {
		return lateWait{}, false
	}
	blocked = slices.DeleteFunc(slices.Clone(blocked), func(b timeSpan) bool { return b.from > end || b.to <= op.Call })
	bound := int64(in.BoundOrDefault())
	w = lateWait{op: op, end: end}
	acc := int64(0)
	stretches := freeStretches(op.Call, end, blocked)
	for _, s := range stretches {
		if !ok && acc+(s.to-s.from) > bound {
			w.at, w.since, ok = s.from+(bound-acc), s.from, true
		}
		acc += s.to - s.from
	}
	w.free = acc
	if ok {
		return w, true
	}
	if !in.Stuck || !op.Pending() || stopped {
		return lateWait{}, false
	}
	for _, b := range blocked {
		if b.covers(end) {
			return lateWait{}, false
		}
	}
	w.forever, w.at, w.since = true, end, end
	if n := len(stretches); n > 0 && stretches[n-1].to == end {
		w.since = stretches[n-1].from
	}
	return w, true
}

// waitStory says how one kind of wait is told in a violation.
type waitStory struct {
	what string // what the client waited for: "for the lock /l"
	free string // what held while nothing blocked it: "nobody held it"
	hint string // a guess at the cause, or ""
}

// lateWaitsViolation is the one violation that the late waits on one
// object tell, described by the first of them.
func lateWaitsViolation(in *Input, object string, ws []lateWait, story func(Operation) waitStory) Violation {
	slices.SortFunc(ws, func(a, b lateWait) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.op.Client, b.op.Client), cmp.Compare(a.op.Call, b.op.Call))
	})
	w, st := ws[0], story(ws[0].op)
	var msg string
	if w.forever {
		msg = fmt.Sprintf("c%d waited %s %s (from %s) and would have waited for ever (the run got stuck at %s), though %s since %s",
			w.op.Client+1, time.Duration(w.end-w.op.Call), st.what, in.Since(w.op.Call), in.Since(w.end), st.free, in.Since(w.since))
	} else {
		msg = fmt.Sprintf("c%d waited %s %s (from %s), %s of it while %s (since %s), more than the bound (%s)",
			w.op.Client+1, time.Duration(w.end-w.op.Call), st.what, in.Since(w.op.Call), time.Duration(w.free), st.free,
			in.Since(w.since), in.BoundOrDefault())
	}
	msg += st.hint
	ops := []Operation{w.op}
	if len(ws) > 1 {
		var others []string
		for _, o := range ws[1:] {
			others = append(others, fmt.Sprintf("c%d from %s", o.op.Client+1, in.Since(o.op.Call)))
			ops = append(ops, o.op)
		}
		msg += "; so did " + strings.Join(others, ", ")
	}
	sortOps(ops)
	return Violation{Check: "liveness", Kind: Liveness, Object: object, At: w.at - in.Start, Message: msg, Ops: ops}
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

// clientIDs numbers the clients of ops[idx] 0, 1, ... in order of client,
// and returns each one's number and how many there are.
func clientIDs(ops []Operation, idx []int32) (ids []int32, n int) {
	return numberClients(len(idx), func(k int) int { return ops[idx[k]].Client })
}

// numberClients numbers the clients of n operations (client(k) is the k-th
// one's) 0, 1, ... in order of client, and returns each operation's number
// and how many clients there are. Clients numbered closely (as workloads
// number them) are counted in an array, others sorted.
func numberClients(n int, client func(k int) int) (ids []int32, clients int) {
	ids = make([]int32, n)
	if n == 0 {
		return ids, 0
	}
	lo, hi := client(0), client(0)
	for k := range n {
		lo, hi = min(lo, client(k)), max(hi, client(k))
	}
	if uint64(hi-lo) < uint64(4*n+64) {
		num := make([]int32, hi-lo+1)
		for k := range n {
			num[client(k)-lo] = 1
		}
		for c := range num {
			if num[c] == 1 {
				num[c] = int32(clients)
				clients++
			} else {
				num[c] = -1
			}
		}
		for k := range n {
			ids[k] = num[client(k)-lo]
		}
		return ids, clients
	}
	sorted := make([]int, n)
	for k := range n {
		sorted[k] = client(k)
	}
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	for k := range n {
		c, _ := slices.BinarySearch(sorted, client(k))
		ids[k] = int32(c)
	}
	return ids, len(sorted)
}

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
					return waitStory{"for a shared lock on " + p, "no writer held it or queued before it", ": an orphaned node?"}
				}
				return waitStory{"for the lock " + p, "nobody held it", ": an orphaned node?"}
			}))
		}
	}
	return out
}

// mayWaitLong reports whether some wait of kind among ops[idx] could be
// one judgeWait faults: one that lasted longer than the bound, or in a
// Stuck run, one still pending at the end whose client had not stopped.
// None blocked or not, a wait of neither sort waited free no longer than
// it lasted, nor for ever.
func mayWaitLong(in *Input, idx []int32, kind OpKind, stops map[int]int64) bool {
	bound := int64(in.BoundOrDefault())
	for _, i := range idx {
		w := &in.Ops[i]
		if w.Kind != kind || (w.Result != OK && w.Result != Pending) {
			continue
		}
		end, stopped := waitEnd(in, *w, stops)
		if end >= w.Call && (end-w.Call > bound || in.Stuck && w.Pending() && !stopped) {
			return true
		}
	}
	return false
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

// ownedSpan is a span during which its owner's waits are not blocked and
// every other client's are (owner -1: everyone's are). Owners are
// numbered 0, 1, ... (clientIDs).
type ownedSpan struct {
	span  timeSpan
	owner int32
}

// blockTimeline is when owned spans block whom, for judging many waits
// against them (judgeWait's rule, each in logarithmic time). The empty
// spans block no one, but a free stretch of a wait ends at each one that
// is not its own (freeStretches), so they are kept as points.
type blockTimeline struct {
	// bounds are the distinct ends of the nonempty spans; label[k] says
	// who held [bounds[k], bounds[k+1]) (after the last bound, nobody):
	// free (nobody), several (more than one owner), or the one owner.
	bounds []int64
	label  []int32
	// zfree[k] is how long nobody held anything in [bounds[0], bounds[k]].
	zfree []int64
	// prevHeld[k] is the last segment up to k somebody held (-1 if
	// none); for such a segment, prevOther[k] is the last before it held
	// by somebody else (another owner, or several).
	prevHeld, prevOther []int32
	// own[ownFrom[c]:ownFrom[c+1]] are the segments owner c alone held, in
	// order; ownSum[ownFrom[c]+j] is the length of the first j of them.
	own     []int32
	ownFrom []int32
	ownSum  []int64
	// points are the empty spans, in order, with their owners, and for
	// each the last one before it of another owner (-1 if none).
	points      []int64
	pointOwner  []int32
	prevOtherPt []int32
}

const (
	freeSegment    = -1
	severalHolders = -2
	ownsNothing    = -3 // the number of a waiter that owns no span
)

// newBlockTimeline sorts out spans (reordered), whose owners are numbered
// below owners.
func newBlockTimeline(spans []ownedSpan, owners int) *blockTimeline {
	tl := &blockTimeline{}
	type event struct {
		at    int64
		owner int32
		delta int32
	}
	events := make([]event, 0, 2*len(spans))
	for _, s := range spans {
		if s.owner < 0 {
			s.owner = int32(owners) // everyone's: a number no waiter has
		}
		if s.span.from == s.span.to {
			tl.points = append(tl.points, s.span.from)
			tl.pointOwner = append(tl.pointOwner, s.owner)
			continue
		}
		if s.span.from < s.span.to {
			events = append(events, event{s.span.from, s.owner, +1}, event{s.span.to, s.owner, -1})
		}
	}
	slices.SortFunc(events, func(a, b event) int { return cmp.Compare(a.at, b.at) })
	held := make([]int32, owners+1) // how many spans of each owner are open
	open, sum := 0, int64(0)        // how many owners have spans open, and the sum of their numbers
	segments := 0
	for e := range events {
		if e == 0 || events[e].at != events[e-1].at {
			segments++
		}
	}
	tl.bounds, tl.label = make([]int64, 0, segments), make([]int32, 0, segments)
	tl.ownFrom = make([]int32, owners+2)
	for e := 0; e < len(events); {
		at := events[e].at
		for ; e < len(events) && events[e].at == at; e++ {
			ev := events[e]
			if held[ev.owner] == 0 {
				open++
				sum += int64(ev.owner)
			}
			held[ev.owner] += ev.delta
			if held[ev.owner] == 0 {
				open--
				sum -= int64(ev.owner)
			}
		}
		l := int32(freeSegment)
		switch {
		case open == 1:
			l = int32(sum)
			tl.ownFrom[l+1]++
		case open > 1:
			l = severalHolders
		}
		tl.bounds = append(tl.bounds, at)
		tl.label = append(tl.label, l)
	}
	m := len(tl.bounds)
	tl.zfree = make([]int64, m)
	tl.prevHeld = make([]int32, m)
	tl.prevOther = make([]int32, m)
	for c := 1; c < len(tl.ownFrom); c++ {
		tl.ownFrom[c] += tl.ownFrom[c-1]
	}
	tl.own = make([]int32, tl.ownFrom[len(tl.ownFrom)-1])
	tl.ownSum = make([]int64, len(tl.own)+len(tl.ownFrom)-1)
	next := slices.Clone(tl.ownFrom)
	last := int32(-1)
	for k := range m {
		if k > 0 {
			tl.zfree[k] = tl.zfree[k-1]
			if tl.label[k-1] == freeSegment {
				tl.zfree[k] = satAdd(tl.zfree[k], tl.bounds[k]-tl.bounds[k-1])
			}
		}
		tl.prevOther[k] = -1
		if l := tl.label[k]; l != freeSegment {
			switch {
			case last < 0:
			case tl.label[last] != l:
				tl.prevOther[k] = last
			default:
				tl.prevOther[k] = tl.prevOther[last]
			}
			last = int32(k)
			if l >= 0 {
				tl.own[next[l]] = int32(k)
				next[l]++
			}
		}
		tl.prevHeld[k] = last
	}
	// ownSum: owner c's sums are ownSum[ownFrom[c]+c:], one more than its
	// segments.
	for c := 0; c+1 < len(tl.ownFrom); c++ {
		base := int(tl.ownFrom[c]) + c
		for j, k := range tl.own[tl.ownFrom[c]:tl.ownFrom[c+1]] {
			tl.ownSum[base+j+1] = satAdd(tl.ownSum[base+j], tl.bounds[k+1]-tl.bounds[k])
		}
	}
	// points, in order, each with the last one before it of another owner.
	if len(tl.points) > 0 {
		order := make([]int, len(tl.points))
		for j := range order {
			order[j] = j
		}
		slices.SortFunc(order, func(a, b int) int { return cmp.Compare(tl.points[a], tl.points[b]) })
		pts, owns := make([]int64, len(order)), make([]int32, len(order))
		for j, o := range order {
			pts[j], owns[j] = tl.points[o], tl.pointOwner[o]
		}
		tl.points, tl.pointOwner = pts, owns
		tl.prevOtherPt = make([]int32, len(pts))
		for j := range pts {
			switch {
			case j == 0:
				tl.prevOtherPt[j] = -1
			case owns[j-1] != owns[j]:
				tl.prevOtherPt[j] = int32(j - 1)
			default:
				tl.prevOtherPt[j] = tl.prevOtherPt[j-1]
			}
		}
	}
	return tl
}

// satAdd is a+b, no more than math.MaxInt64 (a, b ≥ 0).
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// segment is the index of the segment holding t (the last bound at or
// before t; -1 before the first), or, if before, of the one holding the
// instants just before t.
func (tl *blockTimeline) segment(t int64, before bool) int {
	if before {
		return sort.Search(len(tl.bounds), func(k int) bool { return tl.bounds[k] >= t }) - 1
	}
	return sort.Search(len(tl.bounds), func(k int) bool { return tl.bounds[k] > t }) - 1
}

// freeFor reports whether segment k (-1: before the first bound) blocks
// no wait of owner id.
func (tl *blockTimeline) freeFor(id int32, k int) bool {
	return k < 0 || tl.label[k] == freeSegment || tl.label[k] == id
}

// freeTime is how long, in [bounds[0], t] (negative before it), owner id
// was blocked by no one: nobody held anything, or only it did. Waits are
// measured by its differences.
func (tl *blockTimeline) freeTime(id int32, t int64) int64 {
	if len(tl.bounds) == 0 {
		return t
	}
	k := tl.segment(t, false)
	if k < 0 {
		return t - tl.bounds[0]
	}
	free := tl.zfree[k]
	if tl.label[k] == freeSegment {
		free += t - tl.bounds[k]
	}
	if id < 0 || int(id)+1 >= len(tl.ownFrom) {
		return free
	}
	from := tl.ownFrom[id]
	segs, sum := tl.own[from:tl.ownFrom[id+1]], tl.ownSum[int(from)+int(id):]
	j := sort.Search(len(segs), func(j int) bool { return tl.bounds[segs[j]] > t }) - 1
	if j < 0 {
		return free
	}
	s := segs[j]
	return free + sum[j] + min(t, tl.bounds[s+1]) - tl.bounds[s]
}

// stretchStart is where the free stretch of a wait (by owner id, free
// from start on) that holds the instant t begins, or, if
// before, the one that ends at t (which must be free just before t):
// after the last span that blocked it, and after the last empty span of
// another client (freeStretches ends a stretch at each).
func (tl *blockTimeline) stretchStart(id int32, start, t int64, before bool) int64 {
	from := start
	if k := tl.segment(t, before); k >= 0 {
		j := tl.prevHeld[k]
		if j >= 0 && tl.label[j] == id {
			j = tl.prevOther[j]
		}
		if j >= 0 {
			from = max(from, tl.bounds[j+1])
		}
	}
	var j int
	if before {
		j = sort.Search(len(tl.points), func(j int) bool { return tl.points[j] >= t }) - 1
	} else {
		j = sort.Search(len(tl.points), func(j int) bool { return tl.points[j] > t }) - 1
	}
	if j >= 0 && tl.pointOwner[j] == id {
		j = int(tl.prevOtherPt[j])
	}
	if j >= 0 {
		from = max(from, tl.points[j])
	}
	return from
}

// crossing is the instant at which owner id, waiting from start, has
// waited free for bound: the last instant t with
// freeTime(t)-freeTime(start) ≤ bound. It must come before the wait ends.
func (tl *blockTimeline) crossing(id int32, start, bound int64) int64 {
	base := tl.freeTime(id, start)
	target := base + bound
	k := sort.Search(len(tl.bounds), func(k int) bool { return tl.freeTime(id, tl.bounds[k]) > target }) - 1
	if k < 0 || tl.bounds[k] < start {
		return start + bound // in the free segment where start is
	}
	return tl.bounds[k] + (target - tl.freeTime(id, tl.bounds[k]))
}

// judgeWait is judgeWait (the function) for the wait op by owner id,
// blocked by the timeline's spans that are not its own and, when ahead is
// later than its call, from its call until ahead.
func (tl *blockTimeline) judgeWait(in *Input, op *Operation, id int32, stops map[int]int64, ahead int64) (w lateWait, ok bool) {
	end, stopped := waitEnd(in, *op, stops)
	if end < op.Call {
		return lateWait{}, false
	}
	start := min(max(op.Call, ahead), end) // free from then on, but for the spans
	free := tl.freeTime(id, end) - tl.freeTime(id, start)
	bound := int64(in.BoundOrDefault())
	w = lateWait{op: *op, end: end, free: free}
	if free > bound {
		w.at = tl.crossing(id, start, bound)
		w.since = tl.stretchStart(id, start, w.at, false)
		return w, true
	}
	if !in.Stuck || !op.Pending() || stopped || ahead > end || !tl.freeFor(id, tl.segment(end, false)) {
		return lateWait{}, false
	}
	w.forever, w.at, w.since = true, end, end
	if tl.freeFor(id, tl.segment(end, true)) {
		if from := tl.stretchStart(id, start, end, true); from < end {
			w.since = from
		}
	}
	return w, true
}

// takeLiveness judges the waits for a queue's items.
func takeLiveness(in *Input, stops map[int]int64) []Violation {
	paths, byPath := opsByPath(in.Ops, Put, Take)
	var out []Violation
	for _, p := range paths {
		ops := byPath[p]
		empty := emptySpans(ops)
		spans := make([]ownedSpan, len(empty))
		for k, s := range empty {
			spans[k] = ownedSpan{s, -1}
		}
		tl := newBlockTimeline(spans, 0)
		var late []lateWait
		for k := range ops {
			w := &ops[k]
			if w.Kind != Take || (w.Result != OK && w.Result != Pending) {
				continue
			}
			if lw, ok := tl.judgeWait(in, w, ownsNothing, stops, math.MinInt64); ok {
				late = append(late, lw)
			}
		}
		if len(late) > 0 {
			out = append(out, lateWaitsViolation(in, p, late, func(Operation) waitStory {
				return waitStory{"for an item of " + p, "it had items", ""}
			}))
		}
	}
	return out
}

// emptySpans are the spans during which a queue had no item available: see
// the liveness check's doc.
func emptySpans(ops []Operation) []timeSpan {
	type change struct {
		at    int64
		delta int
	}
	var changes []change
	for _, op := range ops {
		switch {
		case op.Kind == Put && op.Result == OK:
			changes = append(changes, change{op.Return, +1})
		case op.Kind == Take && op.Result == OK:
			changes = append(changes, change{op.Return, -1})
		case op.Kind == Take && op.Result == Unknown:
			changes = append(changes, change{op.Call, -1})
		}
	}
	slices.SortFunc(changes, func(a, b change) int { return cmp.Compare(a.at, b.at) })
	var out []timeSpan
	items, emptyFrom := 0, int64(math.MinInt64)
	for i := 0; i < len(changes); {
		// The changes of one instant together: a put and a take at once
		// leave the count as it was.
		at, delta := changes[i].at, 0
		for ; i < len(changes) && changes[i].at == at; i++ {
			delta += changes[i].delta
		}
		items = max(0, items+delta)
		switch {
		case items > 0 && emptyFrom != math.MaxInt64:
			out = append(out, timeSpan{emptyFrom, at})
			emptyFrom = math.MaxInt64 // not empty
		case items == 0 && emptyFrom == math.MaxInt64:
			emptyFrom = at
		}
	}
	if emptyFrom != math.MaxInt64 {
		out = append(out, timeSpan{emptyFrom, math.MaxInt64})
	}
	return out
}

// passLiveness judges the waits to pass a barrier.
func passLiveness(in *Input, stops map[int]int64) []Violation {
	paths, byPath := opsByPath(in.Ops, Lower, Pass)
	var out []Violation
	for _, p := range paths {
		ops := byPath[p]
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
				return waitStory{"to pass the barrier " + p, "it was lowered", ""}
			}))
		}
	}
	return out
}

// doubleBarrierLiveness judges the waits to enter and to leave a double
// barrier.
func doubleBarrierLiveness(in *Input, stops map[int]int64) []Violation {
	paths, byPath := opsByPath(in.Ops, Enter, Leave)
	var out []Violation
	for _, p := range paths {
		ops := byPath[p]
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
				return waitStory{"to enter the double barrier " + p, fmt.Sprintf("%d processes had entered it", size), ""}
			}))
		}
		if len(lateLeave) > 0 {
			out = append(out, lateWaitsViolation(in, p, lateLeave, func(Operation) waitStory {
				return waitStory{"to leave the double barrier " + p, "every process that entered had left it or stopped", ""}
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

// twoPhaseCommitLiveness judges the 2pc termination: see the liveness
// check's doc.
func twoPhaseCommitLiveness(in *Input, stops map[int]int64) []Violation {
	paths, byPath := opsByPath(in.Ops, Propose, Vote, Fail)
	bound := int64(in.BoundOrDefault())
	var out []Violation
	for _, p := range paths {
		ops := byPath[p]
		if len(Of(ops, Fail)) > 0 {
			continue
		}
		var late []Operation
		for _, op := range ops {
			if op.Pending() && !stoppedBy(stops, op.Client, in.End) && (in.End-op.Call > bound || in.Stuck) {
				late = append(late, op)
			}
		}
		if len(late) == 0 {
			continue
		}
		first := late[0]
		at := in.End
		if in.End-first.Call > bound {
			at = first.Call + bound
		}
		msg := fmt.Sprintf("c%d's %s of %s, called at %s, was still waiting for the decision at the end (%s later)",
			first.Client+1, first.Kind, p, in.Since(first.Call), time.Duration(in.End-first.Call))
		if in.Stuck {
			msg += ", when the run got stuck"
		}
		msg += ", though no site failed: the decision was never reached"
		if len(late) > 1 {
			var others []string
			for _, op := range late[1:] {
				others = append(others, fmt.Sprintf("c%d's %s", op.Client+1, op.Kind))
			}
			msg += "; so was " + strings.Join(others, ", ")
		}
		out = append(out, Violation{Check: "liveness", Kind: Liveness, Object: p, At: at - in.Start, Message: msg, Ops: late})
	}
	return out
}
