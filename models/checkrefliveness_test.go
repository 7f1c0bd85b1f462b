package models

// The herd and liveness checks as they were before they were made
// n·log n: the reference the differential tests (herdliveness_test.go)
// compare them with. Verbatim but for names, prefixed ref.

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// refCheckLiveness is the liveness checker. It flags a client that keeps
// waiting although nothing should block it. Every waiting operation of every
// recipe kind is judged the same way: what blocks it is worked out from the
// history (spans of virtual time, below), and the rest of its wait is "free
// waiting".
//
//   - A wait whose free waiting exceeds the bound (Input.BoundOrDefault: it
//     refCovers a dead holder's session timeout and an election) is a
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
//     refCovers), or for ever. An exclusive acquire is blocked by any holding;
//     a Shared one by exclusive holdings, and also by the exclusive
//     acquires of other clients called before it returned (its node may
//     have been created as late as that), while they wait and hold: a
//     reader queues behind a waiting writer, and if that writer waits for
//     nothing it is the writer that is reported, once. A lock that nobody
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
func refCheckLiveness(in *Input) []Violation {
	stops := refStopTimes(in.Ops)
	var out []Violation
	out = append(out, refAcquireLiveness(in, stops)...)
	out = append(out, refTakeLiveness(in, stops)...)
	out = append(out, refPassLiveness(in, stops)...)
	out = append(out, refDoubleBarrierLiveness(in, stops)...)
	out = append(out, refTwoPhaseCommitLiveness(in, stops)...)
	sortViolations(out)
	return out
}

// refTimeSpan is the virtual time [from, to): a span during which a wait is
// blocked. math.MinInt64 and math.MaxInt64 stand for "since ever" and "for
// ever".
type refTimeSpan struct{ from, to int64 }

// refCovers says whether t is in s.
func (s refTimeSpan) refCovers(t int64) bool { return s.from <= t && t < s.to }

// refFreeStretches is [from, to] less the blocked spans: the stretches of a
// wait that nothing blocked, in order.
func refFreeStretches(from, to int64, blocked []refTimeSpan) []refTimeSpan {
	spans := slices.Clone(blocked)
	slices.SortFunc(spans, func(a, b refTimeSpan) int { return cmp.Compare(a.from, b.from) })
	var out []refTimeSpan
	at := from
	for _, s := range spans {
		if s.to <= at {
			continue
		}
		if s.from >= to {
			break
		}
		if s.from > at {
			out = append(out, refTimeSpan{at, s.from})
		}
		at = s.to
		if at >= to {
			return out
		}
	}
	if at < to {
		out = append(out, refTimeSpan{at, to})
	}
	return out
}

// refLateWait is one wait the liveness check faults.
type refLateWait struct {
	op      Operation
	end     int64 // the wait's end: Return, Input.End when Pending, or the client's stop
	at      int64 // when it shows: the free waiting reached the bound, or the stuck end
	since   int64 // the start of the free stretch it shows in
	free    int64 // the free waiting, in all
	forever bool  // Pending in a Stuck run and free at the end
	// unjudged: Pending and free at the end of a run that was not stuck
	unjudged bool
}

// refWaitEnd is when op's wait ended: its Return, Input.End when it is
// Pending, or its client's stop if that came first (stopped is then true).
func refWaitEnd(in *Input, op Operation, stops map[int]int64) (end int64, stopped bool) {
	end = op.Return
	if op.Pending() {
		end = in.End
	}
	if s, has := stops[op.Client]; has && s >= op.Call && s < end {
		return s, true
	}
	return end, false
}

// refJudgeWait decides whether op, blocked by the given spans, waited too long
// for nothing; ok is false when it did not.
func refJudgeWait(in *Input, op Operation, stops map[int]int64, blocked []refTimeSpan) (w refLateWait, ok bool) {
	end, stopped := refWaitEnd(in, op, stops)
	if end < op.Call {
		return refLateWait{}, false
	}
	blocked = slices.DeleteFunc(slices.Clone(blocked), func(b refTimeSpan) bool { return b.from > end || b.to <= op.Call })
	bound := int64(in.BoundOrDefault())
	w = refLateWait{op: op, end: end}
	acc := int64(0)
	stretches := refFreeStretches(op.Call, end, blocked)
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
	if !op.Pending() || stopped {
		return refLateWait{}, false
	}
	for _, b := range blocked {
		if b.refCovers(end) {
			return refLateWait{}, false
		}
	}
	if !in.Stuck {
		w.unjudged, w.at, w.since = true, end, end
		return w, true
	}
	w.forever, w.at, w.since = true, end, end
	if n := len(stretches); n > 0 && stretches[n-1].to == end {
		w.since = stretches[n-1].from
	}
	return w, true
}

// refWaitStory says how one kind of wait is told in a violation.
type refWaitStory struct {
	what string // what the client waited for: "for the lock /l"
	free string // what held while nothing blocked it: "nobody held it"
	hint string // a guess at the cause, or ""
}

// refLateWaitsViolation is the one violation that the late waits on one
// object tell, described by the first of them.
func refLateWaitsViolation(in *Input, object string, ws []refLateWait, story func(Operation) refWaitStory) Violation {
	var judged []refLateWait
	var open []Operation
	for _, w := range ws {
		if w.unjudged {
			open = append(open, w.op)
		} else {
			judged = append(judged, w)
		}
	}
	if len(judged) == 0 {
		return unfinishedOps(in, object, open)
	}
	ws = judged
	slices.SortFunc(ws, func(a, b refLateWait) int {
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
	var guessed guess
	if st.hint != "" { // the lock's: the question it asks, and where its guess stands
		guessed = guess{len(msg), len(msg) + len(st.hint)}
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
	refSortOps(ops)
	v := Violation{Check: "liveness", Kind: Liveness, Object: object, At: w.at - in.Start, Message: msg, Ops: ops, guess: guessed}
	if st.hint != "" {
		v.Question = OrphanedNode
	}
	return v
}

// refLockHolding is one client's hold of a lock: [span.from, span.to).
type refLockHolding struct {
	client int
	shared bool
	span   refTimeSpan
}

// refLockHoldings are the holdings of one lock (ops sorted by call): each OK
// Acquire until its holder's next Release returned, or its holder stopped,
// or for ever.
func refLockHoldings(ops []Operation, stops map[int]int64) []refLockHolding {
	releases := map[int][]Operation{} // each client's, in order
	for _, r := range ops {
		if r.Kind == Release {
			releases[r.Client] = append(releases[r.Client], r)
		}
	}
	var out []refLockHolding
	for _, a := range ops {
		if a.Kind != Acquire || a.Result != OK {
			continue
		}
		h := refLockHolding{client: a.Client, shared: a.Shared, span: refTimeSpan{a.Return, math.MaxInt64}}
		rs := releases[a.Client]
		for len(rs) > 0 && rs[0].Return < a.Return {
			rs = rs[1:] // a release of no holding
		}
		if len(rs) > 0 {
			h.span.to, rs = rs[0].Return, rs[1:]
		}
		releases[a.Client] = rs
		if s, ok := stops[a.Client]; ok && s >= a.Return && s < h.span.to {
			h.span.to = s
		}
		out = append(out, h)
	}
	return out
}

// refAcquireLiveness judges the waits for locks (and leaderships).
func refAcquireLiveness(in *Input, stops map[int]int64) []Violation {
	paths, byPath := refOpsByPath(in.Ops, Acquire, Release)
	var out []Violation
	for _, p := range paths {
		ops := byPath[p]
		holdings := refLockHoldings(ops, stops)
		var late []refLateWait
		for _, w := range ops {
			if w.Kind != Acquire || (w.Result != OK && w.Result != Pending) {
				continue
			}
			end, _ := refWaitEnd(in, w, stops)
			blocked := refBlockedBy(holdings, w, end)
			if w.Shared {
				blocked = append(blocked, refWritersAhead(ops, w, end, stops)...)
			}
			if lw, ok := refJudgeWait(in, w, stops, blocked); ok {
				late = append(late, lw)
			}
		}
		if len(late) > 0 {
			out = append(out, refLateWaitsViolation(in, p, late, func(op Operation) refWaitStory {
				if op.Shared {
					return refWaitStory{"for a shared lock on " + p, "no writer held it or queued before it", ": an orphaned node?"}
				}
				return refWaitStory{"for the lock " + p, "nobody held it", ": an orphaned node?"}
			}))
		}
	}
	return out
}

// refBlockedBy are the holdings of other clients that kept w from the lock
// during its wait, which ends at end (a shared wait is kept only by
// exclusive holdings).
func refBlockedBy(holdings []refLockHolding, w Operation, end int64) []refTimeSpan {
	var blocked []refTimeSpan
	for _, h := range holdings {
		if h.span.from <= end && h.span.to > w.Call && h.client != w.Client && (!w.Shared || !h.shared) {
			blocked = append(blocked, h.span)
		}
	}
	return blocked
}

// refWritersAhead are the spans during which the exclusive acquires that other
// clients called before the shared acquire r's wait ended (at end) waited
// for the lock (until they returned, or their client stopped), within r's
// wait: r may queue behind them, since its node may have been created as
// late as its wait's end. Their holdings are refLockHoldings. ops are
// sorted by call.
func refWritersAhead(ops []Operation, r Operation, end int64, stops map[int]int64) []refTimeSpan {
	var out []refTimeSpan
	for _, x := range ops { // sorted by call
		if x.Call >= end {
			break
		}
		if x.Kind != Acquire || x.Shared || x.Client == r.Client {
			continue
		}
		span := refTimeSpan{x.Call, x.Return}
		switch x.Result {
		case Pending:
			span.to = math.MaxInt64
		case OK:
		default:
			continue
		}
		if s, ok := stops[x.Client]; ok && s >= x.Call && s < span.to {
			span.to = s
		}
		if span.to > r.Call && span.from <= end {
			out = append(out, span)
		}
	}
	return out
}

// refTakeLiveness judges the waits for a queue's items.
func refTakeLiveness(in *Input, stops map[int]int64) []Violation {
	paths, byPath := refOpsByPath(in.Ops, Put, Take)
	var out []Violation
	for _, p := range paths {
		ops := byPath[p]
		empty := refEmptySpans(ops)
		var late []refLateWait
		for _, w := range ops {
			if w.Kind != Take || (w.Result != OK && w.Result != Pending) {
				continue
			}
			if lw, ok := refJudgeWait(in, w, stops, empty); ok {
				late = append(late, lw)
			}
		}
		if len(late) > 0 {
			out = append(out, refLateWaitsViolation(in, p, late, func(Operation) refWaitStory {
				return refWaitStory{"for an item of " + p, "it had items", ""}
			}))
		}
	}
	return out
}

// refEmptySpans are the spans during which a queue had no item available: see
// the liveness check's doc.
func refEmptySpans(ops []Operation) []refTimeSpan {
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
	var out []refTimeSpan
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
			out = append(out, refTimeSpan{emptyFrom, at})
			emptyFrom = math.MaxInt64 // not empty
		case items == 0 && emptyFrom == math.MaxInt64:
			emptyFrom = at
		}
	}
	if emptyFrom != math.MaxInt64 {
		out = append(out, refTimeSpan{emptyFrom, math.MaxInt64})
	}
	return out
}

// refPassLiveness judges the waits to pass a barrier.
func refPassLiveness(in *Input, stops map[int]int64) []Violation {
	paths, byPath := refOpsByPath(in.Ops, Lower, Pass)
	var out []Violation
	for _, p := range paths {
		ops := withRetries(byPath[p]) // as the check reads it
		up := refTimeSpan{math.MinInt64, math.MaxInt64}
		for _, op := range ops {
			if op.Kind == Lower && op.Result == OK && op.Return < up.to {
				up.to = op.Return
			}
		}
		var late []refLateWait
		for _, w := range ops {
			if w.Kind != Pass || (w.Result != OK && w.Result != Pending) {
				continue
			}
			if lw, ok := refJudgeWait(in, w, stops, []refTimeSpan{up}); ok {
				late = append(late, lw)
			}
		}
		if len(late) > 0 {
			out = append(out, refLateWaitsViolation(in, p, late, func(Operation) refWaitStory {
				return refWaitStory{"to pass the barrier " + p, "it was lowered", ""}
			}))
		}
	}
	return out
}

// refDoubleBarrierLiveness judges the waits to enter and to leave a double
// barrier.
func refDoubleBarrierLiveness(in *Input, stops map[int]int64) []Violation {
	paths, byPath := refOpsByPath(in.Ops, Enter, Leave)
	var out []Violation
	for _, p := range paths {
		ops := withRetries(byPath[p]) // a failed call made again is one with its retry, as the check reads it
		size, _ := doubleBarrierSize(in, ops)
		closed := []refTimeSpan{{math.MinInt64, refEnteredBy(ops, size, stops)}}
		busy := []refTimeSpan{{math.MinInt64, refLeftBy(ops, stops)}}
		var lateEnter, lateLeave []refLateWait
		for _, w := range ops {
			if w.Result != OK && w.Result != Pending {
				continue
			}
			if w.Kind == Enter {
				if lw, ok := refJudgeWait(in, w, stops, closed); ok {
					lateEnter = append(lateEnter, lw)
				}
			} else if lw, ok := refJudgeWait(in, w, stops, busy); ok {
				lateLeave = append(lateLeave, lw)
			}
		}
		if len(lateEnter) > 0 {
			out = append(out, refLateWaitsViolation(in, p, lateEnter, func(Operation) refWaitStory {
				return refWaitStory{"to enter the double barrier " + p, fmt.Sprintf("%d processes had entered it", size), ""}
			}))
		}
		if len(lateLeave) > 0 {
			out = append(out, refLateWaitsViolation(in, p, lateLeave, func(Operation) refWaitStory {
				return refWaitStory{"to leave the double barrier " + p, "every process that entered had left it or stopped", ""}
			}))
		}
	}
	return out
}

// refEnteredBy is the first time size distinct clients had called Enter on
// a double barrier and not stopped (math.MaxInt64 if never).
func refEnteredBy(ops []Operation, size int, stops map[int]int64) int64 {
	first := map[int]int64{} // each client's first Enter call
	for _, op := range ops {
		if t, ok := first[op.Client]; op.Kind == Enter && (!ok || op.Call < t) {
			first[op.Client] = op.Call
		}
	}
	var times []int64
	for _, t := range first {
		times = append(times, t)
	}
	slices.Sort(times)
	for _, t := range times {
		n := 0
		for c, e := range first {
			if e <= t && !refStoppedBy(stops, c, t) {
				n++
			}
		}
		if n >= size {
			return t
		}
	}
	return math.MaxInt64
}

// refLeftBy is the time by which every client whose Enter returned OK on a
// double barrier had called Leave or stopped (math.MaxInt64 if never).
func refLeftBy(ops []Operation, stops map[int]int64) int64 {
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

// refTwoPhaseCommitLiveness judges the 2pc termination: see the liveness
// check's doc.
func refTwoPhaseCommitLiveness(in *Input, stops map[int]int64) []Violation {
	paths, byPath := refOpsByPath(in.Ops, Propose, Vote, Fail)
	bound := int64(in.BoundOrDefault())
	var out []Violation
	for _, p := range paths {
		ops := withRetries(byPath[p]) // as above
		if len(Of(ops, Fail)) > 0 {
			continue
		}
		var late, open []Operation
		for _, op := range ops {
			if op.Pending() && !refStoppedBy(stops, op.Client, in.End) {
				if in.End-op.Call > bound || in.Stuck {
					late = append(late, op)
				} else {
					open = append(open, op)
				}
			}
		}
		if len(late) == 0 {
			if len(open) > 0 {
				out = append(out, unfinishedOps(in, p, open))
			}
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

// refStopTimes maps each client that has a Fail to its first Fail's Call: its
// process stopped for good then.
func refStopTimes(ops []Operation) map[int]int64 {
	stops := map[int]int64{}
	for _, op := range Of(ops, Fail) {
		if t, ok := stops[op.Client]; !ok || op.Call < t {
			stops[op.Client] = op.Call
		}
	}
	return stops
}

// refStoppedBy says whether client had stopped at or before t.
func refStoppedBy(stops map[int]int64, client int, t int64) bool {
	s, ok := stops[client]
	return ok && s <= t
}

// refOpsByPath groups the operations of the given kinds by Path, each group
// sorted (refSortOps), and returns the paths sorted: checkers judge objects
// one by one, in an order that does not depend on map iteration.
func refOpsByPath(ops []Operation, kinds ...OpKind) ([]string, map[string][]Operation) {
	byPath := map[string][]Operation{}
	for _, op := range Of(ops, kinds...) {
		byPath[op.Path] = append(byPath[op.Path], op)
	}
	paths := make([]string, 0, len(byPath))
	for p, ops := range byPath {
		paths = append(paths, p)
		refSortOps(ops)
	}
	slices.Sort(paths)
	return paths, byPath
}

// refSortOps orders operations by call, then return, client, kind and data:
// a total order for what a history can tell apart, so output is the same
// whatever order the history came in.
func refSortOps(ops []Operation) {
	slices.SortStableFunc(ops, func(a, b Operation) int {
		return cmp.Or(cmp.Compare(a.Call, b.Call), cmp.Compare(a.Return, b.Return), cmp.Compare(a.Client, b.Client),
			strings.Compare(string(a.Kind), string(b.Kind)), strings.Compare(a.Data, b.Data), strings.Compare(a.OutData, b.OutData))
	})
}

// refObjectsOf is the Paths of the operations of the given kinds, sorted.
func refObjectsOf(ops []Operation, kinds ...OpKind) []string {
	set := map[string]bool{}
	for _, op := range Of(ops, kinds...) {
		set[op.Path] = true
	}
	return sortedKeys(set)
}
