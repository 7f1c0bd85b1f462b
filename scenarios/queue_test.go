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
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/workload"
)

// queueSeeds is how many seeds each queue test runs (fewer with -short).
func queueSeeds() uint64 {
	if testing.Short() {
		return 8
	}
	return 20
}

// queueRates strike every kind of fault the queues ride out.
var queueRates = fault.Rates{Crash: 0.3, LeaderCrash: 0.2, Partition: 0.4, Isolate: 0.1, Pause: 0.3, Spike: 0.3, LoseReply: 1}

// queueFaulty is kind's spec under random faults: producers and consumers
// paced so that the work spans the faults' horizon, and, since the random
// schedule loses only the replies of plain writes, the reply of one of the
// queue's own multis lost too (a put's or a take's, by seed).
func queueFaulty(kind string, seed uint64) Spec {
	lost := fault.Trigger{Client: int(seed % 4), Op: client.OpMulti, Nth: 1 + int(seed%5)}
	return Spec{Kind: kind, Rates: &queueRates, Horizon: 2 * time.Second,
		Workload: workload.Shape{Think: 100 * time.Millisecond, Step: 50 * time.Millisecond},
		Faults:   fault.Schedule{{When: &lost, Kind: fault.LoseReply}}}
}

// queueRun runs spec with seed and fails the test on an error.
func queueRun(t *testing.T, spec Spec, seed uint64) *Outcome {
	t.Helper()
	o, err := Run(spec, seed, Options{})
	if err != nil {
		t.Fatalf("%s seed %d: %v", spec.Kind, seed, err)
	}
	return o
}

// queueItemsOf is how many items the default workload of kind puts: two
// producers, 8 rounds each, and to a FIFO queue two more each (the
// workload's late items, after the backlog is taken).
func queueItemsOf(kind string) int {
	if kind == "queue" {
		return 2 * (8 + 2)
	}
	return 16
}

// queueTally counts a run's puts and takes by result; takes that took
// nothing (a consumer asking while another takes the last item) are not
// counted.
func queueTally(o *Outcome) (putOK, putOther, takeOK, takeOther int) {
	for _, op := range o.Input.Ops {
		switch {
		case op.Kind == models.Take && op.Result == models.Failed:
		case op.Kind == models.Put && op.Result == models.OK:
			putOK++
		case op.Kind == models.Put:
			putOther++
		case op.Kind == models.Take && op.Result == models.OK:
			takeOK++
		case op.Kind == models.Take:
			takeOther++
		}
	}
	return
}

// The recipes pass their default checks (fifo or priority-queue, liveness,
// herd), without faults and under random faults of every kind with lost
// multi replies: every put returns OK, and exactly as many items are taken
// as were put; the runs end (the consumers stop).
func TestQueueRecipesPass(t *testing.T) {
	for _, kind := range []string{"queue", "priority-queue"} {
		slow := 0 // operations the faults held up
		for seed := uint64(1); seed <= queueSeeds(); seed++ {
			for _, spec := range []Spec{{Kind: kind}, queueFaulty(kind, seed)} {
				o := queueRun(t, spec, seed)
				what := fmt.Sprintf("%s seed %d (faults: %v)", kind, seed, spec.Rates != nil)
				if o.Failed() || o.Result.Err != nil {
					t.Fatalf("%s: %v %v\nschedule:\n%s", what, o.Violations, o.Result.Err, o.Schedule)
				}
				putOK, putOther, takeOK, takeOther := queueTally(o)
				// A take given up on its deadline while one of its writes
				// was in doubt is of unknown outcome; every other is OK.
				for _, op := range o.Input.Ops {
					if op.Kind == models.Take && op.Result == models.Unknown && spec.Rates != nil {
						takeOther--
					}
				}
				items := queueItemsOf(kind)
				if putOK != items || putOther != 0 || takeOK != items || takeOther != 0 {
					t.Fatalf("%s: puts %d ok, %d not; takes %d ok, %d not (besides those given up in doubt): want %d of each, all ok",
						what, putOK, putOther, takeOK, takeOther, items)
				}
				for _, op := range o.Input.Ops {
					if spec.Rates != nil && op.Return-op.Call > int64(500*time.Millisecond) {
						slow++
						break
					}
				}
			}
		}
		t.Logf("%s: %d of %d runs under faults had an operation held up", kind, slow, queueSeeds())
		if slow < max(1, int(queueSeeds())/8) {
			t.Errorf("%s: only %d of %d runs under faults had an operation held up: the faults did not bite", kind, slow, queueSeeds())
		}
	}
}

// Each teaching variant is caught by the check its lesson names, with the
// fault its lesson needs, on one of a few seeds; the recipe, with the same
// fault, is not.
func TestQueueVariantsCaught(t *testing.T) {
	fails := map[string]string{}
	for _, v := range recipes.Variants() {
		fails[v.Name] = v.Fails
	}
	for _, c := range []struct {
		kind, variant, faults, check string
	}{
		// Consumers that read the same lowest item all process it.
		{"queue", "queue-unchecked-delete", "", "fifo"},
		// c1 consumes; its first delete's reply is lost: the item is lost.
		{"queue", "queue-plain-delete", "when c1 delete#1 applied: lose-reply", "fifo"},
		// c3 produces; its creates are /zksim, /zksim/queue, the receipts
		// node, its receipt (some of them NodeExists), then items: create#7
		// is one, put twice.
		{"queue", "queue-blind-put", "when c3 create#7 applied: lose-reply", "fifo"},
		// A getChildren at every take of the backlog.
		{"queue", "queue-relist", "", "herd"},
		// Urgent items put while the consumers work through old lists.
		{"priority-queue", "priority-queue-stale-list", "", "priority-queue"},
	} {
		t.Run(c.variant, func(t *testing.T) {
			faults, err := fault.ParseSchedule(c.faults)
			if err != nil {
				t.Fatal(err)
			}
			want := models.ViolationKind(fails[c.variant])
			if want == "" {
				t.Fatalf("%s is not a registered variant", c.variant)
			}
			caught := uint64(0)
			for seed := uint64(1); seed <= 10 && caught == 0; seed++ {
				o := queueRun(t, Spec{Kind: c.kind, Variant: c.variant, Faults: faults}, seed)
				if slices.ContainsFunc(o.Violations, func(v models.Violation) bool { return v.Check == c.check && v.Kind == want }) {
					caught = seed
					t.Logf("seed %d: %s", seed, o.Violations[0])
				}
			}
			if caught == 0 {
				t.Fatalf("%s: no %s violation from the %s check on seeds 1-10", c.variant, want, c.check)
			}
			o := queueRun(t, Spec{Kind: c.kind, Faults: faults}, caught)
			if o.Failed() {
				t.Fatalf("the recipe, on the seed and faults that catch %s: %v", c.variant, o.Violations)
			}
		})
	}
}

// The recipe lists the queue node about once per consumer for a backlog;
// the relist variant once per take. (What the herd check judges.)
func TestQueueListingsPerTake(t *testing.T) {
	listings := func(variant string) models.Listings {
		o, err := Run(Spec{Kind: "queue", Variant: variant}, 1, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return models.QueueListings(o.Input, "/zksim/queue")
	}
	recipe, relist := listings(""), listings("queue-relist")
	t.Logf("getChildren per take of a backlog: recipe %.2f (%d in %d), relist %.2f (%d in %d)",
		recipe.PerTake, recipe.Listings, recipe.Judged, relist.PerTake, relist.Listings, relist.Judged)
	if recipe.Judged != 16 || relist.Judged != 16 {
		t.Fatalf("judged takes: recipe %d, relist %d; want all 16 (the items wait as a backlog)", recipe.Judged, relist.Judged)
	}
	if recipe.Listings > 4 || relist.Listings < 16 {
		t.Fatalf("listings: recipe %d (want at most 2 per consumer), relist %d (want one per take at least)",
			recipe.Listings, relist.Listings)
	}
}

// A queue that loses an item still ends its run: the consumers give up
// once nothing happened for the run's liveness bound and a patience more,
// after the producers were done; and they asked that long, so the
// exactly-once check calls the item lost.
func TestQueueConsumersStopWhenAnItemIsLost(t *testing.T) {
	faults, err := fault.ParseSchedule("when c1 delete#1 applied: lose-reply")
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 10; seed++ {
		o := queueRun(t, Spec{Kind: "queue", Variant: "queue-plain-delete", Faults: faults, Checks: []string{"exactly-once"}}, seed)
		_, _, takeOK, _ := queueTally(o)
		if takeOK == queueItemsOf("queue") {
			continue // the lost reply was another consumer's item's: nothing lost
		}
		if o.Input.Stuck || o.Result.Err != nil {
			t.Fatalf("seed %d: %d of 20 taken, and the run ended with %v", seed, takeOK, o.Result.Err)
		}
		giveUp := o.Input.Bound + time.Second // the consumers' patience (workload/queue.go, queuePatience)
		if end := time.Duration(o.Input.End); end < giveUp || end > giveUp+5*time.Second {
			t.Fatalf("seed %d: the run ended at %s, want soon after the consumers' give-up (%s)", seed, end, giveUp)
		}
		if len(o.Violations) != 1 || o.Violations[0].Kind != models.Liveness ||
			!strings.Contains(o.Violations[0].Message, "was never taken, though c") {
			t.Fatalf("seed %d: %d of 20 taken; want the exactly-once check to call an item lost, got %v", seed, takeOK, o.Violations)
		}
		return
	}
	t.Fatal("no seed lost an item")
}

// The first Consumers clients take, the others put; priorities come from
// the producer and the item's number.
func TestQueueRoles(t *testing.T) {
	o := queueRun(t, Spec{Kind: "priority-queue", Clients: 5, Workload: workload.Shape{Consumers: 3, Rounds: 4}}, 1)
	takers, putters := map[int]bool{}, map[int]bool{}
	var prios []string
	for _, op := range o.Input.Ops {
		switch op.Kind {
		case models.Take:
			takers[op.Client] = true
		case models.Put:
			putters[op.Client] = true
			if op.Client == 3 {
				prios = append(prios, fmt.Sprintf("%s:%d", op.Data, op.Priority))
			}
		}
	}
	if len(takers) != 3 || !takers[0] || !takers[2] || len(putters) != 2 || !putters[3] || !putters[4] {
		t.Fatalf("takers %v, putters %v: want c1-c3 taking, c4 and c5 putting", takers, putters)
	}
	if got := strings.Join(prios, " "); got != "c4-1:0 c4-2:50 c4-3:1 c4-4:99" {
		t.Fatalf("c4's items: %s", got)
	}
}

// The same seed gives the same run, faults and all.
func TestQueueRunsRepeat(t *testing.T) {
	for _, kind := range []string{"queue", "priority-queue"} {
		spec := queueFaulty(kind, 3)
		a, b := queueRun(t, spec, 3), queueRun(t, spec, 3)
		if a.Result.Hash != b.Result.Hash || !slices.Equal(a.Input.Ops, b.Input.Ops) {
			t.Fatalf("%s: two runs of seed 3 differ: hash %x and %x", kind, a.Result.Hash, b.Result.Hash)
		}
	}
}

// A consumer whose take gives up on its deadline while the take's multi is
// in doubt (its answer held on a link cut past the session timeout) may
// have taken an item: the workload records the take as of unknown outcome,
// not as nothing, or a correct queue fails its FIFO check (the item the
// multi took looks never taken while later ones are).
func TestTakeGivenUpInDoubtIsUnknown(t *testing.T) {
	sched, err := fault.ParseSchedule("at 3.6s pause c2 12.48s; at 3.8s crash leader; " +
		"when c2 getData#2 applied: disconnect c2 for 11.01s; when c2 notified#1: disconnect c2 for 17.77s")
	if err != nil {
		t.Fatal(err)
	}
	o := queueRun(t, Spec{Kind: "queue", Clients: 4, Workload: workload.Shape{Rounds: 2}, Faults: sched}, 14)
	if o.Failed() {
		t.Fatalf("the recipe's queue failed: %v", o.Violations)
	}
	unknown := 0
	for _, op := range o.Input.Ops {
		if op.Kind == models.Take && op.Client == 1 && op.Result == models.Unknown {
			unknown++
		}
	}
	if unknown == 0 {
		t.Errorf("c2's take, given up while its multi was in doubt, is not recorded as unknown")
	}
}

// Asked for, the leaks check finds what the queue recipe leaves until
// Close: its clients' receipts; and a history saved from the run judges
// the same.
func TestLeaksFindsTheQueueReceipts(t *testing.T) {
	o := queueRun(t, Spec{Kind: "queue", Checks: []string{"leaks"}}, 1)
	if len(o.Violations) != 1 || !strings.Contains(o.Violations[0].Message, "/zksim/queue/receipts/") {
		t.Fatalf("violations %v, want the receipts left behind", o.Violations)
	}
	again, err := o.History.Judge()
	if err != nil || len(again) != 1 || again[0].Message != o.Violations[0].Message {
		t.Fatalf("the saved history judges %v (%v), the run %v", again, err, o.Violations)
	}
}
