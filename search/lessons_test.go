package search

import (
	"cmp"
	"context"
	"flag"
	"testing"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/scenarios"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/workload"
)

var soakSeeds = flag.Int("seeds", 0, "seeds per recipe for TestRecipesHoldUnderEveryFault (default 20, 5 with -short); `make soak` runs 10000")

// everyFault strikes with every kind of fault (fault.EveryFault).
var everyFault = fault.EveryFault()

// noPause is everyFault without long process pauses and expiry, which
// take a holder's session away unannounced; short pauses and disconnects
// stay. (The shared locks, whose model has no fence, run under
// unannounced, below.)
var noPause = fault.Rates{Crash: 0.2, LeaderCrash: 0.2, Partition: 0.3, Isolate: 0.1, ShortPause: 0.2, Spike: 0.2, LoseReply: 2,
	Disconnect: 0.1, Outage: 0.02, Lag: 0.1, LoseRequest: 1, Triggered: 1}

// unannounced is noPause without the cuts between servers, which take a
// holder's session away unannounced as well: a server cut off from the
// quorum (a leader isolated, a follower cut from its leader) answers its
// clients from its own tree until it notices, syncLimit × tickTime later
// (10s, as long as a session), while the quorum expires the sessions it
// stops hearing from and hands their locks on. Its client reads that it
// holds the lock, as a paused one would believe it (soak seed 851: a
// short pause and a leader isolated for 8.4s, together longer than the
// session). Only a fence survives that.
var unannounced = func() fault.Rates {
	r := noPause
	r.Partition, r.Isolate = 0, 0
	return r
}()

// The correct recipes hold under every kind of fault. Locks and elections
// protect a fenced resource: a holder paused past its session timeout
// breaks any unfenced lock (TestUnfencedPauseIsCaughtFencedPasses); the
// shared locks, whose model has no fence, run without long pauses and
// without cuts between servers (unannounced).
func TestRecipesHoldUnderEveryFault(t *testing.T) {
	seeds := 20
	if testing.Short() {
		seeds = 5
	}
	if *soakSeeds > 0 {
		seeds = *soakSeeds
	}
	fenced := workload.Shape{Fenced: true}
	specs := []scenarios.Spec{
		{Kind: "lock", Workload: fenced, Rates: &everyFault},
		{Kind: "election", Workload: fenced, Rates: &everyFault},
		{Kind: "shared-lock", Rates: &unannounced},
		{Kind: "revocable-lock", Rates: &unannounced},
		{Kind: "semaphore", Rates: &unannounced},
		{Kind: "barrier", Rates: &everyFault},
		{Kind: "double-barrier", Rates: &everyFault},
		{Kind: "queue", Rates: &everyFault},
		{Kind: "priority-queue", Rates: &everyFault},
		{Kind: "2pc", Rates: &everyFault},
		{Kind: "membership", Rates: &everyFault},
		// The group whose watchers keep their view from a persistent watch.
		{Name: "membership (cached)", Kind: "membership", Rates: &everyFault, Impl: &recipes.Implementation{
			Membership: func(c client.Conn, p, name string) recipes.Membership { return recipes.NewCachedGroup(c, p, name) }}},
		// The group whose member keeps its node from callbacks on an event thread.
		{Name: "membership (keeper)", Kind: "membership", Rates: &everyFault, Impl: &recipes.Implementation{
			Membership: func(c client.Conn, p, name string) recipes.Membership { return recipes.NewKeeper(c, p, name) }}},
		{Kind: "config", Rates: &everyFault},
		{Kind: "naming", Rates: &everyFault},
		{Kind: "counter", Rates: &everyFault},
		// Reads may be stale under faults (stale-read): the writes hold.
		{Kind: "stale-read", Rates: &everyFault, Checks: []string{"store-writes"}},
	}
	kinds := map[string]bool{}
	for _, spec := range specs {
		kinds[spec.Kind] = true
		res, err := Sweep{Spec: spec, Seeds: seeds}.Run(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", cmp.Or(spec.Name, spec.Kind), err)
		}
		for _, f := range res.Failures {
			t.Errorf("%s, seed %d: %v\nfaults: %s", cmp.Or(spec.Name, spec.Kind), f.Seed, f.Violations, f.Schedule)
		}
	}
	for _, k := range workload.Kinds() {
		if !kinds[k] {
			t.Errorf("kind %s is not tested under faults", k)
		}
	}
}

// Each teaching variant fails the check its lesson names, on one of a few
// seeds; rapid shrinks the counterexample to at most 3 faults, and it
// still fails that way (in the full pass: -short leaves the shrinking
// out). The recipe passes the same experiment.
func TestLessons(t *testing.T) {
	lessons, err := scenarios.Lessons()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lessons {
		t.Run(l.Variant.Name, func(t *testing.T) {
			res, err := Sweep{Spec: l.Scenario.Spec, Seeds: l.Scenario.Seeds, StopAtFirst: true}.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Failures) == 0 {
				t.Fatalf("no violation on %d seeds", l.Scenario.Seeds)
			}
			f := res.Failures[0]
			if !hasKind(f.Violations, models.ViolationKind(l.Variant.Fails)) {
				t.Fatalf("seed %d: %v, want a %s violation", f.Seed, f.Violations, l.Variant.Fails)
			}
			if !testing.Short() { // shrinking every variant is the full pass's (under -race, two minutes)
				lessonShrinks(t, l, f.Seed)
			}
			recipe := l.Scenario.Spec
			recipe.Variant = ""
			ok, err := Sweep{Spec: recipe, Seeds: l.Scenario.Seeds}.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range ok.Failures {
				t.Errorf("the recipe fails %s's experiment, seed %d: %v", l.Variant.Name, f.Seed, f.Violations)
			}
		})
	}
}

// lessonShrinks checks that l's counterexample on seed shrinks to at most
// 3 faults that still fail the way its lesson says, and replays exactly.
func lessonShrinks(t *testing.T, l scenarios.Lesson, seed uint64) {
	t.Helper()
	c, err := Shrink(l.Scenario.Spec, seed, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Schedule) > 3 || !hasKind(c.Violations, models.ViolationKind(l.Variant.Fails)) {
		t.Fatalf("shrunk to %d faults (%s): %v", len(c.Schedule), c.Faults(), c.Violations)
	}
	again, err := scenarios.Run(c.Spec, c.Seed, scenarios.Options{})
	if err != nil || scenarios.HashString(again.Result.Hash) != c.TraceHash || !again.Failed() {
		t.Fatalf("the counterexample does not replay: %v %v", err, again.Violations)
	}
}

func hasKind(vs []models.Violation, k models.ViolationKind) bool {
	for _, v := range vs {
		if v.Kind == k {
			return true
		}
	}
	return false
}

// A holder paused past its session timeout between its lease check and
// its use of the resource: the next client gets the lock, and the paused
// holder's use lands while the other holds it. Unfenced, the mutex check
// catches it; over a fenced resource, the same schedule passes: the stale
// token is refused.
func TestUnfencedPauseIsCaughtFencedPasses(t *testing.T) {
	pause := fault.MustParseSchedule("at 1500ms pause c1 15s")
	hold := workload.Shape{Rounds: 1, Steps: 30, Step: time.Second}
	for seed := uint64(1); seed <= 5; seed++ {
		o, err := scenarios.Run(scenarios.Spec{Kind: "lock", Clients: 2, Workload: hold, Faults: pause}, seed, scenarios.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(o.Violations) != 1 || o.Violations[0].Check != "mutex" {
			t.Fatalf("seed %d, unfenced: %v, want a mutex violation", seed, o.Violations)
		}
		hold.Fenced = true
		o, err = scenarios.Run(scenarios.Spec{Kind: "lock", Clients: 2, Workload: hold, Faults: pause}, seed, scenarios.Options{})
		hold.Fenced = false
		if err != nil {
			t.Fatal(err)
		}
		rejected := 0
		for _, op := range o.Input.Ops {
			if op.Result == models.Rejected {
				rejected++
			}
		}
		if o.Failed() || rejected != 1 {
			t.Fatalf("seed %d, fenced: %v with %d uses rejected, want no violation and c1's stale use rejected", seed, o.Violations, rejected)
		}
	}
}

// Every built-in scenario reaches the verdict it expects: one expecting a
// pass on a modest number of seeds (at most 10; 3 with -short), one
// expecting a violation on its own seeds, until one shows it.
func TestLibraryVerdicts(t *testing.T) {
	lib, err := scenarios.Library()
	if err != nil {
		t.Fatal(err)
	}
	if len(lib) < 30 {
		t.Fatalf("%d built-in scenarios", len(lib))
	}
	limit := 10
	if testing.Short() {
		limit = 3
	}
	for _, sc := range lib {
		t.Run(sc.Name, func(t *testing.T) {
			if sc.Description == "" {
				t.Error("no description")
			}
			// A scenario expecting a violation runs its seeds until one
			// shows it; one expecting a pass runs the modest number.
			search := Sweep{Seeds: min(sc.Seeds, limit)}
			if !sc.Expect.Pass {
				search = Sweep{Seeds: sc.Seeds, StopAtFirst: true}
			}
			v, err := Judge(context.Background(), sc, search)
			if err != nil {
				t.Fatal(err)
			}
			if !v.Matches {
				t.Fatalf("expected %s, got %s on seeds %d..%d: %v", sc.Expect, v.Got(), v.Result.First,
					v.Result.First+uint64(v.Result.Seeds)-1, v.Result.Failures)
			}
		})
	}
}

// The correct recipes hold under client-side session loss (Curator's
// policy: a client gives its session up by its own clock while the servers
// still hold it) and zksimtest's default faults, in the experiment
// zksimtest runs (SessionPaced). Locks and elections protect a fenced
// resource; the shared locks, whose model has no fence, run without what
// lets an unfenced holder act after its session expired unawares (pauses,
// delayed replies, servers cut off from their leader).
func TestRecipesHoldUnderClientSessionLoss(t *testing.T) {
	seeds := 20
	if testing.Short() {
		seeds = 5
	}
	if *soakSeeds > 0 {
		seeds = *soakSeeds
	}
	unfenced := fault.Rates{Crash: 0.1, LeaderCrash: 0.1, Spike: 0.1, LoseReply: 1, ShortPause: 0.2,
		Disconnect: 0.2, Outage: 0.02, Lag: 0.2, LoseRequest: 0.5, Triggered: 1}
	for _, k := range workload.Kinds() {
		r := fault.SessionShaped()
		spec := scenarios.Spec{Kind: k, Rates: &r, Ensemble: sim.Config{LocalSessionLoss: true}}
		switch k {
		case "lock", "election":
			spec.Workload.Fenced = true
		case "shared-lock", "revocable-lock", "semaphore":
			spec.Rates = &unfenced
		case "stale-read":
			spec.Checks = []string{"store-writes"} // reads may be stale under faults
		}
		spec = scenarios.SessionPaced(spec)
		spec.Ensemble.LocalSessionLoss = true
		res, err := Sweep{Spec: spec, Seeds: seeds}.Run(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		for _, f := range res.Failures {
			t.Errorf("%s, seed %d: %v\nfaults: %s", k, f.Seed, f.Violations, f.Schedule)
		}
	}
}
