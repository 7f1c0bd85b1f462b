package models

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/zksim/zksim/client"
)

// heldTogether explains a mutex (or election) that no linearization fits by
// what the history shows: the first two clients that held the lock at
// once, each from the moment its acquire returned to the call of its next
// release (or the end), and what each did meanwhile with the resource.
// It returns "" when no two holdings overlap (the history breaks the model
// some other way: a use without a holding, a token reused), and the
// operations it names: both acquires, their releases, and the uses made
// while both held; it went wrong when the second holding began.
func heldTogether(ops []Operation) Explanation { return together(ops, false) }

// writerTogether explains a read-write lock that no linearization fits: a
// writer that held it while another client held it too (to write, or to
// read), as heldTogether says it.
func writerTogether(ops []Operation) Explanation { return together(ops, true) }

// together is heldTogether, with readers' holdings too when shared (a
// holding overlapping a writer's).
func together(ops []Operation, shared bool) Explanation {
	hs := holdingsOf(ops, shared)
	for i, x := range hs {
		for _, y := range hs[i+1:] {
			if y.op.Client == x.op.Client || y.from >= x.to || x.op.Shared && y.op.Shared {
				continue
			}
			from, to := y.from, min(x.to, y.to)
			why := fmt.Sprintf("c%d and c%d held it at once: c%d%s from %s (token %d) %s, c%d%s from %s (token %d) %s; from %s, %s",
				x.op.Client+1, y.op.Client+1, x.op.Client+1, mode(x.op, shared), client.FormatTime(x.from), x.op.Token, until(x.to),
				y.op.Client+1, mode(y.op, shared), client.FormatTime(y.from), y.op.Token, until(y.to), client.FormatTime(from),
				meanwhile(ops, []int{x.op.Client, y.op.Client}, from, to))
			return Explanation{Why: why, Named: named(ops, x.op, y.op, from, to), At: from, Question: TwoHolders}
		}
	}
	return Explanation{}
}

// named are the operations heldTogether names: the two acquires a and b,
// each client's release after its acquire, and their uses in [from, to].
func named(ops []Operation, a, b Operation, from, to int64) []Operation {
	out := []Operation{a, b}
	for _, op := range ops {
		mine := op.Client == a.Client && op.Call >= a.Return || op.Client == b.Client && op.Call >= b.Return
		switch {
		case !mine:
		case op.Kind == Use && op.Call <= to && op.Return >= from:
			out = append(out, op)
		case op.Kind == Release && op.Call >= from && op.Call <= to:
			out = append(out, op)
		}
	}
	return out
}

// mode says how a read-write lock's holder held it ("" for a plain lock).
func mode(a Operation, shared bool) string {
	switch {
	case !shared:
		return ""
	case a.Shared:
		return " (to read)"
	}
	return " (to write)"
}

// until says when a holding ended.
func until(t int64) string {
	if t == 1<<63-1 {
		return "to the end"
	}
	return "until it released at " + client.FormatTime(t)
}

// meanwhile says what clients did with the resource in [from, to]: each
// use that was under way then, from its call to its return.
func meanwhile(ops []Operation, clients []int, from, to int64) string {
	var parts []string
	for _, c := range clients {
		var uses []string
		for _, u := range ops {
			if u.Kind == Use && u.Client == c && u.Call <= to && u.Return >= from {
				at := client.FormatTime(u.Call)
				if u.Return != u.Call {
					at += "–" + client.FormatTime(u.Return)
				}
				uses = append(uses, fmt.Sprintf("%s (token %d, %s)", at, u.Token, u.Result))
			}
		}
		if len(uses) == 0 {
			parts = append(parts, fmt.Sprintf("c%d did not use the resource", c+1))
			continue
		}
		if len(uses) > 3 {
			uses = append(uses[:3], fmt.Sprintf("%d more", len(uses)-3))
		}
		parts = append(parts, fmt.Sprintf("c%d used it at %s", c+1, strings.Join(uses, ", ")))
	}
	return strings.Join(parts, " and ")
}

// heldSpan is an acquire that returned OK and the span it held: from its
// return to the call of its client's next release (or the end of time).
// (mutexParts pairs holdings its own way: lockHoldingsOf.)
type heldSpan struct {
	op       Operation
	from, to int64
}

// holdingsOf are ops' holdings in the order they began (those that began
// at once in the history's order); a shared (reader's) acquire's only
// when shared.
func holdingsOf(ops []Operation, shared bool) []heldSpan {
	var hs []heldSpan
	for _, a := range ops {
		if a.Kind != Acquire || a.Result != OK || a.Shared && !shared {
			continue
		}
		h := heldSpan{op: a, from: a.Return, to: 1<<63 - 1}
		for _, r := range ops {
			if r.Kind == Release && r.Client == a.Client && r.Call >= a.Return && r.Call < h.to {
				h.to = r.Call
			}
		}
		hs = append(hs, h)
	}
	slices.SortStableFunc(hs, func(a, b heldSpan) int { return cmp.Compare(a.from, b.from) })
	return hs
}
