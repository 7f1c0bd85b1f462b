package models

// withRetries reads the operations of one object (sorted by call, as
// opsByPath gives them) with each failed call that its client made again
// taken as one with its retry: a Failed operation whose client's next
// operation there is of the same kind is dropped, and that next one is
// taken as called when the failed one was (a chain of retries is one
// operation, called at the first call).
//
// A workload records every call as it happened, a failed one with its
// error, and calls again after an error a caller must expect under faults
// (its connection lost, its session expired): the history shows the
// error and the retry. What the failed call may have done (a node
// created before the connection was lost) is its retry's to settle, so
// the checks of a process's part in a round (a double barrier's enter and
// leave, a two-phased commit's vote, a barrier's raise, lower and pass)
// judge the part from its first call to its last return, as the process
// lived it; a failed call no retry followed is judged as what it is.
//
// ops is not changed: the operations are copied.
func withRetries(ops []Operation) []Operation {
	out := make([]Operation, 0, len(ops))
	last := map[int]int{} // each client's latest operation in out
	for _, op := range ops {
		if j, ok := last[op.Client]; ok && out[j].Result == Failed && out[j].Kind == op.Kind {
			op.Call = out[j].Call
			out[j] = op
			continue
		}
		last[op.Client] = len(out)
		out = append(out, op)
	}
	return out
}
