package search

import (
	"context"
	"testing"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/scenarios"
)

// The recipe holds on 500 seeds under every fault kind (lost replies and
// requests among them, which its writes' sequence numbers recover from).
func TestCounterHoldsUnderEveryFault(t *testing.T) {
	every := fault.EveryFault()
	seeds := 500
	if testing.Short() {
		seeds = 125
	}
	res, err := Sweep{Spec: scenarios.Spec{Kind: "counter", Rates: &every}, Seeds: seeds}.Run(context.Background())
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
		sc, err := scenarios.LoadScenario(tc.scenario)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Sweep{Spec: sc.Spec, Seeds: sc.Seeds}.Run(context.Background())
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
		ok, err := Sweep{Spec: recipe, Seeds: sc.Seeds}.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ok.Failures {
			t.Errorf("the recipe fails %s's experiment, seed %d: %v", tc.scenario, f.Seed, f.Violations)
		}
	}
}
