package models

import (
	"fmt"
	"math"
)

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
		case Pending, Unknown, Failed:
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
		return lets(op.Result), f
	}
	return false, f
}

// stepFenced is fencedStep on a model's state. A state it leaves as it
// was (a holder's further uses of its token, a use refused) is returned as
// the value it came in, not boxed anew: a check steps through every
// operation of its history, and each new box is an allocation.
func stepFenced(state any, op Operation) (bool, any) {
	f := state.(fence)
	ok, next := fencedStep(f, op)
	if next == f {
		return ok, state
	}
	return ok, next
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
	Step:          stepFenced,
	DescribeState: func(state any) string { return state.(fence).String() },
	Prepare:       fencedOnly,
	Narrow:        fencedParts,
	Witness:       fencedWitness,
}

// fencedOnly is ops without the operations fencedStep always allows and
// that change nothing (releases, and acquires whose answer the caller
// never saw): each could be placed anywhere in its interval, so leaving
// them out changes no verdict, and spares porcupine trying them at every
// point. ops is not changed.
func fencedOnly(ops []Operation) []Operation {
	out := make([]Operation, 0, len(ops))
	for _, op := range ops {
		if op.Kind == Release && lets(op.Result) {
			continue
		}
		if op.Kind == Acquire && (op.Result == Pending || op.Result == Unknown || op.Result == Failed) {
			continue
		}
		out = append(out, op)
	}
	return out
}

func init() {
	registerModel(FencedMutexModel)
}
