package search

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/scenarios"
	"github.com/zksim/zksim/workload"
)

// A session mistake found under random session-shaped faults shrinks to a
// counterexample of at most 3 faults, of the kind its lesson names, that
// replays exactly: disconnects, lost requests and faults tied to reads and
// notifications shrink as lost replies do. (-short shrinks the first
// mistake's only: the race detector makes the others minutes.)
func TestSessionFaultsShrink(t *testing.T) {
	for i, tc := range []struct{ kind, variant, fails string }{
		{"lock", "lock-requeues-on-disconnect", "liveness"},
		{"lock", "lock-release-trusts-connection-loss", "liveness"},
		{"lock", "lock-ignores-session-loss", "safety"},
		{"election", "election-trusts-deletion", "safety"},
		{"barrier", "barrier-no-sync", "safety"},
	} {
		t.Run(tc.variant, func(t *testing.T) {
			r := fault.SessionShaped()
			spec := scenarios.SessionPaced(scenarios.Spec{Kind: tc.kind, Variant: tc.variant, Rates: &r})
			res, err := Sweep{Spec: spec, Seeds: 50, StopAtFirst: true}.Run(context.Background())
			if err != nil || len(res.Failures) == 0 {
				t.Fatalf("not caught on 50 seeds: %v", err)
			}
			if testing.Short() && i > 0 {
				return
			}
			c, err := Shrink(spec, res.Failures[0].Seed, 100)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Schedule) > 3 || !hasKind(c.Violations, models.ViolationKind(tc.fails)) {
				t.Fatalf("shrunk to %d faults (%s): %v", len(c.Schedule), c.Faults(), c.Violations)
			}
			again, err := scenarios.Run(c.Spec, c.Seed, scenarios.Options{})
			if err != nil || scenarios.HashString(again.Result.Hash) != c.TraceHash {
				t.Fatalf("the counterexample does not replay: %v", err)
			}
		})
	}
}

// A pause-based counterexample shrinks to at most 3 faults, one of them a
// pause: the unfenced lock, under random faults heavy in process pauses and
// lost replies, breaks on many seeds; each of the first ten breaks shrinks
// to a schedule of at most 3 faults that names a pause and replays exactly
// (-short shrinks the first two).
func TestPauseCounterexamplesShrink(t *testing.T) {
	want := 10
	if testing.Short() {
		want = 2
	}
	rates := fault.Rates{Crash: 0.2, LeaderCrash: 0.2, Partition: 0.3, Isolate: 0.1, Pause: 0.3, Spike: 0.2, LoseReply: 2,
		Disconnect: 0.1, Lag: 0.1, LoseRequest: 1, Triggered: 1}
	spec := scenarios.Spec{Kind: "lock", Rates: &rates, Workload: workload.Shape{Rounds: 2, Steps: 10, Step: time.Second}}
	res, err := Sweep{Spec: spec, Seeds: 600}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	shrunk := 0
	for _, f := range res.Failures {
		if shrunk == want {
			break
		}
		if !strings.Contains(strings.Join(f.Schedule, "\n"), " pause c") {
			continue
		}
		shrunk++
		c, err := Shrink(spec, f.Seed, 100)
		if err != nil {
			t.Fatal(err)
		}
		paused := slices.ContainsFunc(c.Schedule, func(x fault.Fault) bool { return x.Kind == fault.Pause })
		if len(c.Schedule) > 3 || !paused {
			t.Errorf("seed %d shrunk to %d faults (%s); want at most 3, a pause among them", f.Seed, len(c.Schedule), c.Faults())
		}
		again, err := scenarios.Run(c.Spec, c.Seed, scenarios.Options{})
		if err != nil || scenarios.HashString(again.Result.Hash) != c.TraceHash {
			t.Errorf("seed %d's counterexample does not replay: %v", f.Seed, err)
		}
	}
	if shrunk < want {
		t.Fatalf("%d seeds of 600 broke the unfenced lock with a pause in their schedule; the test wants %d", shrunk, want)
	}
}

// Shrinking ends with its context: the counterexample found by then (the
// failing run itself, when the context has already ended) is returned.
func TestShrinkStopsWithItsContext(t *testing.T) {
	r := fault.SessionShaped()
	spec := scenarios.SessionPaced(scenarios.Spec{Kind: "lock", Variant: "lock-requeues-on-disconnect", Rates: &r})
	res, err := Sweep{Spec: spec, Seeds: 50, StopAtFirst: true}.Run(context.Background())
	if err != nil || len(res.Failures) == 0 {
		t.Fatalf("not caught on 50 seeds: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	runs := 0
	c, err := ShrinkContext(ctx, spec, res.Failures[0].Seed, 100, func(n, _, _ int) { runs = n })
	if err != nil {
		t.Fatal(err)
	}
	if want := len(res.Failures[0].Schedule); len(c.Schedule) != want || runs > 1 {
		t.Errorf("shrinking with an ended context made %d runs and gave %d faults; want the failing run's %d as they were",
			runs, len(c.Schedule), want)
	}
	if c.Minimal {
		t.Error("a shrink its context cut short calls its counterexample minimal")
	}
}

// Shrinking counts the runs that still fail the check, the original's
// among them, so that its progress line shows the search finding smaller
// counterexamples (it said "0 failing" throughout).
func TestShrinkCountsFailingRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("a whole shrink, half a minute under the race detector: the full pass runs it")
	}
	r := fault.SessionShaped()
	spec := scenarios.SessionPaced(scenarios.Spec{Kind: "lock", Variant: "lock-requeues-on-disconnect", Rates: &r})
	res, err := Sweep{Spec: spec, Seeds: 50, StopAtFirst: true}.Run(context.Background())
	if err != nil || len(res.Failures) == 0 {
		t.Fatalf("not caught on 50 seeds: %v", err)
	}
	var runs, failing int
	c, err := ShrinkContext(context.Background(), spec, res.Failures[0].Seed, 20, func(r, f, _ int) { runs, failing = r, f })
	if err != nil {
		t.Fatal(err)
	}
	if failing < 2 || failing > runs {
		t.Errorf("%d runs, %d failing (down to %d faults): want at least the original and one smaller failing", runs, failing, len(c.Schedule))
	}
}
