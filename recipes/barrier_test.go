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
	"github.com/zksim/zksim/trace"
)

const barrierPath = "/app/barrier"

// barrierLog is what a barrier run observed: when the barrier was up, when
// its removal was first asked for, and when each waiter got through.
type barrierLog struct {
	set      bool          // Set has returned
	removeAt time.Duration // when Remove was first called (-1: not yet)
	passed   []time.Duration
	through  []bool
}

func newBarrierLog(waiters int) *barrierLog {
	return &barrierLog{removeAt: -1, passed: make([]time.Duration, waiters), through: make([]bool, waiters)}
}

func barrierNow(conn client.Conn) time.Duration { return conn.Now().Sub(client.Epoch) }

// barrierSetter raises the barrier, holds it for hold, and removes it,
// retrying what faults make fail.
func barrierSetter(log *barrierLog, hold time.Duration) body {
	return func(ctx context.Context, conn client.Conn) error {
		b := recipes.NewBarrier(conn, barrierPath)
		for {
			err := b.Set(ctx)
			if err == nil {
				break
			}
			if !faulty(err) {
				return fmt.Errorf("set: %w", err)
			}
		}
		log.set = true
		if err := conn.Sleep(ctx, hold); err != nil {
			return err
		}
		log.removeAt = barrierNow(conn)
		for {
			err := b.Remove(ctx)
			if err == nil {
				return nil
			}
			if !faulty(err) {
				return fmt.Errorf("remove: %w", err)
			}
		}
	}
}

// barrierWaiter waits, once the barrier is up, until it is removed, and
// records when it got through.
func barrierWaiter(log *barrierLog, i int) body {
	return func(ctx context.Context, conn client.Conn) error {
		for !log.set {
			if err := conn.Sleep(ctx, time.Millisecond); err != nil {
				return err
			}
		}
		b := recipes.NewBarrier(conn, barrierPath)
		for {
			err := b.Wait(ctx)
			if err == nil {
				break
			}
			if !faulty(err) {
				return fmt.Errorf("wait: %w", err)
			}
		}
		log.passed[i], log.through[i] = barrierNow(conn), true
		return nil
	}
}

// barrierCheck: every waiter got through, none before the removal was asked
// for, and (when within > 0) each within that long after it.
func barrierCheck(log *barrierLog, within time.Duration) error {
	if log.removeAt < 0 {
		return fmt.Errorf("the barrier was never removed")
	}
	for i, ok := range log.through {
		switch {
		case !ok:
			return fmt.Errorf("waiter %d never got through", i)
		case log.passed[i] < log.removeAt:
			return fmt.Errorf("waiter %d got through at %v, before the barrier's removal at %v", i, log.passed[i], log.removeAt)
		case within > 0 && log.passed[i] > log.removeAt+within:
			return fmt.Errorf("waiter %d got through at %v, %v after the removal", i, log.passed[i], log.passed[i]-log.removeAt)
		}
	}
	return nil
}

// Without faults, every waiter is held until the barrier is removed, and
// the removal's notification lets it through at once.
func TestBarrierHoldsUntilRemoved(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		w := newWorld(t, seed, 3)
		log := newBarrierLog(4)
		w.Spawn("", barrierSetter(log, time.Duration(100+10*seed)*time.Millisecond))
		for i := range 4 {
			w.Spawn("", barrierWaiter(log, i))
		}
		run(t, w)
		if err := barrierCheck(log, 20*time.Millisecond); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		// One notification per waiter: each waits on one exists() watch.
		if n := count(w, trace.KNotify); n != 4 {
			t.Fatalf("seed %d: %d notifications, want 4 (one per waiter)", seed, n)
		}
	}
}

// Under crashes, leader crashes, partitions, pauses past the session
// timeout, latency spikes and lost replies of the setter's create and
// delete, no waiter gets through before the removal is asked for, and
// every waiter gets through in the end (a waiter may see faulty errors and
// wait again).
func TestBarrierHoldsUnderFaults(t *testing.T) {
	rates := fault.Rates{Crash: 0.2, LeaderCrash: 0.2, Partition: 0.3, Pause: 0.2, Spike: 0.2, LoseReply: 2}
	for seed := uint64(1); seed <= 300; seed++ {
		w := newWorld(t, seed, 3)
		log := newBarrierLog(4)
		w.Spawn("", barrierSetter(log, 2*time.Second))
		for i := range 4 {
			w.Spawn("", barrierWaiter(log, i))
		}
		sched := fault.RandomSchedule(sim.NewSeeded(seed), rates, 3*time.Second, 3, 5)
		if err := w.Inject(sched); err != nil {
			t.Fatal(err)
		}
		run(t, w)
		if err := barrierCheck(log, 0); err != nil {
			t.Fatalf("seed %d: %v\nschedule:\n%s\n%s", seed, err, sched, traceTail(w, 40))
		}
	}
}

// A waiter paused past its session timeout while the barrier is up loses
// its session and its watch; on resuming, it reissues exists() in its new
// session, finds the barrier still up, and waits for the removal.
func TestBarrierWaiterWhoseSessionExpired(t *testing.T) {
	w := newWorld(t, 5, 3)
	log := newBarrierLog(2)
	w.Spawn("", barrierSetter(log, 20*time.Second))
	w.Spawn("", barrierWaiter(log, 0))
	w.Spawn("", barrierWaiter(log, 1))
	inject(t, w, "at 1s pause c2 15s")
	run(t, w)
	if count(w, trace.KExpire) != 1 {
		t.Fatalf("%d sessions expired, want c2's", count(w, trace.KExpire))
	}
	if err := barrierCheck(log, 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
}

// A waiter whose server lags behind the leader (cut off from the other
// servers, it still answers reads from its old tree) would read the state
// before the barrier was set and walk through: Wait syncs that server with
// the leader before its first exists(), so the waiter is held until the
// removal.
func TestBarrierWaiterOnALaggingServer(t *testing.T) {
	w := newWorld(t, 1, 3)
	log := newBarrierLog(1)
	w.SpawnOn("", []int{1, 2}, func(ctx context.Context, conn client.Conn) error {
		if err := conn.Sleep(ctx, 100*time.Millisecond); err != nil {
			return err
		}
		return barrierSetter(log, 2*time.Second)(ctx, conn)
	})
	w.SpawnOn("", []int{0}, barrierWaiter(log, 0))
	// Both sessions are open by 50ms; then s1 hears nothing more until 5s.
	inject(t, w, "at 50ms partition s1 s2; at 50ms partition s1 s3; at 5s heal")
	run(t, w)
	if err := barrierCheck(log, 0); err != nil {
		t.Fatal(err)
	}
}
