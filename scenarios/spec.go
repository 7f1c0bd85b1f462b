package scenarios

import (
	"fmt"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/workload"
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
	Impl *recipes.Implementation

	// Ensemble is the simulated world's configuration; its Seed and
	// Source are set per run, KeepTrace as the run needs.
	Ensemble sim.Config
	// Clients is the number of client processes (the kind's default when
	// zero).
	Clients int
	// Workload tunes the workload; zero fields take the kind's defaults.
	Workload workload.Shape

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

// ClientCount is how many clients the spec runs: its own number, or its
// kind's default when it names none.
func (s Spec) ClientCount() int {
	d, _, err := s.withDefaults()
	if err != nil {
		return s.Clients
	}
	return d.Clients
}

// WithDefaults is s with its kind's defaults filled in, or an error naming
// what is wrong with it.
func (s Spec) WithDefaults() (Spec, error) {
	d, _, err := s.withDefaults()
	return d, err
}

// withDefaults is WithDefaults, and s's kind.
func (s Spec) withDefaults() (Spec, *workload.Kind, error) {
	k, err := workload.Lookup(s.Kind)
	if err != nil {
		return s, nil, err
	}
	if s.Impl == nil && s.Variant != "" {
		if _, err := k.Variant(s.Variant); err != nil {
			return s, nil, err
		}
	}
	if s.Clients == 0 {
		s.Clients = k.Clients()
	}
	if s.Workload.Fenced && k.Fenceless() != "" {
		return s, nil, fmt.Errorf("workload.fenced: %s", k.Fenceless())
	}
	if s.Clients < k.MinClients() {
		return s, nil, fmt.Errorf("clients: %d; a %s scenario needs at least %d", s.Clients, s.Kind, k.MinClients())
	}
	if s.Horizon == 0 {
		s.Horizon = 5 * time.Second
	}
	if len(s.Checks) == 0 {
		s.Checks = k.Checks(s.plan())
	} else if err := k.JudgedBy(s.Checks); err != nil {
		return s, nil, err
	}
	k.Defaults(&s.Workload, s.Clients)
	return s, k, nil
}

// plan is what the kind's workload and hooks are given of s.
func (s Spec) plan() workload.Plan {
	return workload.Plan{Clients: s.Clients, Shape: s.Workload, Bound: s.Bound, SessionTimeout: s.SessionTimeout(),
		FaultsOver: faultsOverAt(s)}
}

// implementation is what s runs: the user's, a variant's, or the recipe.
func (s Spec) implementation(k *workload.Kind) recipes.Implementation {
	return k.Implementation(s.Impl, s.Variant)
}

// SessionTimeout is the session timeout s's clients ask for: the
// ensemble's, or client.DefaultSessionTimeout.
func (s Spec) SessionTimeout() time.Duration {
	if s.Ensemble.SessionTimeout > 0 {
		return s.Ensemble.SessionTimeout
	}
	return client.DefaultSessionTimeout
}

// faultsOverAt is when the faults of s are over at the latest: the end of
// its last timed fault (a pause's end, a spike's), and, when it draws
// faults at random, the end of its horizon plus the longest a drawn fault
// lasts (a pause, up to 20s; crashes and cuts heal within 10s, see
// fault.Rates). A fault tied to an event strikes at once and is not
// counted.
func faultsOverAt(s Spec) time.Duration {
	var end time.Duration
	for _, f := range s.Faults {
		switch {
		case f.When != nil:
		case f.Kind == fault.Pause:
			end = max(end, f.At+f.D)
		default:
			end = max(end, f.At+f.For)
		}
	}
	if s.Rates != nil {
		end = max(end, s.Horizon+20*time.Second)
	}
	return end
}

// KindChecks are the checks that can judge kind's histories (nil for an
// unknown kind).
func KindChecks(kind string) []string {
	k, err := workload.Lookup(kind)
	if err != nil {
		return nil
	}
	return k.AllChecks()
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
		if w.Rounds == 0 {
			w.Rounds = 2
		}
	case "barrier", "queue", "priority-queue", "counter":
		if w.Think == 0 {
			w.Think = time.Second
		}
	}
	return spec
}
