package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/testshrink"
)

// TestMain lets the test binary stand in for zksim when a bench figure
// starts a child process of itself (the crowd's, so its memory is its own),
// and turns rapid's shrink time off for the tests (internal/testshrink:
// a `--shrink` they check ends where it can shrink no more, not where the
// clock stopped it).
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		tuneGC()
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	code := testshrink.Run(m)
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// bench measures every figure in one run and prints them as one table or
// one JSON object: the simulator's speed and checking's share from
// lock-contention, the crowd in a child process with its peak memory, and
// seeds per second with faults; each figure with its target and verdict.
func TestBench(t *testing.T) {
	if raceDetector {
		t.Skip("a benchmark: it measures nothing under the race detector, and takes minutes there")
	}
	var out, errOut bytes.Buffer
	args := []string{"bench", "--no-live", "--sim-seeds", "2", "--fault-seeds", "4", "--crowd", "40", "--first-runs", "1",
		"--first-variants", "4", "--swarm-seeds", "40", "--swarm-rate-seeds", "20", "--swarm-variants", "4"}
	if status := run(append(args, "--json"), &out, &errOut); status != 0 {
		t.Fatalf("status %d: %s", status, errOut.String())
	}
	var o benchOutput
	if err := json.Unmarshal(out.Bytes(), &o); err != nil {
		t.Fatalf("%v:\n%s", err, out.String())
	}
	if o.Machine.Cores < 1 || o.Machine.Go == "" || o.Machine.Date == "" {
		t.Errorf("machine %+v", o.Machine)
	}
	want := []struct {
		figure, unit string
		target       bool
	}{
		{"simulated client operations per second, one core", "ops/s", true},
		{"allocations per run of lock-contention", "allocations", false},
		{"share of run time spent checking", "fraction", true},
		{"the same on one server (no replication)", "ops/s", false},
		{"ceiling if every step did no work, one core", "ops/s", false},
		{"40 clients contending for one lock: wall time", "s", true},
		{"40 clients contending for one lock: peak memory", "bytes", true},
		{"seeds per second with faults", "seeds/s", true},
		{"seeds per second with every fault kind", "seeds/s", true},
		{"time to first counterexample, slowest teaching variant", "ms", true},
		{"the same with shrinking", "ms", false},
		{"seeds to first counterexample, random faults only, fixed mix", "seeds", false},
		{"seeds to first counterexample, random faults only, swarm", "seeds", false},
		{"teaching variants neither mix finds", "variants", false},
		{"teaching variants broken more often, swarm", "variants", false},
	}
	if len(o.Rows) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(o.Rows), len(want), o.Rows)
	}
	for i, w := range want {
		r := o.Rows[i]
		none := r.Value == 0 && w.unit == "variants" // every variant found, or none broken more often
		if !strings.HasPrefix(r.Figure, w.figure) || r.Unit != w.unit || r.Value <= 0 && !none || (r.Met != nil) != w.target || r.Detail == "" {
			t.Errorf("row %d = %+v, want %q in %s", i, r, w.figure, w.unit)
		}
	}
	if share := o.Rows[2].Value; share >= 1 {
		t.Errorf("checking's share %v", share)
	}
	// The crowd ran in a process of its own: its peak memory is a process's,
	// more than a few megabytes, less than this whole test's.
	// The machinery's floor is a part of a run's cost: its ceiling is above
	// the speed measured (by a wide margin: a step does real work).
	if ceiling, ops := o.Rows[4].Value, o.Rows[0].Value; ceiling <= ops {
		t.Errorf("the ceiling %v ops/s is not above the speed measured, %v ops/s", ceiling, ops)
	}
	if rss := o.Rows[6].Value; rss < 4<<20 || rss > 4<<30 {
		t.Errorf("the crowd's peak memory %v bytes", rss)
	}
	// A run allocates: the count is the runtime's, not a constant.
	if allocs := o.Rows[1].Value; allocs < 100 {
		t.Errorf("%v allocations a run", allocs)
	}
	// The first four teaching variants (--first-variants: every one
	// makes the test take minutes under the race detector, and
	// scenarios.TestLessons finds and shrinks them all) were timed, found
	// where their scenarios say and shrunk; the slowest is the row's.
	variants, err := teachingVariants()
	if err != nil {
		t.Fatal(err)
	}
	if len(variants) < 20 {
		t.Fatalf("only %d teaching variants", len(variants))
	}
	if len(o.First) != 4 {
		t.Fatalf("%d variants timed, want the first 4 (--first-variants 4)", len(o.First))
	}
	slowest := 0.0
	for i, fc := range o.First {
		if fc.Scenario != variants[i] || fc.Seed == 0 || fc.SeedsRun < 1 || fc.Ms <= 0 || fc.ShrinkMs <= 0 || fc.ShrunkClients < 1 {
			t.Errorf("first counterexample %+v", fc)
		}
		slowest = max(slowest, fc.Ms)
	}
	if o.Rows[9].Value != slowest {
		t.Errorf("the slowest variant's row says %v ms, the variants' slowest is %v", o.Rows[9].Value, slowest)
	}

	// The same four were searched blind, at both mixes.
	if len(o.Swarm) != 4 {
		t.Fatalf("%d variants searched blind, want the first 4 (--swarm-variants 4)", len(o.Swarm))
	}
	for i, r := range o.Swarm {
		if r.Scenario != variants[i] || r.Fixed > 40 || r.Swarm > 40 || r.RateSeeds != 20 || r.FixedBreaks > 20 || r.SwarmBreaks > 20 {
			t.Errorf("blind search %+v", r)
		}
	}

	out.Reset()
	if status := run(args, &out, &errOut); status != 0 {
		t.Fatalf("status %d: %s", status, errOut.String())
	}
	for _, s := range []string{"FIGURE", "MEASURED", "TARGET", "MET", "≥ 1,000,000", "< 1 GiB", "cores", "TEACHING VARIANT", variants[3], "FIXED MIX", "SWARM"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("the table lacks %q:\n%s", s, out.String())
		}
	}
}

func TestThousands(t *testing.T) {
	for v, want := range map[float64]string{0.25: "0.2", 9.96: "10.0", 10: "10", 999.6: "1,000", 1234567: "1,234,567", 100000: "100,000"} {
		if got := thousands(v); got != want {
			t.Errorf("thousands(%v) = %q, want %q", v, got, want)
		}
	}
}

// The speed figure is the median run's, not the total's: one run that lost
// the core for a while moves it little.
func TestSpeedMedian(t *testing.T) {
	r := speedResult{runs: []speedRun{
		{ops: 1000, simulated: 10 * time.Millisecond},  // 100,000 ops/s
		{ops: 1000, simulated: 100 * time.Millisecond}, // 10,000 ops/s: the core was taken
		{ops: 1000, simulated: 5 * time.Millisecond},   // 200,000 ops/s
	}}
	median, slowest, fastest := r.rates()
	if median != 100000 || slowest != 10000 || fastest != 200000 {
		t.Errorf("rates %v, %v, %v; want 100000, 10000, 200000", median, slowest, fastest)
	}
	if got := r.medianRun(); got != 10*time.Millisecond {
		t.Errorf("median run %v, want 10ms", got)
	}
}

// The swarm rows sum the blind searches up: the median and the worst over
// the variants, a variant not found counting as more than the limit, how
// many each mix found, and the variants neither found.
func TestSwarmRows(t *testing.T) {
	rs := []swarmResult{
		{Scenario: "a", Fixed: 1, Swarm: 1, FixedBreaks: 100, SwarmBreaks: 90, RateSeeds: 100},
		{Scenario: "b", Fixed: 30, Swarm: 5, FixedBreaks: 3, SwarmBreaks: 20, RateSeeds: 100},
		{Scenario: "c", Fixed: 0, Swarm: 700, FixedBreaks: 0, SwarmBreaks: 1, RateSeeds: 100},
		{Scenario: "d", Fixed: 0, Swarm: 0, RateSeeds: 100},
		{Scenario: "e", Fixed: 9, Swarm: 0, FixedBreaks: 5, SwarmBreaks: 2, RateSeeds: 100},
	}
	rows := swarmRows(rs, 1000)
	if len(rows) != 4 {
		t.Fatalf("%d rows", len(rows))
	}
	for i, want := range []string{"median 30, worst > 1,000; 3 of 5 found", "median 700, worst > 1,000; 3 of 5 found", "d",
		"2, fixed mix 2, even 1; of the 4 rare, swarm 2, fixed mix 1"} {
		if rows[i].shown != want {
			t.Errorf("row %d shows %q, want %q", i, rows[i].shown, want)
		}
	}
	for n, want := range map[uint64]string{1: "1", 9: "9", 385: "385", 1000: "1,000", 1001: "> 1,000"} {
		if got := seedCount(n, 1000); got != want {
			t.Errorf("seedCount(%d) = %q, want %q (seeds are whole)", n, got, want)
		}
	}
	if rows[0].Value != 30 || rows[1].Value != 700 || rows[2].Value != 1 || rows[3].Value != 2 {
		t.Errorf("values %v, %v, %v, %v", rows[0].Value, rows[1].Value, rows[2].Value, rows[3].Value)
	}
}
