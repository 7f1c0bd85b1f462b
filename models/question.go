package models

import "slices"

// Question is what a violation asks to be explained: what its check cannot
// see in the history, which the run that recorded it can show (the nodes
// left under a lock, the server a read came from, the faults that struck
// meanwhile). The check that finds a violation sets it; what judges the
// run answers it by the question, never by the message's words, and
// Explain words the answer (the violation's Cause) into the message. The
// zero Question asks nothing.
type Question string

// The questions the checks ask.
const (
	// NoQuestion: the violation says all there is to say.
	NoQuestion Question = ""
	// OrphanedNode: a lock's waiter waited while nobody held it (the
	// liveness check): what did it wait behind? The check guesses "an
	// orphaned node?", which the answer replaces.
	OrphanedNode Question = "orphaned-node"
	// LeaseLeft: a semaphore's waiter waited while a lease was free (the
	// liveness check): which lease nodes were left, and whose? The
	// check's guess, which the answer replaces, is an orphaned lease node
	// or a missed release.
	LeaseLeft Question = "lease-left"
	// StaleRead: a read returned an older version than a write that had
	// returned before it was called (the store check): which server
	// answered it, and what had struck that server? The answer replaces
	// the check's "from a server that had not applied the write yet".
	StaleRead Question = "stale-read"
	// TwoHolders: two clients (more than a semaphore's permits) held at
	// once (the mutex, election, rwlock and semaphore checks): what struck
	// between the first holding and the last?
	TwoHolders Question = "two-holders"
	// LostItem: an item was never taken though a consumer kept asking
	// (the delivery checks): what did the consumer's last take send, and
	// what was it answered?
	LostItem Question = "lost-item"
	// FailedStep: a process could not enter or leave a double barrier
	// (the double-barrier check): why did its step fail?
	FailedStep Question = "failed-step"
	// Unconverged: a watcher's last view of a group was not the live
	// members (the membership check): what happened after that view?
	Unconverged Question = "unconverged"
)

// Questions are every question a check asks, in the order they are
// listed above.
func Questions() []Question {
	return []Question{OrphanedNode, LeaseLeft, StaleRead, TwoHolders, LostItem, FailedStep, Unconverged}
}

// Known reports whether q is NoQuestion or one of Questions.
func (q Question) Known() bool {
	return q == NoQuestion || slices.Contains(Questions(), q)
}

// guess is where a check's guess at the answer to its question stands in
// its violation's Message: bytes [from, to), which the answer replaces
// (Explain). The zero guess is none. The check that words the message
// knows where it put the guess; nothing reads the words back. Words added
// after the message (a run ended for lack of progress says so) leave it
// where it is.
type guess struct{ from, to int }

// guessAfter is where words stand in a message that begins with before,
// words next (none when words is "").
func guessAfter(before, words string) guess {
	if words == "" {
		return guess{}
	}
	return guess{len(before), len(before) + len(words)}
}

// shift is g in a message made of before and then the text g was found
// in (a model's explanation, after the violation's own words).
func (g guess) shift(before string) guess {
	if g.to <= g.from {
		return guess{}
	}
	return guess{g.from + len(before), g.to + len(before)}
}

// Explain answers v's Question with cause, what the run showed: it is
// kept in Cause and worded into the message. It takes the place of the
// check's guess (a lock's orphaned node, a semaphore's lease, the server a
// stale read came from), or follows what the check said (after "; ", or
// after ": " for a failed step, whose message ends "could not"). A
// violation that asks nothing, or an empty cause, is left as it was.
func (v *Violation) Explain(cause string) {
	if v.Question == NoQuestion || cause == "" {
		return
	}
	v.Cause = cause
	switch v.Question {
	case OrphanedNode, LeaseLeft:
		v.replaceGuess(": " + cause)
	case StaleRead:
		v.replaceGuess(cause)
	case FailedStep:
		v.Message += ": " + cause
	default:
		v.Message += "; " + cause
	}
}

// replaceGuess puts words in place of the check's guess in v's message;
// the guess is then gone. A message without one (made elsewhere, or
// already answered) is left as it was.
func (v *Violation) replaceGuess(words string) {
	g := v.guess
	if g.to <= g.from || g.to > len(v.Message) {
		return
	}
	v.Message = v.Message[:g.from] + words + v.Message[g.to:]
	v.guess = guess{}
}
