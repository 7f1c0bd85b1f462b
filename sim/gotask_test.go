package sim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// raceBody is a process of two tasks that each make a call and then note
// their name in order: which notes first is the run's choice.
func raceBody(order *string) body {
	return func(ctx context.Context, c client.Conn) error {
		_, err := c.Create(ctx, "/r", nil, 0, acl)
		must(err)
		other := c.Go(ctx, "listener", func(ctx context.Context) error {
			if _, _, err := c.Exists(ctx, "/r"); err != nil {
				return err
			}
			*order += "L"
			return nil
		})
		if _, _, err := c.Exists(ctx, "/r"); err != nil {
			return err
		}
		*order += "C"
		return other.Wait(ctx)
	}
}

func TestTasksOfOneProcessInterleaveByTheSeed(t *testing.T) {
	seen := map[string]bool{}
	for seed := uint64(1); seed <= 40; seed++ {
		var order string
		_, res := run(t, Config{Seed: seed}, raceBody(&order))
		seen[order] = true
		var again string
		_, res2 := run(t, Config{Seed: seed}, raceBody(&again))
		if again != order || res2.Hash != res.Hash {
			t.Fatalf("seed %d: %q (hash %x), then %q (hash %x)", seed, order, res.Hash, again, res2.Hash)
		}
	}
	if !seen["LC"] || !seen["CL"] {
		t.Fatalf("over 40 seeds the two tasks ran in the orders %v; want both", seen)
	}
}

func TestAllZeroChoicesRunTasksFirstComeFirst(t *testing.T) {
	var order string
	w, err := New(Config{Source: &Sequence{}, KeepTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	w.Spawn("", raceBody(&order))
	if res := w.Run(); res.Err != nil {
		t.Fatal(res.Err)
	}
	// The caller goes on past Go, sends its exists first, and its reply
	// comes first.
	if order != "CL" {
		t.Fatalf("order %q, want CL", order)
	}
}

func TestTaskErrorIsItsOwnAndPanicFailsTheRun(t *testing.T) {
	boom := errors.New("boom")
	run(t, Config{Seed: 1}, func(ctx context.Context, c client.Conn) error {
		task := c.Go(ctx, "worker", func(ctx context.Context) error { return boom })
		if err := task.Wait(ctx); !errors.Is(err, boom) {
			t.Errorf("Wait = %v, want %v", err, boom)
		}
		if _, ok := task.Poll(); !ok {
			t.Error("a returned task does not poll ready")
		}
		return nil
	})
	_, res := runAllowingFailure(t, Config{Seed: 1}, func(ctx context.Context, c client.Conn) error {
		c.Go(ctx, "worker", func(ctx context.Context) error { panic("listener broke") })
		return c.Sleep(ctx, time.Second)
	})
	var ce *ClientError
	if !errors.As(res.Err, &ce) || ce.Client != "c1/worker" || !strings.Contains(ce.Err.Error(), "listener broke") {
		t.Fatalf("run error %v, want the panic of c1/worker", res.Err)
	}
}

func TestTasksEndWithTheirProcess(t *testing.T) {
	unwound := false
	w, res := run(t, Config{Seed: 1}, func(ctx context.Context, c client.Conn) error {
		c.Go(ctx, "listener", func(ctx context.Context) error {
			defer func() { unwound = true }()
			sub := c.SessionEvents()
			for {
				if _, err := sub.Next(ctx); err != nil {
					return err
				}
			}
		})
		return c.Sleep(ctx, time.Second)
	})
	if !unwound {
		t.Fatal("the listener did not unwind when its process ended")
	}
	var buf bytes.Buffer
	w.Trace().WriteTo(&buf)
	for _, want := range []string{"starts task c1/listener", "task c1/listener ended with its process"} {
		if !strings.Contains(buf.String(), want) {
			t.Fatalf("trace lacks %q:\n%s", want, buf.String())
		}
	}
	if res.Err != nil {
		t.Fatal(res.Err)
	}
}

func TestDeadlockNamesTheMutexAndItsHolder(t *testing.T) {
	_, res := runAllowingFailure(t, Config{Seed: 1}, func(ctx context.Context, c client.Conn) error {
		mu := c.NewMutex("recipe")
		must(mu.Lock(ctx))
		worker := c.Go(ctx, "listener", func(ctx context.Context) error {
			if err := mu.Lock(ctx); err != nil {
				return err
			}
			mu.Unlock()
			return nil
		})
		return worker.Wait(ctx) // holding the mutex the listener wants
	})
	var d *DeadlockError
	if !errors.As(res.Err, &d) {
		t.Fatalf("run error %v, want a deadlock", res.Err)
	}
	got := d.Error()
	for _, want := range []string{
		`c1: waiting for task c1/listener to return`,
		`c1/listener: waiting for mutex "recipe", held by c1`,
	} {
		if !strings.Contains(got, want) {
			t.Fatalf("deadlock report lacks %q:\n%s", want, got)
		}
	}
	for _, w := range d.Waits {
		if !w.OnItsProcess {
			t.Errorf("%s is not counted as a wait on its own process", w)
		}
	}
}

// A mutex, event or mailbox made without a name is named in a deadlock
// report by where the recipe made it, which the user can find.
func TestDeadlockNamesUnnamedWaitablesByWhereTheyWereMade(t *testing.T) {
	var line int
	_, res := runAllowingFailure(t, Config{Seed: 1}, func(ctx context.Context, c client.Conn) error {
		_, _, line, _ = runtime.Caller(0)
		mu, ev, box := c.NewMutex(""), c.NewEvent(""), client.NewMailbox[int](c, "", 0)
		must(mu.Lock(ctx))
		c.Go(ctx, "locker", func(ctx context.Context) error { return mu.Lock(ctx) })
		c.Go(ctx, "taker", func(ctx context.Context) error { _, err := box.Take(ctx); return err })
		return ev.Wait(ctx)
	})
	var d *DeadlockError
	if !errors.As(res.Err, &d) {
		t.Fatalf("run error %v, want a deadlock", res.Err)
	}
	at := fmt.Sprintf("(made at gotask_test.go:%d)", line+1)
	for _, want := range []string{
		"c1: waiting for an unnamed event " + at + " to be set",
		"c1/locker: waiting for an unnamed mutex " + at + ", held by c1",
		"c1/taker: waiting for a value in an unnamed mailbox " + at,
	} {
		if !strings.Contains(d.Error(), want) {
			t.Errorf("deadlock report lacks %q:\n%s", want, d.Error())
		}
	}
}

func TestEventAndMailboxWakeASelect(t *testing.T) {
	run(t, Config{Seed: 3}, func(ctx context.Context, c client.Conn) error {
		box := client.NewMailbox[zk.Event](c, "events", 2)
		stop := c.NewEvent("stop")
		var got []zk.EventType
		reader := c.Go(ctx, "dispatcher", func(ctx context.Context) error {
			for {
				i, _, err := c.Select(ctx, stop, box)
				if err != nil {
					return err
				}
				if i == 0 {
					return nil
				}
				ev, _ := box.TryTake()
				got = append(got, ev.Type)
			}
		})
		box.Put(zk.Event{Type: zk.EventNodeCreated})
		must(c.Sleep(ctx, time.Millisecond))
		box.Put(zk.Event{Type: zk.EventNodeDeleted})
		must(c.Sleep(ctx, time.Millisecond))
		stop.Set()
		must(reader.Wait(ctx))
		if len(got) != 2 || got[0] != zk.EventNodeCreated || got[1] != zk.EventNodeDeleted {
			t.Errorf("the dispatcher took %v", got)
		}
		return nil
	})
}

func TestMailboxDropsTheOldestWhenFull(t *testing.T) {
	run(t, Config{Seed: 1}, func(ctx context.Context, c client.Conn) error {
		box := client.NewMailbox[int](c, "states", 2)
		for i := 1; i <= 3; i++ {
			box.Put(i)
		}
		if box.Dropped() != 1 || box.Len() != 2 {
			t.Errorf("dropped %d, holds %d; want 1 and 2", box.Dropped(), box.Len())
		}
		if v, _ := box.Take(ctx); v != 2 {
			t.Errorf("took %d first, want 2 (1 was dropped)", v)
		}
		if _, ok := box.Poll(); !ok {
			t.Error("a mailbox holding a value does not poll ready")
		}
		box.TryTake()
		if _, ok := box.Poll(); ok {
			t.Error("an empty mailbox polls ready")
		}
		return nil
	})
}

func TestPauseStopsEveryTaskOfTheProcess(t *testing.T) {
	var ticks []Time
	w, _ := run(t, Config{Seed: 1}, func(ctx context.Context, c client.Conn) error {
		ticker := c.Go(ctx, "ticker", func(ctx context.Context) error {
			for range 4 {
				if err := c.Sleep(ctx, 100*time.Millisecond); err != nil {
					return err
				}
				ticks = append(ticks, Time(c.Now().Sub(client.Epoch)))
			}
			return nil
		})
		c.(client.Pauser).Pause(time.Second)
		must(c.Sleep(ctx, time.Millisecond))
		return ticker.Wait(ctx)
	})
	_ = w
	if len(ticks) != 4 || ticks[0] < Time(time.Second) {
		t.Fatalf("the ticker ticked at %v; want its first tick after the one-second pause", ticks)
	}
}

func TestDeadlockNamesTheEventAndTheMailbox(t *testing.T) {
	_, res := runAllowingFailure(t, Config{Seed: 1}, func(ctx context.Context, c client.Conn) error {
		ready := c.NewEvent("ready")
		box := client.NewMailbox[int](c, "work", 0)
		c.Go(ctx, "worker", func(ctx context.Context) error {
			_, err := box.Take(ctx)
			return err
		})
		_, _, err := c.Select(ctx, ready, box)
		return err
	})
	var d *DeadlockError
	if !errors.As(res.Err, &d) {
		t.Fatalf("run error %v, want a deadlock", res.Err)
	}
	for _, want := range []string{
		`c1: waiting for the first of: event "ready" to be set or a value in mailbox "work"`,
		`c1/worker: waiting for a value in mailbox "work"`,
	} {
		if !strings.Contains(d.Error(), want) {
			t.Fatalf("deadlock report lacks %q:\n%s", want, d.Error())
		}
	}
}
