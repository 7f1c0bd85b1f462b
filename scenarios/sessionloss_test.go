package scenarios

import (
	"testing"
	"time"

	"github.com/zksim/zksim/sim"
)

// A client that gave its session up by its own clock while it backed off
// between rounds of dials (no quorum: every server refused it) once
// started a second round of dials beside the first; the second connected
// over the first, and the replies came out of order (a simulator panic).
// This run found it: it must run to its end.
func TestLocalSessionLossWhileBackingOff(t *testing.T) {
	sched, err := sim.ParseSchedule("at 12.6s crash s3; at 13.4s crash leader; at 14.43s restart s3")
	if err != nil {
		t.Fatal(err)
	}
	spec := Spec{Kind: "lock", Variant: "lock-adopts-old-node", Faults: sched,
		Ensemble: sim.Config{TickTime: 250 * time.Millisecond, SessionTimeout: 2 * time.Second, LocalSessionLoss: true},
		Workload: Workload{Rounds: 2, Steps: 5, Step: 500 * time.Millisecond}}
	o, err := Run(spec, 4, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if o.Result.Err != nil {
		t.Fatalf("the run failed: %v", o.Result.Err)
	}
}
