package scenarios

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/workload"
)

// barrierSeeds is how many seeds each barrier test runs (fewer with
// -short).
func barrierSeeds() uint64 {
	if testing.Short() {
		return 5
	}
	return 20
}

// barrierFaulty is the barrier under random faults of every kind, its
// rounds long enough to span them.
func barrierFaulty() Spec {
	return Spec{Kind: "barrier", Workload: workload.Shape{Step: 300 * time.Millisecond, Think: 100 * time.Millisecond},
		Rates:   &fault.Rates{Crash: 0.3, LeaderCrash: 0.2, Partition: 0.4, Isolate: 0.1, Pause: 0.3, Spike: 0.3, LoseReply: 1},
		Horizon: 1500 * time.Millisecond}
}

// barrierRun runs spec with seed and fails the test on an error.
func barrierRun(t *testing.T, spec Spec, seed uint64) *Outcome {
	t.Helper()
	o, err := Run(spec, seed, Options{})
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	return o
}

// The recipe passes its default checks (barrier, liveness) without faults
// and under faults: each round's coordinator raises and lowers, every
// waiter passes once per round, after the round's Lower was called.
func TestBarrierRecipePasses(t *testing.T) {
	held := 0 // runs where the faults held a pass up
	for seed := uint64(1); seed <= barrierSeeds(); seed++ {
		for _, spec := range []Spec{{Kind: "barrier"}, barrierFaulty()} {
			o := barrierRun(t, spec, seed)
			what := fmt.Sprintf("seed %d (faults: %v)", seed, spec.Rates != nil)
			if o.Failed() || o.Result.Err != nil {
				t.Fatalf("%s: %v %v\nschedule:\n%s", what, o.Violations, o.Result.Err, o.Schedule)
			}
			count := map[models.OpKind]int{}
			lowered := map[string]int64{}
			for _, op := range o.Input.Ops {
				if op.Result != models.OK {
					t.Fatalf("%s: %s", what, models.Describe(op))
				}
				count[op.Kind]++
				if op.Kind == models.Lower {
					lowered[op.Path] = op.Call
				}
			}
			if count[models.Raise] != 3 || count[models.Lower] != 3 || count[models.Pass] != 9 {
				t.Fatalf("%s: %v, want 3 raises, 3 lowers, 9 passes", what, count)
			}
			late := false
			for _, op := range o.Input.Ops {
				if op.Kind != models.Pass {
					continue
				}
				if op.Return < lowered[op.Path] {
					t.Fatalf("%s: c%d passed %s at %s, before it was lowered at %s", what, op.Client+1, op.Path,
						client.FormatTime(op.Return), client.FormatTime(lowered[op.Path]))
				}
				late = late || op.Return-lowered[op.Path] > int64(100*time.Millisecond)
			}
			if late && spec.Rates != nil {
				held++
			}
		}
	}
	if held == 0 {
		t.Errorf("the faults never held a pass up in %d seeds: they did not bite", barrierSeeds())
	}
}

// barrierBroken is a user's barrier with one mistake: a Wait that does
// not wait (it checks once, on the session's own server, and returns), or
// a Remove that does nothing.
type barrierBroken struct {
	recipes.Barrier
	noWait, noDrop bool
}

func (b *barrierBroken) Wait(ctx context.Context) error {
	if b.noWait {
		return nil
	}
	return b.Barrier.Wait(ctx)
}

func (b *barrierBroken) Remove(ctx context.Context) error {
	if b.noDrop {
		return nil
	}
	return b.Barrier.Remove(ctx)
}

// A user's broken barrier is caught: a Wait that walks through the raised
// barrier by the barrier check (safety), a Remove that leaves it up by
// the liveness check (the waiters wait for ever).
func TestBarrierBrokenImplementationsCaught(t *testing.T) {
	for _, c := range []struct {
		name   string
		broken barrierBroken
		check  string
		kind   models.ViolationKind
	}{
		{"wait that does not wait", barrierBroken{noWait: true}, "barrier", models.Safety},
		{"remove that does nothing", barrierBroken{noDrop: true}, "liveness", models.Liveness},
	} {
		t.Run(c.name, func(t *testing.T) {
			impl := &recipes.Implementation{Barrier: func(conn client.Conn, path string) recipes.Barrier {
				b := c.broken
				b.Barrier = recipes.NewBarrier(conn, path)
				return &b
			}}
			o := barrierRun(t, Spec{Kind: "barrier", Impl: impl}, 1)
			if !slices.ContainsFunc(o.Violations, func(v models.Violation) bool { return v.Check == c.check && v.Kind == c.kind }) {
				t.Fatalf("violations %v, want a %s one from %s", o.Violations, c.kind, c.check)
			}
			t.Log(o.Violations[0])
		})
	}
}

// The same seed gives the same run, faults and all.
func TestBarrierRunsRepeat(t *testing.T) {
	a, b := barrierRun(t, barrierFaulty(), 4), barrierRun(t, barrierFaulty(), 4)
	if a.Result.Hash != b.Result.Hash || !slices.Equal(a.Input.Ops, b.Input.Ops) {
		t.Fatalf("two runs of seed 4 differ: hash %x and %x", a.Result.Hash, b.Result.Hash)
	}
}
