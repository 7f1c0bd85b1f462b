package models

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

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
	// unjudged: Pending at the end of a run that was not stuck, free at
	// the end and short of the bound: had the run gone on, it might have
	// waited past the bound, or not (undecided, never a pass).
	unjudged bool
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
	if !op.Pending() || stopped {
		return lateWait{}, false
	}
	for _, b := range blocked {
		if b.covers(end) {
			return lateWait{}, false
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

// mayWaitLong reports whether some wait of kind among ops[idx] could be
// one judgeWait faults: one that lasted longer than the bound, or one
// still pending at the end whose client had not stopped.
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
		if end >= w.Call && (end-w.Call > bound || w.Pending() && !stopped) {
			return true
		}
	}
	return false
}

// waitStory says how one kind of wait is told in a violation.
type waitStory struct {
	what     string   // what the client waited for: "for the lock /l"
	free     string   // what held while nothing blocked it: "nobody held it"
	question Question // what the violation asks the run to explain, or NoQuestion
	hint     string   // the check's guess at the answer, which the answer replaces, or ""
}

// lateWaitsViolation is the one violation that the late waits on one
// object tell, described by the first of them; when every one is
// unjudged, the undecided verdict they tell (unfinishedViolation).
func lateWaitsViolation(in *Input, object string, ws []lateWait, story func(Operation) waitStory) Violation {
	judged := slices.DeleteFunc(slices.Clone(ws), func(w lateWait) bool { return w.unjudged })
	if len(judged) == 0 {
		return unfinishedViolation(in, object, ws)
	}
	ws = judged
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
	at := guessAfter(msg, st.hint)
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
	return Violation{Check: "liveness", Kind: Liveness, Object: object, At: w.at - in.Start, Message: msg, Ops: ops,
		Question: st.question, guess: at}
}
