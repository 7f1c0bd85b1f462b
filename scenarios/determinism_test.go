package scenarios

import (
	"testing"

	"github.com/zksim/zksim/sim"
)

// Every built-in scenario runs twice per seed with the same trace hash,
// history and end: the determinism contract, over every kind, variant and
// fault the library holds (client-side session loss, new sessions, waits
// on several events, the session-shaped faults among them). Across the
// runs every kind of fault strikes at least once, so none escapes the
// comparison.
func TestEveryScenarioTwicePerSeed(t *testing.T) {
	lib, err := Library()
	if err != nil {
		t.Fatal(err)
	}
	seeds := uint64(3)
	if testing.Short() {
		seeds = 1
	}
	struck := map[string]int{}
	sessionLoss := false
	for _, sc := range lib {
		sessionLoss = sessionLoss || sc.Spec.Ensemble.LocalSessionLoss
		for seed := uint64(1); seed <= seeds; seed++ {
			sameTwice(t, sc.Spec, seed)
			o, err := Run(sc.Spec, seed, Options{})
			if err != nil {
				t.Fatalf("%s, seed %d: %v", sc.Name, seed, err)
			}
			for k, n := range o.Coverage {
				struck[k] += n
			}
		}
	}
	if !sessionLoss {
		t.Error("no built-in scenario gives sessions up by the clients' own clock")
	}
	for _, k := range sim.FaultKindNames() {
		if k == "restart" || k == "heal" {
			continue // what undoes a fault
		}
		if struck["struck: "+k] == 0 {
			t.Errorf("no built-in scenario's run struck a %s fault", k)
		}
	}
}
