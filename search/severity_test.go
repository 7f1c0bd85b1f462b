package search

import (
	"context"
	"testing"

	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/scenarios"
)

// A herd is a cost: a sweep that stops at its first violation goes on past
// runs that only herded (a dangerous violation may be in the seeds after
// them), and stops at one only when asked to (a scenario that expects a
// herd). lock-herd herds on every seed and breaks nothing else.
func TestSweepGoesOnPastAHerd(t *testing.T) {
	sc, err := scenarios.LoadScenario("lock-herd")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Sweep{Spec: sc.Spec, Seeds: 8, Workers: 1, StopAtFirst: true}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Ran != 8 || res.Failed == 0 {
		t.Fatalf("stopped at a herd: ran %d of 8 seeds, %d failed", res.Ran, res.Failed)
	}
	res, err = Sweep{Spec: sc.Spec, Seeds: 8, Workers: 1, StopAtFirst: true, StopAlso: []models.ViolationKind{models.Herd}}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Ran == 8 {
		t.Fatal("StopAlso herd: did not stop at the first herd")
	}
	v, err := Judge(context.Background(), sc, Sweep{Seeds: 8, Workers: 1, StopAtFirst: true})
	if err != nil {
		t.Fatal(err)
	}
	if v.Result.Ran == 8 || !v.Matches {
		t.Fatalf("a scenario that expects a herd: ran %d of 8 seeds, as expected %v", v.Result.Ran, v.Matches)
	}
}

// What a sweep found is told the most serious first, and the failure shown
// is the lowest seed of the most serious kind: two leaders at seed 7
// before a herd at seed 1.
func TestTheMostSeriousFirst(t *testing.T) {
	herd := models.Violation{Check: "herd", Kind: models.Herd}
	twoLeaders := models.Violation{Check: "election", Kind: models.Safety}
	slow := models.Violation{Check: "liveness", Kind: models.Liveness}
	sw := &sweeper{Sweep: Sweep{Keep: 1}, firsts: map[Found]Failure{}}
	for _, f := range []Failure{{Seed: 1, Violations: []models.Violation{herd}}, {Seed: 3, Violations: []models.Violation{herd, slow}},
		{Seed: 7, Violations: []models.Violation{twoLeaders}}, {Seed: 9, Violations: []models.Violation{twoLeaders, herd}}} {
		sw.res.Failures = append(sw.res.Failures, f)
		for _, v := range f.Violations {
			if key := (Found{Check: v.Check, Kind: v.Kind}); sw.firsts[key].Seed == 0 {
				sw.firsts[key] = f
			}
		}
	}
	sw.finish()
	want := []Found{{"election", models.Safety, 7}, {"liveness", models.Liveness, 3}, {"herd", models.Herd, 1}}
	if len(sw.res.Found) != len(want) {
		t.Fatalf("found %v, want %v", sw.res.Found, want)
	}
	for i := range want {
		if sw.res.Found[i] != want[i] {
			t.Fatalf("found %v, want %v", sw.res.Found, want)
		}
	}
	if w, ok := sw.res.Worst(); !ok || w.Seed != 7 {
		t.Fatalf("shows seed %d first, want 7 (two leaders)", w.Seed)
	}
	if got, want := Conclusion(FoundViolations(sw.res.Found)), "violation (election, liveness, herd)"; got != want {
		t.Fatalf("concluded %q, want %q", got, want)
	}
	if !sw.stops([]models.Violation{herd, slow}) || sw.stops([]models.Violation{herd}) {
		t.Fatal("a sweep stops at a herd alone, or not at a liveness violation")
	}
}

// Exploring, likewise: a schedule that only herds does not end an
// exploration that stops at its first counterexample (it runs to its end,
// complete), unless asked to. (lock-herd herds with no fault at all, so
// the schedule without faults is the only one either explores.)
func TestExploreGoesOnPastAHerd(t *testing.T) {
	spec := scenarios.Spec{Kind: "lock", Variant: "lock-herd", Clients: 3, Checks: []string{"herd"}}
	plain, err := Explore{Spec: spec, MaxFaults: 1, StopAtFirst: true}.Run()
	if err != nil {
		t.Fatal(err)
	}
	if !plain.Complete || len(plain.Counterexamples) == 0 {
		t.Fatalf("stopped at a herd: complete %v, %d counterexamples", plain.Complete, len(plain.Counterexamples))
	}
	herd, err := Explore{Spec: spec, MaxFaults: 1, StopAtFirst: true, StopAlso: []models.ViolationKind{models.Herd}}.Run()
	if err != nil {
		t.Fatal(err)
	}
	if herd.Complete || len(herd.Counterexamples) != 1 {
		t.Fatalf("StopAlso herd: complete %v, %d counterexamples; want it stopped at the first", herd.Complete, len(herd.Counterexamples))
	}
}
