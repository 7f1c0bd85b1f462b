package models

import (
	"cmp"
	"slices"
)

// lets tells whether a release with result r let go of what its client
// held: whatever it returned, it did. A holder whose Unlock failed (its
// connection lost, its session gone) stops acting on the lock all the
// same; that its node may stay on the servers is the liveness check's
// matter, not mutual exclusion's. A release still under way when the run
// ended (Pending) let go too.
func lets(r Result) bool { return r == OK || r == Failed || r == Unknown || r == Pending }

// asHolders is Prepare for the models of what clients hold in turn (a
// mutex, an election, a read-write lock, a semaphore): the history as
// the user's code made it, read for what each holder relied on.
//
//   - An acquire its caller was told failed held nothing and changes
//     nothing: it goes.
//   - A release may take effect from the last moment its holder relied on
//     what it held (its last accepted use, or its acquire's return when it
//     used nothing), not only from when Unlock was called: a lease lost
//     while its holder was paused, or between its check and its next
//     step, ends before the holder hears of it, and a holder that stopped
//     acting is no holder. Its Call is taken back to that moment.
//
// ops is not changed: the operations are copied.
func asHolders(ops []Operation) []Operation {
	out := make([]Operation, 0, len(ops))
	for _, op := range ops {
		if op.Kind == Acquire && op.Result == Failed {
			continue
		}
		out = append(out, op)
	}
	byCall := make([]int, len(out))
	for i := range byCall {
		byCall[i] = i
	}
	slices.SortStableFunc(byCall, func(a, b int) int {
		return cmp.Or(cmp.Compare(out[a].Client, out[b].Client), cmp.Compare(out[a].Call, out[b].Call))
	})
	relied, client, held := int64(0), -1, false
	for _, i := range byCall {
		op := &out[i]
		if op.Client != client {
			client, held = op.Client, false
		}
		switch {
		case op.Kind == Acquire && op.Result == OK:
			relied, held = op.Return, true
		case op.Kind == Use && op.Result == OK && held:
			relied = max(relied, op.Return)
		case op.Kind == Release && held:
			op.Call = min(op.Call, relied)
			held = false
		}
	}
	return out
}
