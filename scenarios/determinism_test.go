package scenarios

import (
	"errors"
	"testing"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/workload"
)

// Every built-in scenario runs twice per seed with the same trace hash,
// history and end: the determinism contract, over every kind, variant and
// fault the library holds (client-side session loss, new sessions, waits
// on several events, the session-shaped faults among them). Across the
// runs every kind of fault strikes at least once, so none escapes the
// comparison (a swarm scenario runs at its fixed mix too: a seed's own mix
// may leave a kind out).
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
		specs := []Spec{sc.Spec}
		if sc.Spec.Swarm { // and at its fixed mix: a seed's mix may leave a kind out
			fixed := sc.Spec
			fixed.Swarm = false
			specs = append(specs, fixed)
		}
		for _, spec := range specs {
			for seed := uint64(1); seed <= seeds; seed++ {
				sameTwice(t, spec, seed)
				o, err := Run(spec, seed, Options{})
				if err != nil {
					t.Fatalf("%s, seed %d: %v", sc.Name, seed, err)
				}
				for k, n := range o.Coverage {
					struck[k] += n
				}
			}
		}
	}
	if !sessionLoss {
		t.Error("no built-in scenario gives sessions up by the clients' own clock")
	}
	for _, k := range fault.KindNames() {
		if k == "restart" || k == "heal" {
			continue // what undoes a fault
		}
		if struck["struck: "+k] == 0 {
			t.Errorf("no built-in scenario's run struck a %s fault", k)
		}
	}
}

// An interrupted search stops the runs under way (Options.Stop): a run
// stopped ends with sim.ErrStopped, nothing to judge; one the hook does
// not stop is the same run as without it.
func TestStopAbandonsTheRunAndChangesNothingElse(t *testing.T) {
	spec := Spec{Kind: "lock", Clients: 200, Workload: workload.Shape{Rounds: 1, Together: true}}
	if _, err := Run(spec, 1, Options{Stop: func() bool { return true }}); !errors.Is(err, sim.ErrStopped) {
		t.Fatalf("a run stopped at once: %v, want sim.ErrStopped", err)
	}
	a, err := Run(spec, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	b, err := Run(spec, 1, Options{Stop: func() bool { asked++; return false }})
	if err != nil {
		t.Fatal(err)
	}
	if asked == 0 || a.Result.Hash != b.Result.Hash {
		t.Errorf("asked %d times; hashes %x and %x: a run the hook does not stop must be the same run", asked,
			a.Result.Hash, b.Result.Hash)
	}
}

// Every kind's workload makes the same run twice from the same seed, with
// and without faults: the same trace hash, the same history.
func TestEveryKindIsDeterministic(t *testing.T) {
	for _, k := range workload.Kinds() {
		for _, rates := range []bool{false, true} {
			spec := Spec{Kind: k}
			if rates {
				every := fault.EveryFault()
				spec.Rates = &every
			}
			for seed := uint64(1); seed <= 3; seed++ {
				a, err := Run(spec, seed, Options{})
				if err != nil {
					t.Fatal(err)
				}
				b, err := Run(spec, seed, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if a.Result.Hash != b.Result.Hash || len(a.Input.Ops) != len(b.Input.Ops) {
					t.Fatalf("%s seed %d (faults %v): hashes %x and %x, %d and %d operations", k, seed, rates,
						a.Result.Hash, b.Result.Hash, len(a.Input.Ops), len(b.Input.Ops))
				}
			}
		}
	}
}
