package recipes_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/trace"
)

func recipeLock(c client.Conn) recipes.Locker { return recipes.NewLock(c, "/app/lock") }

// Without faults the lock is exclusive and every acquisition happens.
func TestLockExclusive(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		w := newWorld(t, seed, 3)
		res := &resource{}
		for i := 0; i < 5; i++ {
			w.Spawn("", lockClient(recipeLock, i, 5, 3, time.Millisecond, res, true))
		}
		run(t, w)
		if err := res.exclusive(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if res.holdings != 25 {
			t.Fatalf("seed %d: %d acquisitions, want 25", seed, res.holdings)
		}
	}
}

// Under crashes, leader crashes, partitions, lost create() replies, pauses
// and expiry, a careful holder of the recipe's lock is never one of two.
func TestLockExclusiveUnderFaults(t *testing.T) {
	rates := fault.Rates{Crash: 0.2, LeaderCrash: 0.2, Partition: 0.3, Pause: 0.2, Spike: 0.2, LoseReply: 2}
	for seed := uint64(1); seed <= 40; seed++ {
		w := newWorld(t, seed, 3)
		res := &resource{}
		for i := 0; i < 4; i++ {
			w.Spawn("", lockClient(recipeLock, i, 4, 3, 50*time.Millisecond, res, true))
		}
		if err := w.Inject(fault.RandomSchedule(sim.NewSeeded(seed), rates, 3*time.Second, 3, 4)); err != nil {
			t.Fatal(err)
		}
		run(t, w)
		if err := res.exclusive(); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, traceTail(w, 40))
		}
		if res.holdings < 16 {
			t.Fatalf("seed %d: %d acquisitions, want all 16", seed, res.holdings)
		}
	}
}

// The recipe's guid recovery, deterministically: c1's create of its lock
// node is applied but its reply is lost. c1 finds its node by its guid
// instead of creating another, and both clients get the lock in turn.
// The no-guid variant creates a second node: the first is orphaned, and
// every waiter, c1 first, waits on it forever.
func TestLostCreateReplyAndTheGUID(t *testing.T) {
	// create#1 is /app, create#2 is /app/lock, create#3 the lock node.
	const lostReply = "when c1 create#3 applied: lose-reply"
	lockNodes := func(w *sim.World) int {
		n := 0
		for _, r := range w.Trace().Records() {
			if r.Kind == trace.KApply && r.From == trace.ServerActor(0) && r.Op == client.OpCreate &&
				r.Code == 0 && strings.HasPrefix(r.Path, "/app/lock/") {
				n++
			}
		}
		return n
	}
	for seed := uint64(1); seed <= 10; seed++ {
		w := newWorld(t, seed, 3)
		res := &resource{}
		w.Spawn("", lockClient(recipeLock, 0, 2, 2, time.Millisecond, res, true))
		w.Spawn("", lockClient(recipeLock, 1, 2, 2, time.Millisecond, res, true))
		inject(t, w, lostReply)
		run(t, w)
		if res.holdings != 4 || lockNodes(w) != 4 {
			t.Fatalf("seed %d: %d acquisitions with %d lock nodes, want 4 and 4", seed, res.holdings, lockNodes(w))
		}
		if res.exclusive() != nil {
			t.Fatal(res.exclusive())
		}

		w = newWorld(t, seed, 3)
		res = &resource{}
		noGUID := func(c client.Conn) recipes.Locker { return recipes.NewNoGUIDLock(c, "/app/lock") }
		w.Spawn("", lockClient(noGUID, 0, 2, 2, time.Millisecond, res, true))
		w.Spawn("", lockClient(noGUID, 1, 2, 2, time.Millisecond, res, true))
		inject(t, w, lostReply)
		r := w.Run()
		var d *sim.DeadlockError
		if !errors.As(r.Err, &d) || !strings.Contains(d.Error(), "c1: waiting on a watch (set by exists) on /app/lock/") {
			t.Fatalf("seed %d: the no-guid lock ended with %v, want c1 deadlocked on its orphaned node", seed, r.Err)
		}
	}
}

// A caller that gives up on Lock while its create is in flight (its
// context ends before the reply, delayed 2s, comes back) leaves no node
// behind: the create was applied, and the node, of a session that lives
// on, would head the queue until that session ended. c2, queued behind
// it, gets the lock long before c1's session closes. The impatient
// variant, which forgets the node, keeps c2 waiting until it does.
func TestLockGivenUpWithCreateInDoubt(t *testing.T) {
	for _, c := range []struct {
		name    string
		newLock func(client.Conn) recipes.Locker
		soon    bool
	}{
		{"recipe", recipeLock, true},
		{"lock-impatient-create", func(c client.Conn) recipes.Locker { return recipes.NewImpatientLock(c, "/app/lock") }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, 1, 3)
			var got time.Duration = -1
			w.Spawn("", func(ctx context.Context, conn client.Conn) error {
				cctx, cancel := conn.WithTimeout(ctx, 500*time.Millisecond)
				defer cancel()
				if _, err := c.newLock(conn).Lock(cctx); err == nil {
					return errors.New("c1 locked, want its Lock given up")
				}
				return conn.Sleep(ctx, 10*time.Second) // its session lives on
			})
			w.Spawn("", func(ctx context.Context, conn client.Conn) error {
				if err := conn.Sleep(ctx, 100*time.Millisecond); err != nil {
					return err
				}
				start := conn.Now()
				if _, err := c.newLock(conn).Lock(ctx); err != nil {
					return err
				}
				got = conn.Now().Sub(start)
				return nil
			})
			inject(t, w, "when c1 create#3 applied: delay 2s") // c1's lock node
			run(t, w)
			if soon := got >= 0 && got < 5*time.Second; soon != c.soon {
				t.Fatalf("c2 got the lock after %s; want it within 5s: %v", got, c.soon)
			}
		})
	}
}

// The recipe wakes one waiter per release; the herd lock wakes them all.
func TestHerdLockWakesEveryWaiter(t *testing.T) {
	perAcquisition := func(newLock func(client.Conn) recipes.Locker) float64 {
		w := newWorld(t, 1, 3)
		res := &resource{}
		for i := 0; i < 8; i++ {
			w.Spawn("", lockClient(newLock, i, 3, 2, 5*time.Millisecond, res, true))
		}
		run(t, w)
		return float64(count(w, trace.KNotify)) / float64(res.holdings)
	}
	recipe := perAcquisition(recipeLock)
	herd := perAcquisition(func(c client.Conn) recipes.Locker { return recipes.NewHerdLock(c, "/app/lock") })
	t.Logf("recipe %.2f herd %.2f", recipe, herd)
	if recipe > 1.2 || herd < 4 {
		t.Fatalf("notifications per acquisition: recipe %.2f (want about 1), herd %.2f (want about 7)", recipe, herd)
	}
}

// Trusting getChildren's order lets two clients hold the lock at once.
func TestUnsortedLockIsNotExclusive(t *testing.T) {
	unsorted := func(c client.Conn) recipes.Locker { return recipes.NewUnsortedLock(c, "/app/lock") }
	for seed := uint64(1); seed <= 30; seed++ {
		w := newWorld(t, seed, 3)
		res := &resource{}
		for i := 0; i < 5; i++ {
			w.Spawn("", lockClient(unsorted, i, 5, 3, time.Millisecond, res, true))
		}
		w.Run()
		if res.exclusive() != nil {
			return // caught
		}
	}
	t.Fatal("the unsorted lock never let two clients hold it at once in 30 seeds")
}

// A holder paused past its session timeout loses the lock: the next client
// gets it. The careful holder checks its lease on resuming and stops; the
// careless one goes on using the resource while the other holds it.
func TestHolderPausedPastItsSession(t *testing.T) {
	scenario := func(newLock func(client.Conn) recipes.Locker) error {
		w := newWorld(t, 3, 3)
		res := &resource{}
		// c1 takes the lock first and holds it for a long time in 1s steps;
		// it is paused 15s in the middle. c2 then holds it 6s.
		w.Spawn("", lockClient(newLock, 0, 1, 10, time.Second, res, true))
		w.Spawn("", func(ctx context.Context, conn client.Conn) error {
			if err := conn.Sleep(ctx, 100*time.Millisecond); err != nil {
				return err
			}
			return lockClient(newLock, 1, 1, 6, time.Second, res, true)(ctx, conn)
		})
		inject(t, w, "at 1500ms pause c1 15s")
		run(t, w)
		return res.exclusive()
	}
	if err := scenario(recipeLock); err != nil {
		t.Fatalf("careful holder: %v", err)
	}
	careless := func(c client.Conn) recipes.Locker { return recipes.NewCarelessLock(c, "/app/lock") }
	if err := scenario(careless); err == nil {
		t.Fatal("the careless holder was never caught using the resource while another held the lock")
	}
}
