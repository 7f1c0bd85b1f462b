package search

import (
	"flag"
	"slices"
	"strings"
	"testing"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/scenarios"
	"github.com/zksim/zksim/workload"
)

// Bounded exhaustive exploration of the no-guid lock with two clients and
// one fault finds the lost create() reply that orphans a node, and
// explores the same schedules every time. The recipe, explored with up to
// two faults, holds on every one of them.
func TestExploreFindsTheOrphanedNode(t *testing.T) {
	spec := scenarios.Spec{Kind: "lock", Variant: "lock-noguid", Clients: 2, Workload: workload.Shape{Rounds: 2}}
	a, err := Explore{Spec: spec, MaxFaults: 1}.Run()
	if err != nil {
		t.Fatal(err)
	}
	b, err := Explore{Spec: spec, MaxFaults: 1}.Run()
	if err != nil {
		t.Fatal(err)
	}
	if !a.Complete || a.Explored < 10 || a.Explored != b.Explored || len(a.Counterexamples) != len(b.Counterexamples) {
		t.Fatalf("explored %d (complete %v) then %d, found %d then %d", a.Explored, a.Complete, b.Explored,
			len(a.Counterexamples), len(b.Counterexamples))
	}
	found := false
	for _, c := range a.Counterexamples {
		if len(c.Schedule) == 1 && c.Schedule[0].Kind == fault.LoseReply && c.Schedule[0].When.Op == client.OpCreate &&
			hasKind(c.Violations, models.Liveness) {
			found = true
		}
	}
	if !found {
		t.Fatalf("no lost create reply among the %d counterexamples", len(a.Counterexamples))
	}

	if testing.Short() {
		return
	}
	recipe := scenarios.Spec{Kind: "lock", Clients: 2, Workload: workload.Shape{Rounds: 2, Fenced: true}}
	r, err := Explore{Spec: recipe, MaxFaults: 2}.Run()
	if err != nil {
		t.Fatal(err)
	}
	if !r.Complete || r.Explored < 500 {
		t.Fatalf("explored %d schedules (complete %v), want every one of the hundreds within the bound", r.Explored, r.Complete)
	}
	for _, c := range r.Counterexamples {
		t.Errorf("the recipe fails with %s: %v", c.Faults(), c.Violations)
	}
	t.Logf("the recipe held on all %d schedules of at most 2 faults", r.Explored)
}

// Limit and StopAtFirst cut an exploration short, and say so.
func TestExploreStops(t *testing.T) {
	spec := scenarios.Spec{Kind: "lock", Variant: "lock-noguid", Clients: 2, Workload: workload.Shape{Rounds: 2}}
	r, err := Explore{Spec: spec, MaxFaults: 2, Limit: 5}.Run()
	if err != nil || r.Explored != 5 || r.Complete {
		t.Fatalf("limit 5: explored %d, complete %v, %v", r.Explored, r.Complete, err)
	}
	r, err = Explore{Spec: spec, MaxFaults: 2, StopAtFirst: true}.Run()
	if err != nil || len(r.Counterexamples) != 1 || r.Complete {
		t.Fatalf("stop at first: %d found, complete %v, %v", len(r.Counterexamples), r.Complete, err)
	}
}

// rapid hunts from scratch: drawing clients, rounds, a seed and faults, it
// finds the no-guid lock's orphaned node and shrinks it to one client, one
// round and one lost reply.
func TestHuntShrinksToTheLostReply(t *testing.T) {
	c, err := Hunt{Spec: scenarios.Spec{Kind: "lock", Variant: "lock-noguid", Clients: 3},
		Kinds: []fault.Kind{fault.LoseReply, fault.Crash, fault.Spike}}.Run()
	if err != nil {
		t.Fatal(err)
	}
	if c == nil {
		t.Fatal("rapid found no counterexample in 100 tries")
	}
	if c.Clients != 1 || c.Rounds != 1 || len(c.Schedule) != 1 || !strings.Contains(c.Faults(), "create#") ||
		!strings.HasSuffix(c.Faults(), "lose-reply") {
		t.Fatalf("shrunk to %d clients, %d rounds, faults %q", c.Clients, c.Rounds, c.Faults())
	}
	again, err := scenarios.Run(c.Spec, c.Seed, scenarios.Options{})
	if err != nil || scenarios.HashString(again.Result.Hash) != c.TraceHash {
		t.Fatalf("the counterexample does not replay: %v", err)
	}
	// The recipe: nothing to find.
	none, err := Hunt{Spec: scenarios.Spec{Kind: "lock", Clients: 3, Workload: workload.Shape{Fenced: true}}, Checks: 30}.Run()
	if err != nil || none != nil {
		t.Fatalf("the recipe: %v %+v", err, none)
	}
}

var exploreWide = flag.Bool("explore", false, "TestExploreRecipes: 2–3 clients and up to 2 faults (`make explore`), instead of 2 clients and 1 fault")

// Every recipe, explored exhaustively within a small bound: each schedule
// of faults tied to its clients' writes holds. `make explore` widens the
// bound.
func TestExploreRecipes(t *testing.T) {
	for _, k := range workload.Kinds() {
		spec := scenarios.Spec{Kind: k, Workload: workload.Shape{Rounds: 1}}
		if k == "lock" || k == "election" {
			spec.Workload.Fenced = true // a pause past the session timeout breaks any unfenced lock
		}
		e := Explore{Spec: spec, MinClients: 2, MaxClients: 2, MaxFaults: 1}
		if *exploreWide {
			e.MaxClients, e.MaxFaults = 3, 2
		}
		if kk, _ := workload.Lookup(k); kk.MinClients() > e.MinClients {
			e.MinClients, e.MaxClients = kk.MinClients(), max(e.MaxClients, kk.MinClients())
		}
		if k == "stale-read" {
			e.Spec.Checks = []string{"store-writes"} // reads may be stale under faults
		}
		if k == "shared-lock" || k == "revocable-lock" || k == "semaphore" {
			// Nothing that expires a holder's session: the read-write
			// and semaphore models have no fence.
			e.Faults = slices.DeleteFunc(slices.Clone(ExploreFaults), func(f string) bool {
				return strings.HasPrefix(f, "pause") || strings.Contains(f, "{over}")
			})
		}
		res, err := e.Run()
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		for _, c := range res.Counterexamples {
			t.Errorf("%s with %d clients fails with %s: %v", k, c.Clients, c.Faults(), c.Violations)
		}
		t.Logf("%s: %d schedules explored, complete %v", k, res.Explored, res.Complete)
	}
}

// An exploration ties faults to holdings (Holds): a pause of the holder,
// right as it comes to hold, past its session timeout, is the one-fault
// counterexample of an unfenced lock, listed first; a lost request is tied
// to a write's arrival, and a release that trusts a connection loss is
// caught by it.
func TestExploreHoldingsAndLostRequests(t *testing.T) {
	sc, err := scenarios.LoadScenario("lock-unfenced-pause")
	if err != nil {
		t.Fatal(err)
	}
	spec := sc.Spec
	spec.Faults = nil
	res, err := Explore{Spec: spec, MaxFaults: 2, Holds: true}.Run()
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Counterexamples) == 0 || res.Counterexamples[0].Faults() != "when c1 holds#1: pause c1 15s" {
		var first string
		if len(res.Counterexamples) > 0 {
			first = res.Counterexamples[0].Faults()
		}
		t.Errorf("%d counterexamples, the first %q; want the holder's pause alone first", len(res.Counterexamples), first)
	}
	without, err := Explore{Spec: spec, MaxFaults: 1}.Run()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range without.Counterexamples {
		if strings.Contains(c.Faults(), "holds#") {
			t.Errorf("without Holds, a fault tied to a holding: %s", c.Faults())
		}
	}
	lost := scenarios.Spec{Kind: "lock", Variant: "lock-release-trusts-connection-loss", Clients: 2, Workload: workload.Shape{Rounds: 2}}
	res, err = Explore{Spec: lost, MaxFaults: 1, Faults: []string{"lose-request"}}.Run()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range res.Counterexamples {
		found = found || strings.Contains(c.Faults(), "delete#") && strings.Contains(c.Faults(), "received: lose-request")
	}
	if !found {
		t.Errorf("no lost delete request among %d counterexamples of %d schedules", len(res.Counterexamples), res.Explored)
	}
}

// Stopping at the first counterexample gives one of the fewest faults:
// depth first, lock-noguid's first was a lost reply and a crash, though
// a lost reply alone breaks it.
func TestExploreStopAtFirstHasTheFewestFaults(t *testing.T) {
	sc, err := scenarios.LoadScenario("lock-noguid")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Explore{Spec: sc.Spec, MaxFaults: 2, StopAtFirst: true}.Run()
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Counterexamples) != 1 || len(res.Counterexamples[0].Schedule) != 1 || res.Complete {
		t.Fatalf("stopped at %d counterexamples (complete %v); want one of one fault: %+v", len(res.Counterexamples), res.Complete, res.Counterexamples)
	}
}
