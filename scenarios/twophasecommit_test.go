package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/workload"
)

// workloadFaults strike the 2pc, membership, config and naming workloads
// with every fault that matters to them: crashes, leader crashes,
// partitions, pauses (up to 20s, so sessions expire), latency spikes and
// lost replies.
var workloadFaults = fault.Rates{Crash: 0.2, LeaderCrash: 0.2, Partition: 0.3, Pause: 0.2, Spike: 0.2, LoseReply: 2}

// seedCount is n seeds, or a quarter of them (at least 3) in -short mode.
func seedCount(n int) uint64 {
	if testing.Short() {
		return uint64(max(3, n/4))
	}
	return uint64(n)
}

// describeOutcome is an outcome's violations, schedule and history, for a
// failing test.
func describeOutcome(o *Outcome) string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d, ended at %s (stuck %v, %v)\n", o.Seed, client.FormatTime(o.Input.End), o.Input.Stuck, o.Result.Err)
	for _, v := range o.Violations {
		fmt.Fprintf(&b, "  violation: %s\n", v)
	}
	if len(o.Schedule) > 0 {
		fmt.Fprintf(&b, "faults:\n%s\n", o.Schedule)
	}
	ops := slices.Clone(o.Input.Ops)
	slices.SortStableFunc(ops, func(a, b models.Operation) int { return int(a.Call - b.Call) })
	for _, op := range ops {
		ret := "…"
		if op.Result != models.Unknown {
			ret = client.FormatTime(op.Return)
		}
		fmt.Fprintf(&b, "  c%d %s..%s %s\n", op.Client+1, client.FormatTime(op.Call), ret, models.Describe(op))
	}
	return b.String()
}

// holdsOnSeeds runs spec on seeds 1..n and fails on any violation; it
// returns the outcomes.
func holdsOnSeeds(t *testing.T, spec Spec, n uint64) []*Outcome {
	t.Helper()
	var out []*Outcome
	for seed := uint64(1); seed <= n; seed++ {
		o, err := Run(spec, seed, Options{})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if o.Failed() {
			t.Fatalf("%s: want no violation\n%s", spec.Name, describeOutcome(o))
		}
		out = append(out, o)
	}
	return out
}

// caughtOnSomeSeed runs spec on seeds 1..n until check reports a
// violation of kind k, and returns that outcome; it fails if none does.
func caughtOnSomeSeed(t *testing.T, spec Spec, n uint64, check string, k models.ViolationKind) *Outcome {
	t.Helper()
	var last *Outcome
	for seed := uint64(1); seed <= n; seed++ {
		o, err := Run(spec, seed, Options{})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for _, v := range o.Violations {
			if v.Check == check && v.Kind == k {
				t.Logf("%s, seed %d: %s", spec.Name, seed, v)
				return o
			}
		}
		last = o
	}
	t.Fatalf("%s: no %s violation of the %s check on seeds 1..%d; the last run:\n%s", spec.Name, k, check, n, describeOutcome(last))
	return nil
}

// sameTwice runs spec twice on seed and fails unless both runs are the
// same: trace hash, end, history.
func sameTwice(t *testing.T, spec Spec, seed uint64) {
	t.Helper()
	a, err := Run(spec, seed, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(spec, seed, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Result.Hash != b.Result.Hash || a.Input.End != b.Input.End || !slices.Equal(a.Input.Ops, b.Input.Ops) {
		t.Fatalf("%s, seed %d: two runs differ: hashes %x and %x, ends %d and %d, %d and %d operations",
			spec.Name, seed, a.Result.Hash, b.Result.Hash, a.Input.End, b.Input.End, len(a.Input.Ops), len(b.Input.Ops))
	}
}

// opsOf is the operations of o of kind k.
func opsOf(o *Outcome, k models.OpKind) []models.Operation { return models.Of(o.Input.Ops, k) }

// The recipe passes its checks (agreement and validity, termination, no
// herd), without faults and under every fault that matters to it. Without
// faults every transaction is decided by everyone: tx-2 and tx-5 aborted
// (a site votes abort), the others committed.
func TestTwoPhaseCommitRecipeHolds(t *testing.T) {
	for _, o := range holdsOnSeeds(t, Spec{Name: "2pc", Kind: "2pc"}, seedCount(20)) {
		proposes := opsOf(o, models.Propose)
		if len(proposes) != 6 || len(opsOf(o, models.Vote)) != 18 {
			t.Fatalf("want 6 proposes and 18 votes:\n%s", describeOutcome(o))
		}
		for _, op := range append(proposes, opsOf(o, models.Vote)...) {
			want := "commit"
			if strings.HasSuffix(op.Path, "/tx-2") || strings.HasSuffix(op.Path, "/tx-5") {
				want = "abort"
			}
			if op.Result != models.OK || op.OutData != want || (op.Kind == models.Propose && op.Data != "c2,c3,c4") {
				t.Fatalf("%s: want %s:\n%s", models.Describe(op), want, describeOutcome(o))
			}
		}
	}
	commits := 0
	spec := Spec{Name: "2pc under faults", Kind: "2pc", Rates: &workloadFaults, Horizon: 2 * time.Second}
	for _, o := range holdsOnSeeds(t, spec, seedCount(20)) {
		for _, op := range opsOf(o, models.Propose) {
			if op.OutData == "commit" {
				commits++
			}
		}
	}
	if commits == 0 {
		t.Fatal("no transaction committed under faults: the workload tests nothing")
	}
}

// A site that fails in the last transaction (tx-6), after receiving it and before
// voting, stops for good; its ephemeral node goes when its session
// expires, and the coordinator aborts then: everyone else decides abort,
// within the bound.
func TestTwoPhaseCommitFailedSiteAborts(t *testing.T) {
	spec := Spec{Name: "2pc with a failed site", Kind: "2pc", Workload: workload.Shape{Failures: 1}}
	for _, o := range holdsOnSeeds(t, spec, seedCount(8)) {
		fails := opsOf(o, models.Fail)
		if len(fails) != 1 || fails[0].Data != "c4" || fails[0].Client != 3 || !strings.HasSuffix(fails[0].Path, "/tx-6") {
			t.Fatalf("want c4 to fail in tx-6:\n%s", describeOutcome(o))
		}
		for _, op := range append(opsOf(o, models.Propose), opsOf(o, models.Vote)...) {
			if strings.HasSuffix(op.Path, "/tx-6") && (op.OutData != "abort" || op.Return-fails[0].Call < int64(10*time.Second)) {
				t.Fatalf("%s at %s: want abort once c4's session expired:\n%s", models.Describe(op), client.FormatTime(op.Return), describeOutcome(o))
			}
		}
	}
}

// The coordinator gives its session up on its own clock while it collects
// the votes, and the new session's listing, its reply lost, is made again
// on a server lagging behind the transaction node's creation: NoNode. The
// coordinator brings a new session's server up to date before it believes
// a listing (soak seed 9842 under client-side session loss, shrunk).
func TestTwoPhaseCoordinatorNewSessionReadsUpToDate(t *testing.T) {
	spec := Spec{Kind: "2pc", Clients: 3, Workload: workload.Shape{Rounds: 1}, Horizon: 20 * time.Second,
		Ensemble: sim.Config{TickTime: 250 * time.Millisecond, SessionTimeout: 2 * time.Second, LocalSessionLoss: true},
		Faults: fault.MustParseSchedule("at 0s lag s3 for 3.93s; when c1 getChildren#4 applied: lose-reply; " +
			"when c1 getChildren#3 applied: disconnect c1 for 2.14s")}
	o, err := Run(spec, 9842, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Violations) > 0 {
		t.Fatalf("%v\n%s", o.Violations, describeOutcome(o))
	}
	if len(opsOf(o, models.Propose)) != 1 || opsOf(o, models.Propose)[0].Result != models.OK {
		t.Fatalf("want the proposal decided:\n%s", describeOutcome(o))
	}
}

// 2pc-sites-watch-votes: every vote notifies every site; the herd check
// catches it. A site that fails before voting leaves the others waiting
// for ever: the run ends stuck, every other participant Pending.
func TestTwoPhaseCommitSitesWatchVotesCaught(t *testing.T) {
	o := caughtOnSomeSeed(t, Spec{Name: "2pc-sites-watch-votes", Kind: "2pc", Variant: "2pc-sites-watch-votes"}, 3, "herd", models.Herd)
	if o.Failed() && opsOf(o, models.Propose)[0].Result != models.OK {
		t.Fatalf("the plain protocol should still decide without failures:\n%s", describeOutcome(o))
	}
	spec := Spec{Name: "2pc-sites-watch-votes with a failed site", Kind: "2pc", Variant: "2pc-sites-watch-votes",
		Workload: workload.Shape{Failures: 1}}
	o, err := Run(spec, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	pending := 0
	for _, op := range o.Input.Ops {
		if op.Pending() {
			pending++
		}
	}
	if !o.Input.Stuck || pending != 3 {
		t.Fatalf("want the run stuck with c1, c2, c3 waiting for c4's vote:\n%s", describeOutcome(o))
	}
}

// 2pc-early-commit: a site that votes commit decides commit at once; when
// another votes abort (tx-2, tx-5), the sites disagree, which the 2pc
// check catches as a safety violation.
func TestTwoPhaseCommitEarlyCommitCaught(t *testing.T) {
	o := caughtOnSomeSeed(t, Spec{Name: "2pc-early-commit", Kind: "2pc", Variant: "2pc-early-commit"}, 3, "2pc", models.Safety)
	for _, v := range o.Violations {
		if v.Check == "2pc" && !strings.HasSuffix(v.Object, "/tx-2") && !strings.HasSuffix(v.Object, "/tx-5") {
			t.Fatalf("violation on %s, want on tx-2 or tx-5 (those with an abort vote): %s", v.Object, v)
		}
	}
}

// Runs repeat exactly: the same seed, the same run.
func TestTwoPhaseCommitDeterministic(t *testing.T) {
	sameTwice(t, Spec{Name: "2pc under faults", Kind: "2pc", Rates: &workloadFaults, Workload: workload.Shape{Failures: 1}}, 7)
}
