package scenarios

import (
	"context"
	"strconv"
	"testing"

	"github.com/zksim/zksim/models"
)

// Without faults, with the defaults (four clients, four rounds), every add
// returns OK, the values they make are distinct, and the highest is the sum
// of the increments: 4 × 1 + 4 × 1 + 10 + 20 + 30 + 40 + (the same again).
func TestCounterRecipeHolds(t *testing.T) {
	for _, o := range holdsOnSeeds(t, Spec{Name: "counter", Kind: "counter"}, seedCount(20)) {
		seen := map[string]bool{}
		var high int64
		for _, op := range opsOf(o, models.Add) {
			if op.Result != models.OK || seen[op.OutData] {
				t.Fatalf("%s by c%d: want ok, each value made once:\n%s", models.Describe(op), op.Client+1, describeOutcome(o))
			}
			seen[op.OutData] = true
			v, _ := strconv.ParseInt(op.OutData, 10, 64)
			high = max(high, v)
		}
		if len(seen) != 16 || high != 2*(4+100) {
			t.Fatalf("%d adds, up to %d: want 16, up to %d:\n%s", len(seen), high, 2*(4+100), describeOutcome(o))
		}
		if len(opsOf(o, models.Count)) != 16 {
			t.Fatalf("want 16 counts:\n%s", describeOutcome(o))
		}
	}
}

// The recipe holds on 500 seeds under every fault kind (lost replies and
// requests among them, which its writes' sequence numbers recover from).
func TestCounterHoldsUnderEveryFault(t *testing.T) {
	seeds := int(seedCount(500))
	res, err := Search{Spec: Spec{Kind: "counter", Rates: &everyFault}, Seeds: seeds}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Failures {
		t.Errorf("seed %d: %v\nfaults: %s", f.Seed, f.Violations, f.Schedule)
	}
}

// Each teaching variant's built-in scenario catches it on most of its
// seeds, as a counter violation, and the recipe passes the same scenario
// on every one.
func TestCounterVariantsCaught(t *testing.T) {
	for _, tc := range []struct {
		scenario string
		atLeast  int // of the scenario's seeds
	}{
		{"counter-blind-set", 10},           // of 10
		{"counter-retry-blind", 25},         // of 30
		{"counter-idempotent-by-value", 28}, // of 30
	} {
		sc, err := LoadScenario(tc.scenario)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Search{Spec: sc.Spec, Seeds: sc.Seeds}.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		caught := 0
		for _, f := range res.Failures {
			for _, v := range f.Violations {
				if v.Check == "counter" && v.Kind == models.Safety {
					caught++
					break
				}
			}
		}
		t.Logf("%s: caught in %d of %d seeds", tc.scenario, caught, sc.Seeds)
		if caught < tc.atLeast {
			t.Errorf("%s: caught in %d of %d seeds, want at least %d", tc.scenario, caught, sc.Seeds, tc.atLeast)
		}
		recipe := sc.Spec
		recipe.Variant = ""
		ok, err := Search{Spec: recipe, Seeds: sc.Seeds}.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ok.Failures {
			t.Errorf("the recipe fails %s's experiment, seed %d: %v", tc.scenario, f.Seed, f.Violations)
		}
	}
}
