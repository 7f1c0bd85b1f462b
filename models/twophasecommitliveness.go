package models

import (
	"fmt"
	"strings"
	"time"
)

// twoPhaseCommitLiveness judges the 2pc termination: see the liveness
// check's doc.
func twoPhaseCommitLiveness(in *Input, stops map[int]int64) []Violation {
	paths, byPath := opsByPath(in.Ops, Propose, Vote, Fail)
	bound := int64(in.BoundOrDefault())
	var out []Violation
	for _, p := range paths {
		ops := withRetries(byPath[p])
		if len(Of(ops, Fail)) > 0 {
			continue
		}
		var late, open []Operation
		for _, op := range ops {
			switch {
			case !op.Pending() || stoppedBy(stops, op.Client, in.End):
			case in.End-op.Call > bound || in.Stuck:
				late = append(late, op)
			default:
				open = append(open, op)
			}
		}
		if len(late) == 0 {
			if len(open) > 0 { // the run ended too soon to tell
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
