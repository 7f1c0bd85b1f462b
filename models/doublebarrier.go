package models

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

func init() {
	register(Checker{
		Name:  "double-barrier",
		Kind:  Safety,
		Doc:   "every process enters and leaves; nobody computes before Size processes entered, nobody leaves before all finished",
		Check: checkDoubleBarrier,
	})
}

// checkDoubleBarrier is the double-barrier checker. It judges the double
// barrier's two safety properties, on each Path (one round of one barrier):
//
//   - Nobody computes before Size processes entered: an Enter returning OK
//     at t needs at least Size distinct clients whose Enter was called at or
//     before t.
//
//   - Nobody leaves before all finished: a Leave returning OK at t needs
//     every client whose Enter returned OK on that Path, except those whose
//     process stopped (a Fail, on any Path) at or before t, to have called
//     Leave at or before t.
//
//   - Every process enters and leaves: an Enter or a Leave Failed with an
//     error (Error; OutData in a history recorded before Operation.Error),
//     made no more, by a process that had not stopped, is reported, with
//     the error: the process could not take its part, and the others wait
//     for it or go on without it. One whose process stopped (its node
//     vanished with its session: the workload records a Fail from its
//     Enter's call) is that process stopping.
//
// A failed Enter or Leave that its process made again is one with its
// retry (withRetries): the process's Enter is called at its first call.
//
// Size is Input.Size; when it is 0 it is inferred, for each Path, as the
// number of distinct clients with an Enter on that Path (every client that
// tried to enter is taken to be one the barrier waits for), and the
// message says so.
//
// Each property is reported at most once per Path: the first Enter (or
// Leave) that broke it, with the others that did too among the operations.
//
// A process whose session expired without a recorded Fail (it was paused,
// say) still counts as one the others must wait for, although the recipe
// rightly leaves without it: the workload records a Fail for a process it
// stops, and a pause that long is rare in a round.
func checkDoubleBarrier(in *Input) []Violation {
	stops := stopTimes(in.Ops)
	paths, byPath := opsByPath(in.Ops, Enter, Leave)
	var out []Violation
	for _, p := range paths {
		ops := withRetries(byPath[p])
		out = append(out, failedSteps(in, p, ops, stops)...)
		if v, ok := earlyEnters(in, p, ops); ok {
			out = append(out, v)
		}
		if v, ok := earlyLeaves(in, p, ops, stops); ok {
			out = append(out, v)
		}
	}
	sortViolations(out)
	return out
}

// doubleBarrierSize is the number of processes the double barrier whose
// operations are ops waits for: Input.Size, or when that is 0 the number
// of distinct clients with an Enter (inferred is then true).
func doubleBarrierSize(in *Input, ops []Operation) (size int, inferred bool) {
	if in.Size > 0 {
		return in.Size, false
	}
	return len(clientsOf(Of(ops, Enter))), true
}

// earlyEnters finds the Enters that returned before Size processes had
// called Enter.
func earlyEnters(in *Input, path string, ops []Operation) (Violation, bool) {
	size, inferred := doubleBarrierSize(in, ops)
	// calledBy is the clients that had called Enter by t.
	calledBy := func(t int64) []int {
		var by []Operation
		for _, o := range ops {
			if o.Kind == Enter && o.Call <= t {
				by = append(by, o)
			}
		}
		return clientsOf(by)
	}
	var early []Operation
	for _, e := range ops {
		if e.Kind == Enter && e.Result == OK && len(calledBy(e.Return)) < size {
			early = append(early, e)
		}
	}
	if len(early) == 0 {
		return Violation{}, false
	}
	slices.SortStableFunc(early, func(a, b Operation) int { return cmp.Compare(a.Return, b.Return) })
	first := early[0]
	entered := calledBy(first.Return)
	msg := fmt.Sprintf("c%d entered %s at %s (called at %s) when only %d of the %d processes had called Enter (%s): nobody may compute before all have entered",
		first.Client+1, path, in.Since(first.Return), in.Since(first.Call), len(entered), size, clientNames(entered))
	if inferred {
		msg += fmt.Sprintf(" (no size was given: %d is the number of clients that tried to enter)", size)
	}
	msg += alsoClients(in, early[1:])
	sortOps(early)
	return Violation{Check: "double-barrier", Kind: Safety, Object: path, At: first.Return - in.Start, Message: msg, Ops: early}, true
}

// earlyLeaves finds the Leaves that returned before every process that
// entered had called Leave (or stopped).
func earlyLeaves(in *Input, path string, ops []Operation, stops map[int]int64) (Violation, bool) {
	entered := clientsOf(Of(okOps(ops), Enter))
	type early struct {
		leave   Operation
		missing []int
	}
	var found []early
	for _, l := range ops {
		if l.Kind != Leave || l.Result != OK {
			continue
		}
		var missing []int
		for _, c := range entered {
			if stoppedBy(stops, c, l.Return) || slices.ContainsFunc(ops, func(o Operation) bool {
				return o.Kind == Leave && o.Client == c && o.Call <= l.Return
			}) {
				continue
			}
			missing = append(missing, c)
		}
		if len(missing) > 0 {
			found = append(found, early{l, missing})
		}
	}
	if len(found) == 0 {
		return Violation{}, false
	}
	slices.SortStableFunc(found, func(a, b early) int { return cmp.Compare(a.leave.Return, b.leave.Return) })
	first := found[0]
	var why []string
	var ops2 []Operation
	for _, c := range first.missing {
		e := firstOf(ops, Enter, c)
		why = append(why, fmt.Sprintf("c%d (entered at %s)", c+1, in.Since(e.Return)))
		ops2 = append(ops2, e)
	}
	msg := fmt.Sprintf("c%d left %s at %s (called at %s) while %s had not yet called Leave: nobody may leave before all have finished",
		first.leave.Client+1, path, in.Since(first.leave.Return), in.Since(first.leave.Call), strings.Join(why, ", "))
	var leaves []Operation
	for _, f := range found {
		leaves = append(leaves, f.leave)
	}
	msg += alsoClients(in, leaves[1:])
	ops2 = append(ops2, leaves...)
	sortOps(ops2)
	return Violation{Check: "double-barrier", Kind: Safety, Object: path, At: first.leave.Return - in.Start, Message: msg, Ops: ops2}, true
}

// firstOf is client's first OK operation of kind in ops (sorted by call).
func firstOf(ops []Operation, kind OpKind, client int) Operation {
	for _, op := range ops {
		if op.Kind == kind && op.Client == client && op.Result == OK {
			return op
		}
	}
	return Operation{}
}

// alsoClients says which other clients did the same, e.g. "; so did c2 at
// 1.000000s, c3 at 2.000000s", or "" when none did.
func alsoClients(in *Input, ops []Operation) string {
	if len(ops) == 0 {
		return ""
	}
	var s []string
	for _, op := range ops {
		s = append(s, fmt.Sprintf("c%d at %s", op.Client+1, in.Since(op.Return)))
	}
	return "; so did " + strings.Join(s, ", ")
}

// failedSteps reports the Enters and Leaves on a barrier that failed with
// an error, made no more (ops are withRetries'), by a process that had
// not stopped: one violation per barrier, naming the first.
func failedSteps(in *Input, path string, ops []Operation, stops map[int]int64) []Violation {
	var failed []Operation
	for _, op := range ops {
		if (op.Kind == Enter || op.Kind == Leave) && op.Result == Failed &&
			(op.OutData != "" || op.Error != "" && !stoppedBy(stops, op.Client, op.Return)) {
			failed = append(failed, op)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	f := failed[0]
	msg := fmt.Sprintf("c%d's %s of %s failed at %s: %s; every process must enter and leave, and this one could not",
		f.Client+1, f.Kind, path, in.Since(f.Return), stepError(f, path))
	if n := len(failed) - 1; n > 0 {
		msg += fmt.Sprintf(" (%d more failed so)", n)
	}
	return []Violation{{Check: "double-barrier", Kind: Safety, Object: path, At: f.Return - in.Start, Message: msg, Ops: failed,
		Question: FailedStep}}
}

// stepError is the error a failed Enter or Leave returned, as the process
// was told it: "enter /path: error". A history recorded before
// Operation.Error kept it so in OutData.
func stepError(op Operation, path string) string {
	if op.Error == "" {
		return op.OutData
	}
	return fmt.Sprintf("%s %s: %s", op.Kind, path, op.Error)
}
