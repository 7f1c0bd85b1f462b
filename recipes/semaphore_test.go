package recipes_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/sim"
)

// permits counts a semaphore's holders as they come and go, and keeps the
// most it saw at once.
type permits struct {
	now, most, holdings int
}

// semaphoreClient acquires a lease rounds times and holds it for hold,
// counting itself among the holders meanwhile; while it holds, its lease
// must not say it is lost unless its session went. Errors a caller must
// expect under faults are retried.
func semaphoreClient(newSem func(client.Conn) recipes.Semaphore, rounds int, hold time.Duration, p *permits) body {
	return func(ctx context.Context, conn client.Conn) error {
		s := newSem(conn)
		for r := 0; r < rounds; {
			lease, err := s.Acquire(ctx)
			if faulty(err) {
				continue
			}
			if err != nil {
				return fmt.Errorf("acquire: %w", err)
			}
			p.now++
			p.holdings++
			p.most = max(p.most, p.now)
			careful := lease.Check() == nil
			if err := conn.Sleep(ctx, hold); err != nil {
				return err
			}
			p.now--
			if !careful {
				// A lease lost on its grant: counted, but not as a round.
				_ = s.Release(ctx)
				continue
			}
			if err := s.Release(ctx); err != nil && !faulty(err) {
				return fmt.Errorf("release: %w", err)
			}
			r++
		}
		return nil
	}
}

func recipeSemaphore(max int) func(client.Conn) recipes.Semaphore {
	return func(c client.Conn) recipes.Semaphore { return recipes.NewSemaphore(c, "/app/sem", max) }
}

// Without faults, at most max clients hold at once, max of them do hold
// together, and every acquisition happens.
func TestSemaphoreCounts(t *testing.T) {
	for _, max := range []int{1, 2, 3} {
		for seed := uint64(1); seed <= 10; seed++ {
			w := newWorld(t, seed, 3)
			p := &permits{}
			for i := 0; i < 5; i++ {
				w.Spawn("", semaphoreClient(recipeSemaphore(max), 4, 10*time.Millisecond, p))
			}
			run(t, w)
			if p.most != max || p.holdings != 20 {
				t.Fatalf("max %d, seed %d: %d held at most at once, %d holdings; want %d and 20", max, seed, p.most, p.holdings, max)
			}
		}
	}
}

// Under crashes, leader crashes, partitions, lost replies, short pauses
// and disconnects (no long pause: a semaphore's holder has no fence), at
// most max hold at once and every acquisition happens.
func TestSemaphoreCountsUnderFaults(t *testing.T) {
	rates := fault.Rates{Crash: 0.2, LeaderCrash: 0.2, Partition: 0.3, ShortPause: 0.2, Spike: 0.2, LoseReply: 2, Disconnect: 0.1}
	for seed := uint64(1); seed <= 40; seed++ {
		w := newWorld(t, seed, 3)
		p := &permits{}
		for i := 0; i < 5; i++ {
			w.Spawn("", semaphoreClient(recipeSemaphore(2), 3, 50*time.Millisecond, p))
		}
		if err := w.Inject(fault.RandomSchedule(sim.NewSeeded(seed), rates, 3*time.Second, 3, 5)); err != nil {
			t.Fatal(err)
		}
		run(t, w)
		if p.most > 2 || p.holdings < 15 {
			t.Fatalf("seed %d: %d held at once, %d holdings; want at most 2, and all 15\n%s", seed, p.most, p.holdings, traceTail(w, 40))
		}
	}
}

// The check-then-create variant lets three hold a semaphore of two, on
// some seed without any fault (kazoo #213).
func TestSemaphoreCheckThenCreateOverGrants(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		w := newWorld(t, seed, 3)
		p := &permits{}
		for i := 0; i < 5; i++ {
			w.Spawn("", semaphoreClient(func(c client.Conn) recipes.Semaphore {
				return recipes.NewCheckThenCreateSemaphore(c, "/app/sem", 2)
			}, 4, 10*time.Millisecond, p))
		}
		run(t, w)
		if p.most > 2 {
			return
		}
	}
	t.Fatal("check-then-create never let more than two hold")
}

// c1's count after its create is answered ConnectionLoss: the recipe lists
// again, and its second client holds beside it. The orphan-on-error
// variant gives up leaving its node: one lease fewer, so c2 cannot hold
// while c1 does.
func TestSemaphoreLostCountReply(t *testing.T) {
	for _, tc := range []struct {
		name string
		new  func(client.Conn, string, int) recipes.Semaphore
		most int
	}{
		{"recipe", func(c client.Conn, p string, n int) recipes.Semaphore { return recipes.NewSemaphore(c, p, n) }, 2},
		{"orphan-on-error", func(c client.Conn, p string, n int) recipes.Semaphore { return recipes.NewOrphaningSemaphore(c, p, n) }, 1},
	} {
		w := newWorld(t, 1, 3)
		p := &permits{}
		for i := 0; i < 2; i++ {
			body := semaphoreClient(func(c client.Conn) recipes.Semaphore { return tc.new(c, "/app/sem", 2) }, 1, time.Second, p)
			w.Spawn("", func(ctx context.Context, conn client.Conn) error {
				if err := conn.Sleep(ctx, time.Duration(i)*5*time.Millisecond); err != nil { // c1 first
					return err
				}
				return body(ctx, conn)
			})
		}
		// getChildren#1 is the internal lock's listing, #2 the count.
		inject(t, w, "when c1 getChildren#2 applied: lose-reply")
		run(t, w)
		if p.most != tc.most || p.holdings != 2 {
			t.Errorf("%s: %d held at once, %d holdings; want %d and 2", tc.name, p.most, p.holdings, tc.most)
		}
	}
}
