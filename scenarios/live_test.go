package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/live"
	"github.com/zksim/zksim/workload"
)

// liveEnsemble starts a local ensemble for a test (installing ZooKeeper
// when it is missing) and stops it at the test's end. It fails, never
// skips, when none can be had.
func liveEnsemble(t *testing.T, size int) *live.Ensemble {
	t.Helper()
	e, err := live.StartEnsemble(size, live.EnsembleOptions{})
	if err != nil {
		t.Fatalf("a local ensemble of %d: %v", size, err)
	}
	t.Cleanup(func() {
		if err := e.Stop(); err != nil {
			t.Errorf("stopping the ensemble: %v", err)
		}
	})
	return e
}

// The built-in scenarios reach on a live ensemble the verdicts they reach
// in the simulator: the recipe's lock holds, a lost create() reply breaks
// the no-guid lock (the liveness check, within its bound), the unfenced
// holder paused past its session is caught and the fenced one is not.
// (The stale reads, which cut links between servers, are
// TestStaleReadNamesItsServerLive's.)
func TestScenariosLive(t *testing.T) {
	if testing.Short() {
		t.Log("-short: the live scenarios run in the full test")
		return
	}
	t.Parallel() // its own ensemble, mostly waiting: beside the other long live tests
	e := liveEnsemble(t, 3)
	// Live runs take real time: shorter holds, a 4s session (ZooKeeper's
	// least with a 2s tick) and a pause past it, and a bound that fits.
	fast := func(s *Spec) {
		s.Ensemble.SessionTimeout = 4 * time.Second
		s.Workload.Steps = min(max(s.Workload.Steps, 1), 10)
	}
	pause := fault.MustParseSchedule("when c1 holds#1: pause c1 10s")
	never := fault.MustParseSchedule("when c1 create#99 applied: lose-reply") // c1 makes far fewer
	counterLostReplies := fault.MustParseSchedule("when c1 setData#3 applied: lose-reply; when c2 setData#2 applied: lose-reply")
	for _, tc := range []struct {
		name    string
		adjust  func(*Spec)
		timeout time.Duration
		weak    bool     // a fault the scenario names never strikes
		cause   []string // what its violation must say
	}{
		{"lock-contention", func(s *Spec) { s.Workload.Rounds = 10 }, 60 * time.Second, false, nil},
		{"lock-herd", func(s *Spec) {}, 60 * time.Second, false, nil},    // the herd check, from the clients' notifications
		{"queue-relist", func(s *Spec) {}, 60 * time.Second, false, nil}, // and from the requests they sent
		{"2pc-sites-watch-votes", func(s *Spec) {}, 60 * time.Second, false, nil},
		{"double-barrier-herd", func(s *Spec) {}, 60 * time.Second, false, nil},
		{"lock-noguid-lost-reply", func(s *Spec) { s.Bound = 3 * time.Second }, 8 * time.Second, false,
			// The cause, read from the nodes as the run ended, not guessed.
			[]string{"c1's, whose create's reply was lost (when c1 create#3 applied: lose-reply, struck at", "c1 queued again"}},
		{"lock-unfenced-pause", func(s *Spec) { fast(s); s.Faults = pause }, 60 * time.Second, false,
			[]string{"meanwhile: when c1 holds#1: pause c1 10s (struck at"}},
		{"lock-fenced-pause", func(s *Spec) { fast(s); s.Faults = pause }, 60 * time.Second, false, nil},
		{"lock-contention", func(s *Spec) { s.Workload.Rounds = 2; s.Faults = never }, 60 * time.Second, true, nil},
		// The counter: the lost setData() replies the recipe recovers from
		// by its sequence numbers, and that counter-retry-blind applies twice.
		{"counter-faults", func(s *Spec) { s.Rates, s.Faults = nil, counterLostReplies }, 60 * time.Second, false, nil},
		{"counter-retry-blind", func(s *Spec) {}, 60 * time.Second, false, []string{"an increment was applied twice"}},
		// A fault tied to a failed request: c1's first delete that lost a
		// race for its item has its reply lost, live as in the simulator.
		{"queue-claims-nonode", func(s *Spec) {}, 60 * time.Second, false, []string{"was taken 2 times"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := LoadScenario(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			spec := sc.Spec
			tc.adjust(&spec)
			o, err := RunLive(spec, 1, LiveOptions{Servers: e.ConnectString(), Ensemble: e, Timeout: tc.timeout})
			if err != nil {
				t.Fatal(err)
			}
			if o.Simulation != nil {
				t.Error("a live run's outcome carries a simulator's account")
			}
			matched := sc.Expect.Met(o.Violations)
			t.Logf("%s live: %d operations in %s, violations %v", tc.name, len(o.Input.Ops), o.Wall.Round(time.Millisecond), o.Violations)
			if !matched {
				t.Fatalf("expected %s, got %v", sc.Expect, o.Violations)
			}
			for _, c := range tc.cause {
				if len(o.Violations) == 0 || !strings.Contains(o.Violations[0].Message, c) {
					t.Errorf("the violation does not tell its cause (%q): %v", c, o.Violations)
				}
			}
			// Every scheduled fault is accounted for: it struck, or it is
			// said never to have.
			if len(o.Injected)+len(o.NeverStruck) != len(spec.Faults) || len(spec.Faults) > 0 && len(o.Injected) == 0 && !tc.weak {
				t.Errorf("faults %v: injected %v, never struck %v", spec.Faults, o.Injected, o.NeverStruck)
			}
			// Each injected fault says when it struck, on the run's clock
			// and the wall's, in order; a named fault that never struck
			// makes the run weak.
			for i, f := range o.Injected {
				if f.At < 0 || f.At > o.Wall || f.AtMs != float64(f.At.Microseconds())/1000 || i > 0 && f.Wall.Before(o.Injected[i-1].Wall) {
					t.Errorf("injected %+v (run of %s)", f, o.Wall)
				}
			}
			if (o.Weak != "") != tc.weak || tc.weak && !strings.Contains(o.Weak, "never struck") {
				t.Errorf("weak %q, want weak: %v", o.Weak, tc.weak)
			}
			// Its coverage, as the simulator counts it: the faults that
			// struck or not, and the kind's situations (the contended lock
			// of ten rounds made clients wait for a holder).
			struck, never := 0, 0
			for k, n := range o.Coverage {
				if strings.HasPrefix(k, "struck: ") {
					struck += n
				}
				if strings.HasPrefix(k, "never struck: ") {
					never += n
				}
			}
			if struck != len(o.Injected) || never != len(o.NeverStruck) ||
				tc.name == "lock-contention" && !tc.weak && o.Coverage["acquires that waited for a holder"] == 0 {
				t.Errorf("coverage %v, injected %d, never struck %d", o.Coverage, len(o.Injected), len(o.NeverStruck))
			}
		})
	}
}

// Every recipe's workload holds on a live ensemble as it does in the
// simulator (no faults; a 4s session so the runs that wait out a session
// timeout are short).
func TestEveryRecipeHoldsLive(t *testing.T) {
	if testing.Short() {
		t.Log("-short: the live recipes run in the full test")
		return
	}
	t.Parallel() // its own ensemble, mostly waiting: beside the other long live tests
	e := liveEnsemble(t, 3)
	for _, k := range workload.Kinds() {
		if k == "stale-read" {
			continue // it needs a follower cut from its leader
		}
		spec := Spec{Kind: k}
		spec.Ensemble.SessionTimeout = 4 * time.Second
		o, err := RunLive(spec, 1, LiveOptions{Servers: e.ConnectString(), Ensemble: e, Timeout: 60 * time.Second})
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if o.TimedOut || len(o.Violations) > 0 || len(o.Input.Ops) == 0 {
			t.Errorf("%s live: %d operations in %s, timed out %v, violations %v", k, len(o.Input.Ops), o.Wall, o.TimedOut, o.Violations)
		}
	}
}

// A stale read live, the link s1–s3 cut through the ensemble's proxies,
// names the server it came from and the fault that had struck it, as in
// the simulator (TestStaleReadNamesItsServer).
func TestStaleReadNamesItsServerLive(t *testing.T) {
	if testing.Short() {
		t.Log("-short: the live stale read runs in the full test")
		return
	}
	e, err := live.StartEnsemble(3, live.EnsembleOptions{ProxyPeers: true})
	if err != nil {
		t.Fatalf("a local ensemble with proxied links: %v", err)
	}
	t.Cleanup(func() { e.Stop() })
	sc, err := LoadScenario("stale-read")
	if err != nil {
		t.Fatal(err)
	}
	o, err := RunLive(sc.Spec, 1, LiveOptions{Servers: e.ConnectString(), Ensemble: e, Timeout: 60 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	want := "a stale read, from s1, which had not applied the write yet (at 500ms partition s1 s3)"
	if len(o.Violations) == 0 || !strings.Contains(o.Violations[0].Message, want) {
		t.Fatalf("%v; want it to say %q", o.Violations, want)
	}
}

// naming-resolve-no-sync is caught live as in the simulator: s2 lags from
// 4.5s for 20s, and c1, on s2, resolving once its own registrations are
// done, reads a name registered elsewhere since as missing. Live runs go on
// while their faults are not over; the naming workload's resolutions do,
// not its registrations, or every read would come after the lag.
func TestNamingResolveNoSyncLive(t *testing.T) {
	if testing.Short() {
		t.Log("-short: the live lag runs in the full test")
		return
	}
	e, err := live.StartEnsemble(3, live.EnsembleOptions{ProxyPeers: true})
	if err != nil {
		t.Fatalf("a local ensemble with proxied links: %v", err)
	}
	t.Cleanup(func() { e.Stop() })
	sc, err := LoadScenario("naming-resolve-no-sync")
	if err != nil {
		t.Fatal(err)
	}
	o, err := RunLive(sc.Spec, 1, LiveOptions{Servers: e.ConnectString(), Ensemble: e, Timeout: 90 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !sc.Expect.Met(o.Violations) {
		t.Fatalf("expected %s, got %v", sc.Expect, o.Violations)
	}
	if want := "was told there is no such name"; !strings.Contains(o.Violations[0].Message, want) {
		t.Errorf("%v; want a name read as missing (%q)", o.Violations, want)
	}
}

// Faults on the links between servers strike live through the local
// ensemble's proxies: the leader cut from both followers loses its place
// (another leads while it is cut) and the recipe's lock holds; every link
// slowed, it holds too. The leader's process stopped (SIGSTOP) past
// syncLimit ticks loses its place too. Each fault is reported as struck.
func TestLinkFaultsLive(t *testing.T) {
	if testing.Short() {
		t.Log("-short: the live link faults run in the full test")
		return
	}
	t.Parallel() // its own ensemble, mostly waiting: beside the other long live tests
	var elog strings.Builder
	e, err := live.StartEnsemble(3, live.EnsembleOptions{ProxyPeers: true, Log: &elog})
	if err != nil {
		t.Fatalf("a local ensemble with proxied links: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the ensemble's log:\n%s", elog.String())
		}
		e.Stop()
	})
	leader := e.Leader()
	for _, faults := range []string{
		fmt.Sprintf("at 500ms isolate s%d for 20s", leader+1),
		"at 300ms spike 150ms for 2s",
		fmt.Sprintf("at 300ms partition c1 s%d for 2s", leader+1),
		"at 500ms pause leader 25s", // syncLimit (10s) to notice, an election, and margin on a loaded machine
	} {
		leader := e.Leader()
		spec := Spec{Kind: "lock", Clients: 3, Workload: workload.Shape{Fenced: true, Rounds: 6}, Faults: fault.MustParseSchedule(faults)}
		spec.Ensemble.SessionTimeout = 6 * time.Second
		if !NeedsProxiedLinks(spec) && !strings.Contains(faults, "partition c1") && !strings.Contains(faults, "pause") {
			t.Errorf("%s: not said to need proxied links", faults)
		}
		leaders := watchLeaders(e)
		var log strings.Builder
		o, err := RunLive(spec, 1, LiveOptions{Servers: e.ConnectString(), Ensemble: e, Timeout: 90 * time.Second, Log: &log})
		seen := leaders()
		if err != nil {
			t.Fatalf("%s: %v", faults, err)
		}
		t.Logf("%s: %d operations in %s, injected %v, leaders seen %v", faults, len(o.Input.Ops), o.Wall.Round(time.Millisecond), o.Injected, seen)
		if len(o.Violations) > 0 || o.TimedOut || len(o.Injected) != 1 || o.Weak != "" {
			t.Errorf("%s: violations %v, timed out %v, injected %v, weak %q", faults, o.Violations, o.TimedOut, o.Injected, o.Weak)
		}
		if (strings.Contains(faults, "isolate") || strings.Contains(faults, "pause")) &&
			!slices.ContainsFunc(seen, func(l int) bool { return l != leader }) {
			t.Errorf("%s: no other server led while s%d, the leader, was cut off or stopped (leaders seen %v); the fault log:\n%s",
				faults, leader+1, seen, log.String())
		}
		if err := e.WaitReady(60 * time.Second); err != nil {
			t.Fatalf("after %s: %v", faults, err)
		}
	}
}

// watchLeaders polls which server leads, every 100ms, until the function
// it returns is called; that returns every leader seen (0-based).
func watchLeaders(e *live.Ensemble) func() []int {
	stop := make(chan struct{})
	done := make(chan []int)
	go func() {
		var seen []int
		for {
			if l := e.Leader(); l >= 0 && !slices.Contains(seen, l) {
				seen = append(seen, l)
			}
			select {
			case <-stop:
				done <- seen
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return func() []int {
		close(stop)
		return <-done
	}
}
