package models

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
// history (spans of virtual time: timeSpan), and the rest of its wait is "free
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
//     create() reply left behind, which the waiter waits for. With
//     Input.Permits above one (a semaphore), an acquire is blocked only
//     while that many other clients hold (semaphoreLiveness).
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
//
// A wait still pending when a run that was not stuck ended (it ran out of
// time, was interrupted, or ended at a client's failure), with nothing
// blocking it at the end and short of the bound, could not be judged:
// undecided, never a pass (unfinishedViolation).
func checkLiveness(in *Input) []Violation {
	kinds := kindsOf(in.Ops) // each rule judges only waits of its kinds
	stops := map[int]int64{}
	if kinds.hasAny(Fail) {
		stops = stopTimes(in.Ops)
	}
	var out []Violation
	switch {
	case kinds.hasAny(Acquire) && in.Permits > 1:
		out = append(out, semaphoreLiveness(in, stops)...)
	case kinds.hasAny(Acquire):
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
