package sim

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// lockContentionOn is a lock workload written directly against
// client.Conn: clients × rounds acquisitions of one lock made of ephemeral
// sequential nodes, each waiter watching the next lower node. (The
// benchmarks run the recipe through the built-in scenario: see
// search/bench_test.go.)
func lockContentionOn(seed uint64, servers, clients, rounds int) *World {
	w, err := New(Config{Seed: seed, Servers: servers})
	if err != nil {
		panic(err)
	}
	for i := 0; i < clients; i++ {
		w.Spawn("", func(ctx context.Context, c client.Conn) error {
			if _, err := c.Create(ctx, "/lock", nil, 0, acl); err != nil && !errors.Is(err, zk.ErrNodeExists) {
				return err
			}
			for r := 0; r < rounds; r++ {
				me, err := c.Create(ctx, "/lock/guid-lock-", nil, zk.FlagEphemeralSequential, acl)
				if err != nil {
					return err
				}
				mine := strings.TrimPrefix(me, "/lock/")
				for {
					kids, _, err := c.Children(ctx, "/lock")
					if err != nil {
						return err
					}
					slices.Sort(kids)
					i := slices.Index(kids, mine)
					if i == 0 {
						break
					}
					ok, _, watch, err := c.ExistsW(ctx, "/lock/"+kids[i-1])
					if err != nil {
						return err
					}
					if ok {
						if _, err := watch.Wait(ctx); err != nil {
							return err
						}
					}
				}
				if err := c.Delete(ctx, me, -1); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return w
}

// A sound lock on a healthy ensemble always completes: every acquisition
// happens, on every seed and ensemble size. (This caught a watcher that was
// registered only when its client next ran, so that a notification arriving
// in the same instant as the read's reply was lost.)
func TestLockWorkloadCompletes(t *testing.T) {
	seeds := uint64(40)
	if testing.Short() {
		seeds = 10
	}
	for _, servers := range []int{1, 3, 5} {
		for seed := uint64(1); seed <= seeds; seed++ {
			res := lockContentionOn(seed, servers, 10, 20).Run()
			if res.Err != nil {
				t.Fatalf("%d servers, seed %d: %v", servers, seed, res.Err)
			}
			// Every client acted at least once per operation it completed,
			// and every step was an event or a client's (or a wake-up of
			// cancelled waiters, which this workload has none of).
			if res.ClientSteps < res.Ops || res.Events == 0 || res.Events+res.ClientSteps != res.Steps {
				t.Fatalf("%d servers, seed %d: %d steps, %d events, %d client steps, %d operations",
					servers, seed, res.Steps, res.Events, res.ClientSteps, res.Ops)
			}
		}
	}
}
