package scenarios

import (
	"testing"
	"time"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/workload"
)

// A client that gave its session up by its own clock while it backed off
// between rounds of dials (no quorum: every server refused it) once
// started a second round of dials beside the first; the second connected
// over the first, and the replies came out of order (a simulator panic).
// This run found it: it must run to its end.
func TestLocalSessionLossWhileBackingOff(t *testing.T) {
	sched, err := fault.ParseSchedule("at 12.6s crash s3; at 13.4s crash leader; at 14.43s restart s3")
	if err != nil {
		t.Fatal(err)
	}
	spec := Spec{Kind: "lock", Variant: "lock-adopts-old-node", Faults: sched,
		Ensemble: sim.Config{TickTime: 250 * time.Millisecond, SessionTimeout: 2 * time.Second, LocalSessionLoss: true},
		Workload: workload.Shape{Rounds: 2, Steps: 5, Step: 500 * time.Millisecond}}
	o, err := Run(spec, 4, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if o.Result.Err != nil {
		t.Fatalf("the run failed: %v", o.Result.Err)
	}
}

// withoutQuorum adds up the stretches in which crashes leave fewer than a
// quorum running: none while one of three is down, the overlap while two
// are.
func TestWithoutQuorum(t *testing.T) {
	for _, tc := range []struct {
		faults string
		n      int
		want   time.Duration
	}{
		{"at 1s crash s1 for 5s", 3, 0},
		{"at 1s crash s1 for 5s; at 3s crash s2 for 5s", 3, 3 * time.Second},
		{"at 1s crash s1 for 5s; at 3s crash leader for 1s; at 10s crash s2 for 2s; at 11s crash s3 for 2s", 3, 2 * time.Second},
		{"at 1s crash s1 for 5s; at 3s crash s2 for 5s", 5, 0},
		{"at 1s crash s1 for 5s; at 2s crash s2 for 5s; at 3s crash s3 for 1s", 5, time.Second},
	} {
		sched, err := fault.ParseSchedule(tc.faults)
		if err != nil {
			t.Fatal(err)
		}
		if got := withoutQuorum(sched, tc.n); got != tc.want {
			t.Errorf("%q on %d servers: %v without a quorum, want %v", tc.faults, tc.n, got, tc.want)
		}
	}
}

// The ownership check found this in the election recipe: a candidate
// whose Resign could not delete its acknowledgement (its session had
// ended) kept the flag that it had made one, and its next candidacy, given
// up with its session, deleted the acknowledgement of the leader of the
// time, a live session's node. A new candidacy now starts with nothing
// acknowledged, and deletes an acknowledgement only while its own session
// owns it.
//
// And (seed 1419): a candidate that gave its session up by its own clock
// while the servers still held it and its node went on, in its next
// session, to acknowledge as the leader that old node made it. The
// acknowledgement belonged to the new session, outlived the node, and the
// next leader deleted it as another session's. A candidate now leads only
// by a node its current session owns (Election.ownNode).
func TestElectionDeletesOnlyItsOwnAcknowledgement(t *testing.T) {
	r := fault.SessionShaped()
	spec := SessionPaced(Spec{Kind: "election", Rates: &r, Workload: workload.Shape{Fenced: true},
		Ensemble: sim.Config{LocalSessionLoss: true}})
	for _, seed := range []uint64{128, 375, 692, 1419} {
		o, err := Run(spec, seed, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if o.Failed() {
			t.Errorf("seed %d: %v", seed, o.Violations)
		}
	}
}
