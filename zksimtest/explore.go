package zksimtest

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/scenarios"
	"github.com/zksim/zksim/search"
)

// ExploreOptions bound an exhaustive exploration (Explore).
type ExploreOptions struct {
	// Options choose the experiment as for Check; their faults and rates
	// are left out: the exploration places its own.
	Options
	// MaxFaults bounds a schedule's faults (default 1).
	MaxFaults int
	// MinClients..Options.Clients are the client counts explored
	// (default: Options.Clients alone).
	MinClients int
	// Reads and Notifications tie faults to the clients' reads and the
	// watch notifications sent to them, besides their writes.
	Reads, Notifications bool
	// Holds ties faults to the moments a client comes to hold its lock
	// or leadership too (search.Explore.Holds; on for a fenced
	// workload).
	Holds bool
	// Faults replace search.ExploreFaults.
	Faults []string
}

// Explore runs kind's workload on impl under every fault schedule within
// the bound (search.Explore: each fault tied to one of the run's
// events, one of a few kinds, at most MaxFaults of them) and fails t at
// the first counterexample, with its report and the command that replays
// it. It logs how many schedules it ran, prints a progress line every few
// seconds, and stops at the wall-clock budget (-zksim.budget, or
// Options.Budget, or 2 minutes), saying it explored only part of the
// bound. The same bound explores the same schedules on every machine. With -zksim.seed it runs the counterexample
// its replay line names, alone.
func Explore(t testing.TB, kind string, impl recipes.Implementation, opt ExploreOptions) {
	t.Helper()
	// The experiment Check runs: paced across session timeouts, where a
	// session's mistakes show (scenarios.SessionPaced), its faults the
	// exploration's own.
	spec := scenarios.SessionPaced(experiment(t, kind, impl, opt.Options))
	if *flagSeed != 0 { // the replay line of a counterexample
		replay(t, withFlags(t, spec, ""))
		return
	}
	if opt.MaxFaults == 0 {
		opt.MaxFaults = 1
	}
	e := search.Explore{Spec: spec, MinClients: opt.MinClients, MaxClients: opt.Clients, MaxFaults: opt.MaxFaults,
		Reads: opt.Reads, Notifications: opt.Notifications, Holds: opt.Holds, Faults: opt.Faults, StopAtFirst: true}
	if err := e.Check(); err != nil {
		t.Fatalf("zksimtest: %v", err)
	}
	budget := budgetOf(opt.Options)
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	progress := newProgressLine(os.Stderr, t.Name(), "schedules", 0)
	e.Progress = progress.seen
	res, err := e.RunContext(ctx)
	progress.done()
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("zksimtest: %v", err)
	}
	if len(res.Counterexamples) == 0 {
		if err != nil {
			t.Logf("zksimtest: %s held on the %d schedules of up to %d faults explored within the budget of %s, not all of "+
				"them; raise -zksim.budget or Options.Budget to explore them all", kind, res.Explored, opt.MaxFaults, budget)
			return
		}
		t.Logf("zksimtest: %s held on every one of %d schedules of up to %d faults", kind, res.Explored, opt.MaxFaults)
		return
	}
	c := res.Counterexamples[0]
	o, err := scenarios.Replay(c.Spec, c.Seed)
	if err != nil {
		t.Fatalf("zksimtest: %v", err)
	}
	t.Logf("zksimtest: counterexample after %d schedules", res.Explored)
	fail(t, o, c.Clients, o.Spec.Workload.Rounds)
}
