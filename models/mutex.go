package models

import (
	"fmt"
	"math"
)

// lockHolder is the state of a mutex (and of an election): who holds it,
// if anyone. It is comparable, as porcupine compares states with ==.
type lockHolder struct {
	held   bool
	client int
}

func (h lockHolder) String() string {
	if !h.held {
		return "free"
	}
	return fmt.Sprintf("held by c%d", h.client+1)
}

// heldBy is how a mutex's state goes to porcupine when it can: 0 when
// free, c+1 when held by client c < 255. Porcupine takes states as
// interfaces, and boxing a lockHolder costs an allocation at every step,
// boxing a byte none. Other holders go as their lockHolder: each state
// has one form, as porcupine compares states with ==.
type heldBy uint8

// boxHolder is h as porcupine takes it (see heldBy).
func boxHolder(h lockHolder) any {
	switch {
	case !h.held:
		return heldBy(0)
	case h.client >= 0 && h.client < math.MaxUint8:
		return heldBy(h.client + 1)
	}
	return h
}

// unboxHolder is the lockHolder boxHolder boxed.
func unboxHolder(state any) lockHolder {
	if b, ok := state.(heldBy); ok {
		if b == 0 {
			return lockHolder{}
		}
		return lockHolder{held: true, client: int(b) - 1}
	}
	return state.(lockHolder)
}

// mutexModelStep is mutexStep on boxed states, for porcupine.
func mutexModelStep(state any, op Operation) (bool, any) {
	ok, h := mutexStep(unboxHolder(state), op)
	return ok, boxHolder(h)
}

// mutexStep is the sequential specification of a lock as the clients that
// use it see it: whether op, with the result its client saw, can happen
// when h holds the lock, and who holds it after.
//
//   - An acquire that returned (OK) takes the lock: it must be free.
//   - An acquire whose answer the caller never saw (Pending: still waiting
//     at the end of the run; Unknown: it got an error) is legal and
//     changes nothing. That is sound and loses nothing: the server may
//     have granted it without the caller hearing, but porcupine may always
//     place it last (its Return is the end of the run or later, and every
//     other operation was called by then), where a grant constrains no one;
//     and the one thing a grant could excuse is a later use or release by
//     its own client, which, never told it holds the lock, must not act on
//     it. (Taking the lock when free would excuse exactly that.)
//   - A use the resource accepted (OK) needs its client to hold the lock.
//   - A use the resource rejected (a fenced resource refused a stale
//     token) did not touch the resource, so it proves nothing: legal
//     whatever the holder.
//   - A release needs its client to hold the lock, and frees it. Its
//     interval runs from the last moment the holder relied on the lock to
//     when it let go, so the checker may end the holding anywhere in
//     between (a lease lost while its holder was paused ends before the
//     holder hears of it).
//
// Any other operation or result is one the lock cannot give: illegal.
func mutexStep(h lockHolder, op Operation) (bool, lockHolder) {
	switch op.Kind {
	case Acquire:
		switch op.Result {
		case OK:
			return !h.held, lockHolder{held: true, client: op.Client}
		case Pending, Unknown, Failed:
			return true, h
		}
	case Use:
		switch op.Result {
		case OK:
			return h.held && h.client == op.Client, h
		case Rejected:
			return true, h
		}
	case Release:
		if lets(op.Result) {
			return h.held && h.client == op.Client, lockHolder{}
		}
	}
	return false, h
}

// MutexModel is the porcupine model of an exclusive lock as seen through
// the uses it protects: at any moment at most one client holds it, and
// only the holder acts on the resource. It judges Acquire, Use and Release
// (see mutexStep for each one's rule). An unfenced lock under a process
// pause or a session expiry fails it: two clients act as holders at once.
var MutexModel = Model{
	Name:          "mutex",
	Doc:           "mutex (one holder at a time)",
	Kinds:         []OpKind{Acquire, Use, Release},
	Prepare:       asHolders,
	Explain:       heldTogether,
	Init:          func() any { return boxHolder(lockHolder{}) },
	Step:          mutexModelStep,
	DescribeState: func(state any) string { return unboxHolder(state).String() },
	Narrow:        mutexParts,
	Witness:       mutexWitness,
}

// ElectionModel is the porcupine model of a leader election seen as a
// lease: at most one leader at a time. Acquire is a Campaign that returned
// (the client became leader), Use is the leader acting as leader, Release
// is the leader resigning or learning it lost its leadership. It is the
// mutex model renamed: its rules (mutexStep), explanation, narrowing and
// witness are the mutex's, and follow them.
var ElectionModel = MutexModel.renamed("election", "leader election (at most one leader at a time)")

func init() {
	registerModel(MutexModel)
	registerModel(ElectionModel)
}
