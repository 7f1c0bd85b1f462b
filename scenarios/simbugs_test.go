package scenarios

import (
	"testing"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/workload"
)

// Regressions of simulator bugs the scenarios found.

// A server that crashes right after applying a client's request (crash
// applier) answered that client's next request in the same instant, while
// the lost answer never came: the client saw its replies out of order and
// the simulator panicked. Bounded exhaustive exploration of the revocable
// lock found it (the holder's delete on reconnect, then its setWatches).
func TestCrashedApplierAnswersNothingMore(t *testing.T) {
	spec := Spec{Kind: "revocable-lock", Clients: 3, Workload: workload.Shape{Rounds: 1},
		Faults: fault.MustParseSchedule("when c3 create#2 applied: crash applier for 1s; when c2 delete#1 applied: crash applier for 1s")}
	for seed := uint64(1); seed <= 3; seed++ {
		o, err := Run(spec, seed, Options{})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if o.Failed() {
			t.Fatalf("seed %d: %v", seed, o.Violations)
		}
	}
}
