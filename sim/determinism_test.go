package sim

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
)

var update = flag.Bool("update", false, "rewrite the golden traces under testdata/")

// everyFault strikes often enough that a few hundred seeds see every kind.
var everyFault = fault.Rates{Crash: 0.3, LeaderCrash: 0.2, Partition: 0.3, Isolate: 0.1, Pause: 0.3, Spike: 0.3, LoseReply: 1,
	Disconnect: 0.2, Outage: 0.05, Expire: 0.1, Lag: 0.2, LoseRequest: 0.5, Triggered: 1, SessionTimeout: 4 * time.Second, OneWay: 0.1}

// randomWorkload is a multi-client workload whose every decision comes from
// the seed: clients create, read, write and delete under /w, wait on
// watches, pause between operations, and run under a random fault schedule
// drawn from the seed (every kind of fault, some seeds none).
func randomWorkload(seed uint64, clients, ops int) *World {
	w, _ := randomWorkloadWithFaults(seed, clients, ops)
	return w
}

func randomWorkloadWithFaults(seed uint64, clients, ops int) (*World, fault.Schedule) {
	w := workloadWithoutFaults(seed, clients, ops)
	sched := workloadFaults(seed, len(w.servers), clients)
	if err := w.Inject(sched); err != nil {
		panic(err)
	}
	return w, sched
}

// workloadFaults is the schedule randomWorkload runs under: none for one
// seed in four, else drawn from the seed.
func workloadFaults(seed uint64, servers, clients int) fault.Schedule {
	if seed%4 == 0 {
		return nil
	}
	return fault.RandomSchedule(NewSeeded(seed^0xfa17), everyFault, 2*time.Second, servers, clients)
}

func workloadWithoutFaults(seed uint64, clients, ops int) *World {
	w, err := New(Config{Seed: seed, KeepTrace: true})
	if err != nil {
		panic(err)
	}
	paths := []string{"/w/a", "/w/b", "/w/c", "/w/a/x"}
	for i := 0; i < clients; i++ {
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		w.Spawn("", func(ctx context.Context, c client.Conn) error {
			if _, err := c.Create(ctx, "/w", nil, 0, acl); !expected(err) {
				return err
			}
			for k := 0; k < ops; k++ {
				p := paths[r.IntN(len(paths))]
				var err error
				switch r.IntN(8) {
				case 0:
					_, err = c.Create(ctx, p, []byte{byte(k)}, int32(r.IntN(4)), acl)
				case 1:
					_, err = c.Create(ctx, "/w/q-", nil, zk.FlagEphemeralSequential, acl)
				case 2:
					err = c.Delete(ctx, p, -1)
				case 3:
					_, err = c.Set(ctx, p, []byte{byte(k)}, int32(r.IntN(3))-1)
				case 4:
					_, _, err = c.Get(ctx, p)
				case 5:
					_, _, err = c.Children(ctx, "/w")
				case 6:
					var ok bool
					var watch client.Watch
					ok, _, watch, err = c.ExistsW(ctx, p)
					if err == nil && ok {
						tctx, cancel := c.WithTimeout(ctx, 20*time.Millisecond)
						_, err = watch.Wait(tctx)
						cancel()
						if errors.Is(err, context.DeadlineExceeded) {
							err = nil
						}
					}
				case 7:
					_, err = c.Multi(ctx,
						&zk.CreateRequest{Path: p, Flags: 0, Acl: acl},
						&zk.SetDataRequest{Path: p, Data: []byte("m"), Version: -1})
				}
				if !expected(err) {
					return fmt.Errorf("op %d: %w", k, err)
				}
				if err := c.Sleep(ctx, time.Duration(r.IntN(100))*time.Millisecond); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return w
}

// expected reports whether err is one a ZooKeeper client must expect from
// the workload's operations, faults included.
func expected(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	for _, e := range []error{zk.ErrNoNode, zk.ErrNodeExists, zk.ErrNotEmpty, zk.ErrBadVersion,
		zk.ErrNoChildrenForEphemerals, zk.ErrConnectionClosed, zk.ErrNoServer, zk.ErrSessionExpired} {
		if errors.Is(err, e) {
			return true
		}
	}
	return err == nil
}

func runWorkload(t testing.TB, seed uint64) (uint64, []byte) {
	w := randomWorkload(seed, 3, 25)
	res := w.Run()
	if res.Err != nil {
		t.Fatalf("seed %d: %v", seed, res.Err)
	}
	if len(res.Violations) > 0 {
		t.Fatalf("seed %d: the simulator's self-checks failed:\n%s", seed, strings.Join(res.Violations, "\n"))
	}
	var buf bytes.Buffer
	w.Trace().WriteTo(&buf)
	return res.Hash, buf.Bytes()
}

// Same seed, same workload, same faults: the same trace, byte for byte, and
// the same hash. Different seeds: different traces. The seeds cover every
// kind of fault.
func TestSameSeedSameTrace(t *testing.T) {
	seeds := 1000
	if testing.Short() {
		seeds = 100
	}
	seen := map[uint64]uint64{}
	kinds := map[fault.Kind]int{}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		h1, text1 := runWorkload(t, seed)
		h2, text2 := runWorkload(t, seed)
		if h1 != h2 || !bytes.Equal(text1, text2) {
			t.Fatalf("seed %d: two runs differ (hash %016x vs %016x)", seed, h1, h2)
		}
		if other, dup := seen[h1]; dup {
			t.Fatalf("seeds %d and %d gave the same trace hash %016x", other, seed, h1)
		}
		seen[h1] = seed
		_, sched := randomWorkloadWithFaults(seed, 3, 25)
		for _, f := range sched {
			kinds[f.Kind]++
			// A fault that undoes itself (for D) restarts its server or
			// heals its links when D has passed.
			switch {
			case f.Kind == fault.Crash && f.For > 0:
				kinds[fault.Restart]++
			case (f.Kind == fault.Partition || f.Kind == fault.OneWay || f.Kind == fault.Isolate || f.Kind == fault.Disconnect) && f.For > 0:
				kinds[fault.Heal]++
			}
		}
	}
	for _, k := range fault.Kinds() {
		if kinds[k] == 0 {
			t.Errorf("no seed had a %s fault", k)
		}
	}
}

// GOMAXPROCS changes nothing: a run is one coroutine at a time.
func TestTraceIndependentOfGOMAXPROCS(t *testing.T) {
	prev := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(prev)
	var hashes []uint64
	for _, procs := range []int{1, 2, 8} {
		runtime.GOMAXPROCS(procs)
		h, _ := runWorkload(t, 42)
		hashes = append(hashes, h)
	}
	if hashes[0] != hashes[1] || hashes[1] != hashes[2] {
		t.Fatalf("hashes differ across GOMAXPROCS: %x", hashes)
	}
}

// A run driven by an explicit choice sequence replays exactly the run that
// recorded it.
func TestRecordedChoicesReplayTheRun(t *testing.T) {
	rec := &Recorder{Src: NewSeeded(7)}
	w := randomWorkloadWithSource(7, rec)
	first := w.Run()
	if first.Err != nil {
		t.Fatal(first.Err)
	}
	w2 := randomWorkloadWithSource(7, &Sequence{Choices: rec.Choices})
	second := w2.Run()
	if second.Hash != first.Hash {
		t.Fatalf("replay from %d recorded choices gave hash %016x, want %016x", len(rec.Choices), second.Hash, first.Hash)
	}
	// An all-zero sequence is a valid (the plainest) run too.
	w3 := randomWorkloadWithSource(7, &Sequence{})
	if res := w3.Run(); res.Err != nil || res.Hash == first.Hash {
		t.Fatalf("all-zero run: err %v, hash equal to the seeded run: %v", res.Err, res.Hash == first.Hash)
	}
}

func randomWorkloadWithSource(seed uint64, src Source) *World {
	w := randomWorkload(seed, 3, 25)
	w.s.src = src
	return w
}

// The golden trace pins the simulator's behaviour on a small workload: any
// change to what it does shows up here. Regenerate with
// go test ./sim -run TestGoldenTrace -update, and read the diff.
func TestGoldenTrace(t *testing.T) {
	_, text := runWorkload(t, 7)
	golden := filepath.Join("testdata", "workload-seed7.trace")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(text, want) {
		t.Fatalf("trace differs from %s; if the change is intended, run with -update and review the diff", golden)
	}
}
