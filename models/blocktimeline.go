package models

import (
	"cmp"
	"math"
	"slices"
	"sort"
)

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
// below owners: it cuts time into segments labelled with who held them,
// then works out once the sums and links over the segments and the empty
// spans that let judgeWait answer each wait in logarithmic time.
func newBlockTimeline(spans []ownedSpan, owners int) *blockTimeline {
	tl := &blockTimeline{}
	events := tl.spanEvents(spans, owners)
	tl.labelSegments(events, owners)
	tl.linkSegments()
	tl.sumOwnSegments()
	tl.orderPoints()
	return tl
}

// spanEvent is an instant at which a span of owner opens (delta +1) or
// closes (delta -1).
type spanEvent struct {
	at    int64
	owner int32
	delta int32
}

// spanEvents returns the opening and closing of each nonempty span, in
// order of time, and keeps each empty span as a point (unsorted: see
// orderPoints), as an empty span blocks no one but still ends a free
// stretch. A span of everyone's (owner < 0) gets the number owners, which
// no waiter has, so that it blocks every waiter.
func (tl *blockTimeline) spanEvents(spans []ownedSpan, owners int) []spanEvent {
	events := make([]spanEvent, 0, 2*len(spans))
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
			events = append(events, spanEvent{s.span.from, s.owner, +1}, spanEvent{s.span.to, s.owner, -1})
		}
	}
	slices.SortFunc(events, func(a, b spanEvent) int { return cmp.Compare(a.at, b.at) })
	return events
}

// labelSegments cuts time at each instant of events into segments
// (bounds) and labels each with who held it (label): free, several
// owners, or the one owner, whose segments are what its own waits are not
// blocked by. It also sets ownFrom, where each owner's segments will start
// in own, counting them as it labels.
func (tl *blockTimeline) labelSegments(events []spanEvent, owners int) {
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
	for c := 1; c < len(tl.ownFrom); c++ {
		tl.ownFrom[c] += tl.ownFrom[c-1]
	}
}

// linkSegments walks the labelled segments in order once, and sets for
// each the free time before it (zfree), the last held segment up to it
// (prevHeld) and the last before that held by somebody else (prevOther),
// and lists each owner's own segments (own): so that freeTime and
// stretchStart look these up instead of walking back.
func (tl *blockTimeline) linkSegments() {
	m := len(tl.bounds)
	tl.zfree = make([]int64, m)
	tl.prevHeld = make([]int32, m)
	tl.prevOther = make([]int32, m)
	tl.own = make([]int32, tl.ownFrom[len(tl.ownFrom)-1])
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
}

// sumOwnSegments sets ownSum, the running lengths of each owner's own
// segments, so that freeTime adds an owner's own time (time that does not
// block its waits) with one search.
func (tl *blockTimeline) sumOwnSegments() {
	tl.ownSum = make([]int64, len(tl.own)+len(tl.ownFrom)-1)
	// ownSum: owner c's sums are ownSum[ownFrom[c]+c:], one more than its
	// segments.
	for c := 0; c+1 < len(tl.ownFrom); c++ {
		base := int(tl.ownFrom[c]) + c
		for j, k := range tl.own[tl.ownFrom[c]:tl.ownFrom[c+1]] {
			tl.ownSum[base+j+1] = satAdd(tl.ownSum[base+j], tl.bounds[k+1]-tl.bounds[k])
		}
	}
}

// orderPoints sorts the points (the empty spans) by time and links each
// to the last one before it of another owner (prevOtherPt), so that
// stretchStart finds where a free stretch last ended with one search.
func (tl *blockTimeline) orderPoints() {
	if len(tl.points) == 0 {
		return
	}
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
	if !op.Pending() || stopped || ahead > end || !tl.freeFor(id, tl.segment(end, false)) {
		return lateWait{}, false
	}
	if !in.Stuck {
		w.unjudged, w.at, w.since = true, end, end
		return w, true
	}
	w.forever, w.at, w.since = true, end, end
	if tl.freeFor(id, tl.segment(end, true)) {
		if from := tl.stretchStart(id, start, end, true); from < end {
			w.since = from
		}
	}
	return w, true
}
