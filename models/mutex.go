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
		case Pending, Unknown:
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
		if op.Result == OK {
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
	Init:          func() any { return lockHolder{} },
	Step:          func(state any, op Operation) (bool, any) { return mutexStep(state.(lockHolder), op) },
	DescribeState: func(state any) string { return state.(lockHolder).String() },
}

// ElectionModel is the porcupine model of a leader election seen as a
// lease: at most one leader at a time. Acquire is a Campaign that returned
// (the client became leader), Use is the leader acting as leader, Release
// is the leader resigning or learning it lost its leadership; the rules
// are the mutex's (mutexStep).
var ElectionModel = Model{
	Name:          "election",
	Doc:           "leader election (at most one leader at a time)",
	Kinds:         []OpKind{Acquire, Use, Release},
	Init:          func() any { return lockHolder{} },
	Step:          func(state any, op Operation) (bool, any) { return mutexStep(state.(lockHolder), op) },
	DescribeState: func(state any) string { return state.(lockHolder).String() },
}

// noToken stands for "no token yet" in a fence: lower than any token.
const noToken = math.MinInt64

// fence is the state of a lock over a fenced resource: the highest fencing
// token granted so far, and the highest one the resource accepted.
type fence struct {
	granted, accepted int64
}

func (f fence) String() string {
	show := func(t int64) string {
		if t == noToken {
			return "none"
		}
		return fmt.Sprint(t)
	}
	return fmt.Sprintf("granted up to token %s, resource at token %s", show(f.granted), show(f.accepted))
}

// fencedStep is the sequential specification of a lock over a fenced
// resource. Two clients may well believe they hold the lock at once (one
// of them paused while its lease expired); what must hold is what the
// resource saw:
//
//   - An acquire that returned (OK) with token t needs t above every token
//     granted before it: tokens must grow with each grant, or fencing is
//     void.
//   - An acquire whose answer the caller never saw (Pending, Unknown) is
//     always legal and changes nothing: no token was learnt, and nobody
//     presents it.
//   - A use the resource accepted (OK) with token t needs t no lower than
//     the highest token it accepted before; t is then the highest.
//   - A use the resource rejected with token t needs t below the highest
//     token it accepted: the resource was right to refuse.
//   - A release is always legal: the resource, not the lock, is judged.
//
// So a paused holder whose stale use is refused passes; a resource that
// accepted a stale use after a newer one fails, as does a lock that
// granted a token no higher than an earlier grant.
func fencedStep(f fence, op Operation) (bool, fence) {
	switch op.Kind {
	case Acquire:
		switch op.Result {
		case OK:
			return op.Token > f.granted, fence{granted: op.Token, accepted: f.accepted}
		case Pending, Unknown:
			return true, f
		}
	case Use:
		switch op.Result {
		case OK:
			return op.Token >= f.accepted, fence{granted: f.granted, accepted: op.Token}
		case Rejected:
			return op.Token < f.accepted, f
		}
	case Release:
		return op.Result == OK, f
	}
	return false, f
}

// FencedMutexModel is the porcupine model of a lock over a fenced
// resource (one that refuses a token older than one it accepted): tokens
// grow with each grant, and the resource accepts uses in token order (see
// fencedStep). It judges Acquire, Use and Release.
var FencedMutexModel = Model{
	Name:          "fenced-mutex",
	Doc:           "fenced mutex (tokens grow with each grant; the resource accepts no token older than one it accepted)",
	Kinds:         []OpKind{Acquire, Use, Release},
	Init:          func() any { return fence{granted: noToken, accepted: noToken} },
	Step:          func(state any, op Operation) (bool, any) { return fencedStep(state.(fence), op) },
	DescribeState: func(state any) string { return state.(fence).String() },
	Prepare:       fencedOnly,
}

// fencedOnly is ops without the operations fencedStep always allows and
// that change nothing (releases, and acquires whose answer the caller
// never saw): each could be placed anywhere in its interval, so leaving
// them out changes no verdict, and spares porcupine trying them at every
// point. ops is not changed.
func fencedOnly(ops []Operation) []Operation {
	var out []Operation
	for _, op := range ops {
		if op.Kind == Release && op.Result == OK {
			continue
		}
		if op.Kind == Acquire && (op.Result == Pending || op.Result == Unknown) {
			continue
		}
		out = append(out, op)
	}
	return out
}

func init() {
	registerModel(MutexModel)
	registerModel(FencedMutexModel)
	registerModel(ElectionModel)
}
