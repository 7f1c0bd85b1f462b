package search

import (
	"context"
	"testing"

	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/scenarios"
)

// A failure a check decided is shown shrunk and replayed with its trace;
// one no check decided (only an undecided check) is replayed as it came,
// not shrunk: shrinking keeps runs that fail, and an undecided check has
// not failed.
func TestShowShrinksOnlyWhatACheckDecided(t *testing.T) {
	sc, err := scenarios.LoadScenario("lock-herd")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Sweep{Spec: sc.Spec, Seeds: max(sc.Seeds, 1), StopAtFirst: true}.Run(context.Background())
	if err != nil || len(res.Failures) == 0 {
		t.Fatalf("lock-herd not caught: %v", err)
	}
	f := res.Failures[0]
	shown, err := Show(context.Background(), sc.Spec, f.Seed, f.Violations, ShowOptions{Shrink: true})
	if err != nil {
		t.Fatal(err)
	}
	if shown.Shrunk == nil || shown.Shrunk.Clients >= sc.Spec.ClientCount() || !shown.Shrunk.Minimal {
		t.Fatalf("not shrunk: %+v (the scenario runs %d clients)", shown.Shrunk, sc.Spec.ClientCount())
	}
	o := shown.Outcome
	if !o.Failed() || o.World == nil || len(o.World.Trace().Records()) == 0 || o.Spec.Clients != shown.Shrunk.Clients || scenarios.HashString(o.Result.Hash) != shown.Shrunk.TraceHash {
		t.Fatalf("the replay is not the shrunk counterexample's: failed %v, %d clients, hash %x (want %s)",
			o.Failed(), o.Spec.Clients, o.Result.Hash, shown.Shrunk.TraceHash)
	}
	undecided := []models.Violation{{Check: "herd", Kind: models.Undecided}}
	shown, err = Show(context.Background(), sc.Spec, f.Seed, undecided, ShowOptions{Shrink: true})
	if err != nil {
		t.Fatal(err)
	}
	if shown.Shrunk != nil || shown.Outcome.Seed != f.Seed || shown.Outcome.Spec.Clients != sc.Spec.ClientCount() {
		t.Fatalf("an undecided failure was shrunk: %+v", shown.Shrunk)
	}
}
