package scenarios

import (
	"testing"

	"github.com/zksim/zksim/models"
)

// Election candidates withdraw in some rounds (they give up waiting after
// one tenure, holder.withdraws). Three seeds of election-faults found the
// recipe's faults when a candidacy is given up half-way: a create in
// flight or whose reply was lost left a node heading the queue for ever
// (seeds 40 and 175: createGUIDNode now takes it away), and an
// acknowledgement whose multi was in flight stayed behind its leader,
// for the next leader to delete as another session's (seed 606:
// acknowledge now leaves it to abandon). Each must hold, and the runs
// must have withdrawn.
func TestElectionWithdrawalsLeaveNothing(t *testing.T) {
	sc, err := LoadScenario("election-faults")
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range []uint64{40, 175, 606} {
		o, err := Run(sc.Spec, seed, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if o.Failed() {
			t.Errorf("seed %d: %v", seed, o.Violations)
		}
		if n := len(models.Of(o.Input.Ops, models.Withdraw)); n == 0 {
			t.Errorf("seed %d: no candidate withdrew", seed)
		}
	}
}
