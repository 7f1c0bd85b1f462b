package models

import (
	"fmt"
	"strings"
	"time"
)

// unfinishedViolation is the liveness check's undecided verdict on object:
// its waits ws were still pending when a run that was not stuck ended (it
// ran out of its virtual time or steps, was interrupted, or ended at a
// client's failure), nothing blocking them at the end, short of the bound.
// Whether they would have returned in time cannot be told from a run that
// ended before they did: undecided, never a pass. The first wait, by its
// call, names the verdict.
func unfinishedViolation(in *Input, object string, ws []lateWait) Violation {
	ops := make([]Operation, len(ws))
	for i, w := range ws {
		ops[i] = w.op
	}
	return unfinishedOps(in, object, ops)
}

// unfinishedOps words the undecided verdict on object, whose waits ops
// were still pending at the end.
func unfinishedOps(in *Input, object string, ops []Operation) Violation {
	sortOps(ops)
	first := ops[0]
	msg := fmt.Sprintf("the run ended at %s while c%d's %s of %s, called at %s, was still waiting (%s) with nothing "+
		"blocking it: whether it would have returned within the bound (%s) could not be judged",
		in.Since(in.End), first.Client+1, first.Kind, object, in.Since(first.Call),
		time.Duration(in.End-first.Call), in.BoundOrDefault())
	if len(ops) > 1 {
		var others []string
		for _, op := range ops[1:] {
			others = append(others, fmt.Sprintf("c%d's %s", op.Client+1, op.Kind))
		}
		msg += "; nor " + strings.Join(others, ", ")
	}
	return Violation{Check: "liveness", Kind: Undecided, Object: object, At: in.End - in.Start, Message: msg, Ops: ops}
}
