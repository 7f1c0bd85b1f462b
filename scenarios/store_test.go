package scenarios

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"pgregory.net/rapid"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/sim"
)

// heavy strikes every kind of fault often.
var heavy = fault.Rates{Crash: 0.3, LeaderCrash: 0.2, Partition: 0.4, Isolate: 0.1, Pause: 0.3, Spike: 0.3, LoseReply: 1,
	Disconnect: 0.3, Expire: 0.2, Lag: 0.3, LoseRequest: 1, Triggered: 2, SessionTimeout: 4 * time.Second}

// fataler is what testing.T and rapid.T share.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

func checkWrites(t fataler, what string, run *StoreRun) {
	t.Helper()
	if len(run.Result.Violations) > 0 {
		t.Fatalf("%s: the simulator's self-checks failed:\n%s", what, strings.Join(run.Result.Violations, "\n"))
	}
	writes := models.Writes(run.History)
	if res, _ := models.CheckStore(writes); res != porcupine.Ok {
		t.Fatalf("%s: writes are %s, want linearizable\n%d writes:\n%s", what, res, len(writes), describeAll(writes))
	}
}

func describeAll(ops []models.Operation) string {
	var lines []string
	for _, op := range ops {
		lines = append(lines, models.Describe(op))
	}
	return strings.Join(lines, "\n")
}

// Writes are linearizable on every seed under every kind of fault.
func TestStoreWritesLinearizableUnderFaults(t *testing.T) {
	seeds := uint64(150)
	if testing.Short() {
		seeds = 30
	}
	kinds := map[fault.Kind]bool{}
	unknown := 0
	for seed := uint64(1); seed <= seeds; seed++ {
		sched := fault.RandomSchedule(sim.NewSeeded(seed), heavy, 2*time.Second, 3, 3)
		for _, f := range sched {
			kinds[f.Kind] = true
			if f.For > 0 { // it undoes itself: a restart, a heal
				kinds[fault.Restart] = kinds[fault.Restart] || f.Kind == fault.Crash
				kinds[fault.Heal] = kinds[fault.Heal] || f.Kind == fault.Partition || f.Kind == fault.Isolate || f.Kind == fault.Disconnect
			}
		}
		run, err := RunStore(StoreConfig{Seed: seed, Faults: sched})
		if err != nil {
			t.Fatalf("seed %d: %v\nfaults:\n%s", seed, err, sched)
		}
		for _, op := range run.History {
			if op.Result == models.Unknown {
				unknown++
			}
		}
		checkWrites(t, fmt.Sprint("seed ", seed), run)
	}
	for _, k := range []fault.Kind{fault.Crash, fault.Restart, fault.Partition, fault.Isolate, fault.Heal, fault.Pause, fault.Spike,
		fault.LoseReply, fault.Disconnect, fault.Expire, fault.Lag, fault.LoseRequest, fault.Delay} {
		if !kinds[k] {
			t.Errorf("no seed had a fault of kind %v", fault.Fault{Kind: k}.String())
		}
	}
	if unknown == 0 {
		t.Errorf("no operation of unknown outcome in %d runs: the faults did not bite", seeds)
	}
}

// rapid draws fault schedules directly (kinds, times, targets) and
// shrinks any that breaks linearizable writes to a minimal one.
func TestStoreWritesLinearizableRapid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		seed := rapid.Uint64().Draw(t, "seed")
		n := rapid.IntRange(0, 6).Draw(t, "faults")
		var sched fault.Schedule
		for i := 0; i < n; i++ {
			at := time.Duration(rapid.IntRange(0, 20).Draw(t, "at")) * 100 * time.Millisecond
			srv := fault.Target{Kind: fault.ServerT, Index: rapid.IntRange(0, 2).Draw(t, "server")}
			cl := fault.Target{Kind: fault.ClientT, Index: rapid.IntRange(0, 2).Draw(t, "client")}
			back := at + time.Duration(rapid.IntRange(1, 8).Draw(t, "for"))*time.Second
			switch rapid.IntRange(0, 6).Draw(t, "kind") {
			case 0:
				sched = append(sched, fault.Fault{At: at, Kind: fault.Crash, A: srv}, fault.Fault{At: back, Kind: fault.Restart, A: srv})
			case 1:
				sched = append(sched, fault.Fault{At: at, Kind: fault.Crash, A: fault.Target{Kind: fault.LeaderT}})
				for s := 0; s < 3; s++ {
					sched = append(sched, fault.Fault{At: back, Kind: fault.Restart, A: fault.Target{Kind: fault.ServerT, Index: s}})
				}
			case 2:
				other := fault.Target{Kind: fault.ServerT, Index: (srv.Index + 1) % 3}
				sched = append(sched, fault.Fault{At: at, Kind: fault.Partition, A: srv, B: other}, fault.Fault{At: back, Kind: fault.Heal, A: srv, B: other})
			case 3:
				sched = append(sched, fault.Fault{At: at, Kind: fault.Partition, A: srv, B: cl}, fault.Fault{At: back, Kind: fault.Heal, A: srv, B: cl})
			case 4:
				sched = append(sched, fault.Fault{At: at, Kind: fault.Pause, A: cl, D: back - at})
			case 5:
				sched = append(sched, fault.Fault{At: at, Kind: fault.Spike, D: 50 * time.Millisecond, For: back - at})
			case 6:
				tr := fault.Trigger{Client: cl.Index, Op: client.OpSetData, Nth: rapid.IntRange(1, 4).Draw(t, "nth")}
				sched = append(sched, fault.Fault{When: &tr, Kind: fault.LoseReply})
			}
		}
		run, err := RunStore(StoreConfig{Seed: seed, Faults: sched, Ops: 15})
		if err != nil {
			t.Fatalf("%v\nfaults:\n%s", err, sched)
		}
		checkWrites(t, "faults:\n"+sched.String(), run)
	})
}

// stale-read yields a porcupine violation on every seed; stale-read-sync,
// the same schedule with sync() before the read, yields none.
func TestStaleReadNeedsSync(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		stale, err := RunStaleRead(seed, false)
		if err != nil {
			t.Fatalf("stale-read seed %d: %v", seed, err)
		}
		if res, _ := models.CheckStore(stale.History); res != porcupine.Illegal {
			t.Fatalf("stale-read seed %d: %s, want a violation\n%s", seed, res, describeAll(stale.History))
		}
		synced, err := RunStaleRead(seed, true)
		if err != nil {
			t.Fatalf("stale-read-sync seed %d: %v", seed, err)
		}
		if res, _ := models.CheckStore(synced.History); res != porcupine.Ok {
			t.Fatalf("stale-read-sync seed %d: %s, want linearizable\n%s", seed, res, describeAll(synced.History))
		}
		// Both runs hold linearizable writes.
		checkWrites(t, "stale-read", stale)
		checkWrites(t, "stale-read-sync", synced)
	}
}
