package search

import (
	"context"
	"slices"
	"time"

	"testing"

	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/scenarios"
)

// A check that could not decide is never a pass, nor the violation a
// scenario expects; the conclusion names it apart from the checks that
// found one.
func TestUndecidedConclusion(t *testing.T) {
	mutex := models.Violation{Check: "mutex", Kind: models.Safety}
	undecided := models.Violation{Check: "mutex", Kind: models.Undecided}
	herd := models.Violation{Check: "herd", Kind: models.Herd}
	for _, tc := range []struct {
		vs   []models.Violation
		want string
	}{
		{nil, "pass"},
		{[]models.Violation{undecided}, "undecided (mutex)"},
		{[]models.Violation{herd, mutex, undecided, herd}, "violation (mutex, herd); undecided (mutex)"},
	} {
		if got := Conclusion(tc.vs); got != tc.want {
			t.Errorf("Conclusion(%v) = %q, want %q", tc.vs, got, tc.want)
		}
	}
	pass := scenarios.Expectation{Pass: true}
	expectMutex := scenarios.Expectation{Check: "mutex", Kind: models.Safety}
	if pass.Met([]models.Violation{undecided}) || expectMutex.Met([]models.Violation{undecided}) {
		t.Error("an undecided check met an expectation")
	}
}

// The checks of a run get the run's limit.
func TestCheckLimitReachesTheChecks(t *testing.T) {
	sc, err := scenarios.LoadScenario("lock-noguid")
	if err != nil {
		t.Fatal(err)
	}
	o, err := scenarios.Run(sc.Spec, 1, scenarios.Options{CheckLimit: 7 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if o.Input.CheckLimit != 7*time.Second {
		t.Errorf("the checks' limit is %v, want 7s", o.Input.CheckLimit)
	}
}

// A search keeps the lowest Keep failing seeds whole and counts the rest:
// the same lowest failures, failing-seed count and checks found as a
// search that keeps them all, so the verdict is the same.
func TestSearchKeepsTheLowestFailures(t *testing.T) {
	sc, err := scenarios.LoadScenario("lock-noguid")
	if err != nil {
		t.Fatal(err)
	}
	all, err := Sweep{Spec: sc.Spec, Seeds: 24, Keep: 1000}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	few, err := Sweep{Spec: sc.Spec, Seeds: 24, Keep: 3, Workers: 2}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if all.Failed < 6 || len(all.Failures) != all.Failed {
		t.Fatalf("keeping all: %d failures kept of %d failing seeds", len(all.Failures), all.Failed)
	}
	if few.Failed != all.Failed || len(few.Failures) != 3 || !slices.Equal(few.Found, all.Found) {
		t.Errorf("keeping 3: %d kept, %d failing, found %v; keeping all: %d failing, found %v",
			len(few.Failures), few.Failed, few.Found, all.Failed, all.Found)
	}
	for i, f := range few.Failures {
		if f.Seed != all.Failures[i].Seed || f.TraceHash != all.Failures[i].TraceHash {
			t.Errorf("kept failure %d is seed %d, want the lowest failing seeds' %d", i, f.Seed, all.Failures[i].Seed)
		}
	}
}
