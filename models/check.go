package models

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/zksim/zksim/client"
)

// ViolationKind says which sort of property a violation breaks.
type ViolationKind string

// The kinds of violation.
const (
	// Safety: something that must never happen did (two holders of a
	// lock, a commit nobody agreed to, a lost item).
	Safety ViolationKind = "safety"
	// Liveness: a client kept waiting although nothing should block it.
	Liveness ViolationKind = "liveness"
	// Herd: one event woke more clients than could proceed.
	Herd ViolationKind = "herd"
	// Undecided: a check could not decide, within its time limit
	// (Input.CheckLimit), or because the run ended before what it judges
	// could show (a wait still short of the bound). Never a pass: the run
	// is judged undecided.
	Undecided ViolationKind = "undecided"
)

// Violation is one broken property, as a person reads it.
type Violation struct {
	// Check names the checker that found it (see Checks).
	Check string `json:"check"`
	// Kind is safety, liveness or herd, or unknown for a check that ran
	// out of its time limit.
	Kind ViolationKind `json:"kind"`
	// Object is the lock, queue, path or transaction concerned.
	Object string `json:"object,omitempty"`
	// At is the virtual time (ns since the run's start) the violation
	// shows, when one instant does.
	At int64 `json:"at,omitempty"`
	// Message says what went wrong.
	Message string `json:"message"`
	// Ops are the operations that show it.
	Ops []Operation `json:"ops,omitempty"`
	// Question is what the violation asks the run to explain (see
	// Question), set by the check that found it; NoQuestion for none.
	Question Question `json:"question,omitempty"`
	// Cause is the run's answer to Question, filled when the run is
	// judged (Explain); "" until then, or when the run could not tell.
	Cause string `json:"cause,omitempty"`
	// guess is where Message holds the check's guess at the answer, which
	// Explain replaces.
	guess guess
	// Linearization is porcupine's account of a failed linearizability
	// check, for its HTML visualization (nil for other checks).
	Linearization *Linearization `json:"-"`
}

func (v Violation) String() string {
	s := fmt.Sprintf("%s (%s)", v.Check, v.Kind)
	if v.Object != "" {
		s += " on " + v.Object
	}
	if v.At != 0 {
		s += " at " + client.FormatTime(v.At)
	}
	return s + ": " + v.Message
}

// Linearization is a failed porcupine check, kept for its visualization.
type Linearization struct {
	Model porcupine.Model
	Info  porcupine.LinearizationInfo
}

// Input is what the checkers judge: a run's history and what is known of
// the run around it.
type Input struct {
	// Ops is the history, in any order.
	Ops []Operation
	// Start is the virtual time the run started at (ns): times in Ops are
	// on the same clock, and reports count from here.
	Start int64
	// End is when the run ended; a Pending operation's Return is End.
	End int64
	// Stuck says the run ended because nothing could happen any more (a
	// deadlock): a pending operation would have waited for ever.
	Stuck bool
	// Bound is how long a client may wait for something that nothing
	// blocks before the liveness checks call it a violation; it must
	// cover a session timeout (a dead holder's node lingers that long)
	// and an election. Zero means three session timeouts.
	Bound time.Duration
	// SessionTimeout is the clients' session timeout (default
	// client.DefaultSessionTimeout).
	SessionTimeout time.Duration
	// Size is the number of processes a double barrier waits for.
	Size int
	// Permits is how many clients may hold an Acquire's object at once: a
	// semaphore's max (0 or 1: one, a lock's or an election's). The
	// semaphore check and the liveness check read it.
	Permits int
	// Proceed is how many clients one release may rightly wake (1 for a
	// lock or an election; the herd check's threshold).
	Proceed int
	// Traffic is what the servers did and sent, for the herd metrics.
	Traffic []Traffic
	// ForeignDeletes are the ephemeral nodes deleted by a session other
	// than their owner's, for the ownership check (nil: none, or a world
	// that cannot tell).
	ForeignDeletes []ForeignDelete
	// Leftovers are the nodes left at the end of the run by clients that
	// had closed their sessions, for the leaks check (nil: none, or not
	// gathered).
	Leftovers []Leftover
	// CheckLimit bounds porcupine's search of one object's history (zero:
	// no limit). A search that runs out of it is reported as an Undecided
	// violation, never as a pass. The limit is the one place a verdict
	// can depend on the machine: a run that hits it is undecided, and
	// zksim check decides its history without a limit.
	CheckLimit time.Duration
}

// SessionTimeoutOrDefault is in.SessionTimeout, or
// client.DefaultSessionTimeout.
func (in *Input) SessionTimeoutOrDefault() time.Duration {
	if in.SessionTimeout > 0 {
		return in.SessionTimeout
	}
	return client.DefaultSessionTimeout
}

// BoundOrDefault is in.Bound, or three session timeouts.
func (in *Input) BoundOrDefault() time.Duration {
	if in.Bound > 0 {
		return in.Bound
	}
	return 3 * in.SessionTimeoutOrDefault()
}

// Since renders t relative to the run's start.
func (in *Input) Since(t int64) string { return client.FormatTime(t - in.Start) }

// Checker is one named check.
type Checker struct {
	// Name is how scenarios and the command line refer to it.
	Name string
	// Kind is the sort of property it checks.
	Kind ViolationKind
	// Doc says in a line what it checks.
	Doc string
	// Check judges a run.
	Check func(in *Input) []Violation
}

var checkers = map[string]Checker{}

// register adds a checker; each checker's file registers its own.
func register(c Checker) {
	if _, dup := checkers[c.Name]; dup {
		panic("models: two checkers named " + c.Name)
	}
	checkers[c.Name] = c
}

// Checks lists every checker, by name.
func Checks() []Checker {
	out := make([]Checker, 0, len(checkers))
	for _, c := range checkers {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Checker) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Lookup finds a checker by name.
func Lookup(name string) (Checker, error) {
	if c, ok := checkers[name]; ok {
		return c, nil
	}
	var names []string
	for _, c := range Checks() {
		names = append(names, c.Name)
	}
	return Checker{}, fmt.Errorf("no check named %q; want one of %s", name, strings.Join(names, ", "))
}

// Run runs the named checks on in, in the order named.
func Run(in *Input, names ...string) ([]Violation, error) {
	var out []Violation
	for _, n := range names {
		c, err := Lookup(n)
		if err != nil {
			return nil, err
		}
		out = append(out, c.Check(in)...)
	}
	return out, nil
}

// Of keeps the operations of the given kinds, in their order.
func Of(ops []Operation, kinds ...OpKind) []Operation {
	var out []Operation
	for i := range ops {
		if slices.Contains(kinds, ops[i].Kind) {
			out = append(out, ops[i])
		}
	}
	return out
}

// kindSet is a set of operation kinds.
type kindSet []OpKind

// kindsOf is the kinds of the operations of ops.
func kindsOf(ops []Operation) kindSet {
	var set kindSet
	last := OpKind("")
	for i := range ops {
		if k := ops[i].Kind; k != last || len(set) == 0 {
			if !slices.Contains(set, k) {
				set = append(set, k)
			}
			last = k
		}
	}
	return set
}

// hasAny reports whether s has any of kinds.
func (s kindSet) hasAny(kinds ...OpKind) bool {
	return slices.ContainsFunc(kinds, func(k OpKind) bool { return slices.Contains(s, k) })
}

// sortViolations orders violations by object, time, check and message, so a
// checker's output does not depend on map iteration.
func sortViolations(vs []Violation) {
	slices.SortStableFunc(vs, func(a, b Violation) int {
		return cmp.Or(strings.Compare(a.Object, b.Object), cmp.Compare(a.At, b.At), strings.Compare(a.Check, b.Check),
			strings.Compare(a.Message, b.Message))
	})
}
