package search

import (
	"context"
	"testing"

	"github.com/zksim/zksim/scenarios"
)

// With Swarm, each seed draws its faults at its own mix of the rates: the
// same seed the same schedule and run, different seeds different mixes
// (some with kinds the fixed rates would strike that the mix has off), and
// running the drawn schedule as explicit faults replays the run.
func TestSwarmDrawsEachSeedsMix(t *testing.T) {
	sc, err := scenarios.LoadScenario("lock-faults")
	if err != nil {
		t.Fatal(err)
	}
	swarm, fixedMix := sc.Spec, sc.Spec
	swarm.Swarm, fixedMix.Swarm = true, false
	differ := 0
	for seed := uint64(1); seed <= 10; seed++ {
		a, err := scenarios.Run(swarm, seed, scenarios.Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := scenarios.Run(swarm, seed, scenarios.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if a.Result.Hash != b.Result.Hash || a.Schedule.String() != b.Schedule.String() {
			t.Fatalf("seed %d: two runs differ", seed)
		}
		fixed, err := scenarios.Run(fixedMix, seed, scenarios.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if fixed.Schedule.String() != a.Schedule.String() {
			differ++
		}
		explicit := swarm
		explicit.Faults, explicit.Rates, explicit.Swarm = a.Schedule, nil, false
		again, err := scenarios.Run(explicit, seed, scenarios.Options{})
		if err != nil || again.Result.Hash != a.Result.Hash {
			t.Fatalf("seed %d: its schedule run as explicit faults does not replay it (%v)", seed, err)
		}
	}
	if differ < 8 {
		t.Errorf("the swarm drew the fixed rates' schedule on %d of 10 seeds", 10-differ)
	}
}

// FirstBreak finds the lowest seed that breaks a spec the way its
// expectation says: lock-noguid under random faults alone breaks on that
// seed, as expected, and on none before it.
func TestFirstBreakIsTheLowest(t *testing.T) {
	sc, err := scenarios.LoadScenario("lock-noguid")
	if err != nil {
		t.Fatal(err)
	}
	spec := RandomFaultsOnly(sc)
	if spec.Faults != nil || spec.Rates == nil {
		t.Fatalf("random faults only: faults %v, rates %v", spec.Faults, spec.Rates)
	}
	first, err := FirstBreak(context.Background(), spec, sc.Expect, 300)
	if err != nil {
		t.Fatal(err)
	}
	if first == 0 {
		t.Fatalf("lock-noguid did not break in 300 seeds of random faults")
	}
	for seed := uint64(1); seed <= first; seed++ {
		o, err := scenarios.Run(spec, seed, scenarios.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if met := sc.Expect.Met(o.Violations); met != (seed == first) {
			t.Fatalf("seed %d breaks as expected: %v (the first found: %d)", seed, met, first)
		}
	}
	n, err := Breaks(context.Background(), spec, sc.Expect, int(first))
	if err != nil || n != 1 {
		t.Errorf("seeds 1..%d: %d break as expected, want 1 (%v)", first, n, err)
	}
	none, err := FirstBreak(context.Background(), spec, scenarios.Expectation{Check: "fifo", Kind: "safety"}, 10)
	if err != nil || none != 0 {
		t.Errorf("a lock broke a queue's check: seed %d (%v)", none, err)
	}
}

// Blind gives FirstBreak's seed and Breaks' count at once, whether
// the first break lies within the seeds it counts or past them, or past its
// limit: on lock-unfenced-pause under random faults alone, whose first
// break comes after many seeds.
func TestBlindSearchIsFirstBreakAndBreaks(t *testing.T) {
	sc, err := scenarios.LoadScenario("lock-unfenced-pause")
	if err != nil {
		t.Fatal(err)
	}
	spec, ctx := RandomFaultsOnly(sc), context.Background()
	first, err := FirstBreak(ctx, spec, sc.Expect, 400)
	if err != nil || first < 20 {
		t.Fatalf("the first break within 400 seeds: %d (%v), want one past seed 20", first, err)
	}
	for _, c := range []struct {
		limit, seeds int
		first        uint64
	}{{400, 10, first}, {400, int(first), first}, {400, 400, first}, {int(first) - 1, 10, 0}, {int(first) - 1, 400, 0}} {
		want, err := Breaks(ctx, spec, sc.Expect, c.seeds)
		if err != nil {
			t.Fatal(err)
		}
		got, n, err := Blind(ctx, spec, sc.Expect, c.limit, c.seeds)
		if err != nil || got != c.first || n != want {
			t.Errorf("within %d, counting %d: first %d, %d breaks (%v); want %d and %d", c.limit, c.seeds, got, n, err, c.first, want)
		}
	}
}
