package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/sim"
)

// Spec is one experiment: an ensemble, a recipe kind and the
// implementation under test, the workload that drives it, the faults, and
// the checks that judge what the clients observed. A Spec and a seed make
// a run; the same pair always makes the same run.
type Spec struct {
	// Name names the experiment in reports.
	Name string
	// Kind is the recipe kind: one of Kinds().
	Kind string
	// Variant is a teaching variant of the kind (see `zksim list`); empty
	// for the recipe itself. Ignored when Impl is set.
	Variant string
	// Impl, when set, is the implementation under test (a user's own);
	// only the constructor of the Spec's kind is used.
	Impl *Implementation

	// Ensemble is the simulated world's configuration; its Seed and
	// Source are set per run, KeepTrace as the run needs.
	Ensemble sim.Config
	// Clients is the number of client processes (the kind's default when
	// zero).
	Clients int
	// Workload tunes the workload; zero fields take the kind's defaults.
	Workload Workload

	// Faults strike in every run.
	Faults fault.Schedule
	// Rates, when set, adds faults drawn from each run's seed, within
	// Horizon of the start (default 5s).
	Rates   *fault.Rates
	Horizon time.Duration
	// Swarm, with Rates, has each seed draw its own mix of them: which
	// kinds of fault are on, and how often each strikes (fault.Swarm), so
	// that the seeds together try many mixes where Rates alone is one.
	// Without Rates it draws nothing: a replay that sets a run's drawn
	// faults as Faults, and Rates to nil, runs them as they were.
	Swarm bool

	// Checks name the checkers that judge each run (models.Checks); the
	// kind's defaults when empty.
	Checks []string
	// Bound is the liveness bound (default: three session timeouts).
	Bound time.Duration
}

// Workload tunes how clients drive the recipe. Each kind reads the fields
// it documents; zero means the kind's default.
type Workload struct {
	// Rounds each client runs: acquisitions of a lock, campaigns,
	// barrier rounds, transactions, items put per producer, writes.
	Rounds int
	// Steps a holder (of a lock or a leadership) takes while it holds:
	// at each one it checks its lease (unless Careless), works for Step,
	// then uses the resource.
	Steps int
	// Step is how long one step's work takes (virtual time).
	Step time.Duration
	// Think is how long a client waits between rounds.
	Think time.Duration
	// Fenced puts the resource a lock or a leadership protects behind a
	// fence: it remembers the highest token it accepted and refuses lower
	// ones.
	Fenced bool
	// Careless holders never check their lease before using the resource.
	Careless bool
	// CheckBeforeUse makes a holder check its lease after each step's
	// work, right before it uses the resource, instead of before the work:
	// no window is left between the check and the use, and a holder that
	// acts on a lost lock does so because its lease said it held it.
	CheckBeforeUse bool
	// Readers is, for a shared lock, how many clients take read locks
	// (the others take write locks); for a configuration, how many clients
	// read (the others write); for membership, how many watch.
	Readers int
	// Consumers is, for a queue, how many clients take (the others put).
	Consumers int
	// Size is how many processes a double barrier waits for (default:
	// every client); for a semaphore, how many clients may hold a lease at
	// once (default 2).
	Size int
	// Sync makes readers call sync() before they read (the stale-read
	// scenario's reader).
	Sync bool
	// Together starts a holding workload's clients at once, all
	// contending from the start, instead of 5ms apart in order (the herd
	// figures measure a full queue).
	Together bool
	// Failures is how many processes the workload stops for good in the
	// middle of their work (a double barrier's process, a 2PC site, a
	// group member), to show that a failed process does not block the
	// rest.
	Failures int
}

// ClientCount is how many clients the spec runs: its own number, or its
// kind's default when it names none.
func (s Spec) ClientCount() int {
	d, _, err := s.withDefaults()
	if err != nil {
		return s.Clients
	}
	return d.Clients
}

// withDefaults returns s with its kind's defaults filled in, or an error
// naming what is wrong with it.
func (s Spec) withDefaults() (Spec, *kind, error) {
	k, err := lookupKind(s.Kind)
	if err != nil {
		return s, nil, err
	}
	if s.Impl == nil && s.Variant != "" {
		if _, err := k.variant(s.Variant); err != nil {
			return s, nil, err
		}
	}
	if s.Clients == 0 {
		s.Clients = k.clients
	}
	if s.Workload.Fenced && k.fenceless != "" {
		return s, nil, fmt.Errorf("workload.fenced: %s", k.fenceless)
	}
	if s.Clients < k.minClients {
		return s, nil, fmt.Errorf("clients: %d; a %s scenario needs at least %d", s.Clients, s.Kind, k.minClients)
	}
	if s.Horizon == 0 {
		s.Horizon = 5 * time.Second
	}
	if len(s.Checks) == 0 {
		s.Checks = k.checks(s)
	} else if err := k.judgedBy(s.Checks); err != nil {
		return s, nil, err
	}
	k.defaults(&s.Workload, s.Clients)
	return s, k, nil
}

// allChecks are the checks that can judge a kind's histories: those it
// runs, fenced or not, those it may (alsoChecks), and the herd, ownership
// and leaks checks, which read what any run's world saw.
// A check of another kind would find nothing to judge and pass a run it
// never looked at.
func (k *kind) allChecks() []string {
	out := append([]string{"herd", "ownership", "leaks"}, k.alsoChecks...)
	for _, fenced := range []bool{false, true} {
		for _, c := range k.checks(Spec{Kind: k.name, Workload: Workload{Fenced: fenced}}) {
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return out
}

// judgedBy refuses a check the spec names that is not one of the kind's.
func (k *kind) judgedBy(checks []string) error {
	all := k.allChecks()
	for _, c := range checks {
		if !slices.Contains(all, c) {
			return fmt.Errorf("checks: %q is not a check of a %s scenario (its checks: %s)", c, k.name, strings.Join(all, ", "))
		}
	}
	return nil
}

// KindChecks are the checks that can judge kind's histories (nil for an
// unknown kind).
func KindChecks(kind string) []string {
	k, err := lookupKind(kind)
	if err != nil {
		return nil
	}
	return k.allChecks()
}

// Crowded is s with the given number of clients contending at once, one
// acquisition (round) each: every client creates its node in the same
// instant and waits behind all the others (the 10,000-client target, and
// the herd figures' full queue).
func (s Spec) Crowded(clients int) Spec {
	s.Clients = clients
	s.Workload.Rounds = 1
	s.Workload.Together = true
	return s
}

// DefaultChecks are the checks a spec runs when it names none.
func DefaultChecks(s Spec) []string {
	s, _, err := s.withDefaults()
	if err != nil {
		return nil
	}
	return s.Checks
}

// rates are the spec's random fault rates, their session-shaped faults
// drawn around the ensemble's session timeout.
func (s Spec) rates() fault.Rates {
	r := *s.Rates
	if r.SessionTimeout == 0 {
		r.SessionTimeout = s.Ensemble.SessionTimeout
	}
	return r
}

// SessionPaced is spec set up to meet the session's faults, where the
// user left it to the defaults: a short session timeout (2s, ticks of
// 250ms), so that a run's work spans several; a holder (of a lock, a
// leadership) holding for 15s in three steps of 5s, each checked right
// before its use (Workload.CheckBeforeUse), so that a session can be
// lost, given up and replaced between two checks, as in a process that
// looks at its lease once per unit of work; producers, barrier rounds and
// clients that think a second between their operations; random faults
// drawn over 20s. A session mistake (a holder that ignores its session's
// loss, or adopts its node again under a new session; a waiter that takes
// a disconnect for an expiry; a read from a lagging server) only shows
// when the work goes on across a session timeout; with the kinds' own
// defaults a run is over in a fraction of one. It is the experiment
// zksimtest runs by default.
//
// The steps' length was measured: with the default faults and client-side
// session loss, a lock that adopts its old node breaks in 9% of the seeds
// with three 5s steps, 6% with two, 1% with three of 3s, never with ten of
// 500ms; the recipe's lock holds in all of them.
func SessionPaced(spec Spec) Spec {
	if spec.Ensemble.TickTime == 0 && spec.Ensemble.SessionTimeout == 0 {
		spec.Ensemble.TickTime, spec.Ensemble.SessionTimeout = 250*time.Millisecond, 2*time.Second
	}
	if spec.Horizon == 0 {
		spec.Horizon = 20 * time.Second
	}
	w := &spec.Workload
	switch spec.Kind {
	case "lock", "election", "shared-lock", "revocable-lock", "semaphore":
		if w.Steps == 0 && w.Step == 0 {
			w.Steps, w.Step, w.CheckBeforeUse = 3, 5*time.Second, true
		}
		orDefault(&w.Rounds, 2)
	case "barrier":
		orDefault(&w.Think, time.Second)
	case "queue", "priority-queue", "counter":
		orDefault(&w.Think, time.Second)
	}
	return spec
}
