package recipes_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/recipes"
)

// counterPath is the tests' counter.
const counterPath = "/app/counter"

// counterRun runs n clients, each adding 1, then 10·(its number+1), rounds
// times over, with the counter newCounter makes, under the faults in
// schedule; it returns the final value (read after every client is done),
// the sum of the increments that returned, and the values they returned.
func counterRun(t *testing.T, seed uint64, n, rounds int, schedule string,
	newCounter func(conn client.Conn, path, name string) recipes.Counter) (final, sum int64, values []int64) {
	t.Helper()
	w := newWorld(t, seed, 3)
	done := 0
	for i := 0; i < n; i++ {
		w.Spawn("", func(ctx context.Context, conn client.Conn) error {
			c := newCounter(conn, counterPath, fmt.Sprintf("c%d", i+1))
			for k := 0; k < rounds; k++ {
				delta := int64(1)
				if k%2 == 1 {
					delta = int64(10 * (i + 1))
				}
				for {
					v, err := c.Add(ctx, delta)
					if faulty(err) {
						continue // unknown: the recipe never returns it while ctx lives
					}
					if err != nil {
						return fmt.Errorf("add %d: %w", delta, err)
					}
					sum += delta
					values = append(values, v)
					break
				}
				if err := conn.Sleep(ctx, time.Millisecond); err != nil {
					return err
				}
			}
			done++
			if done < n {
				return nil
			}
			for {
				v, err := c.Get(ctx)
				if faulty(err) {
					continue
				}
				final = v
				return err
			}
		})
	}
	if schedule != "" {
		inject(t, w, schedule)
	}
	run(t, w)
	return final, sum, values
}

func correctCounter(conn client.Conn, path, name string) recipes.Counter {
	return recipes.NewCounter(conn, path, name)
}

// Without faults the counter adds every increment once: the final value is
// their sum, and no two increments made the same value.
func TestCounterAddsEachIncrementOnce(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		final, sum, values := counterRun(t, seed, 4, 6, "", correctCounter)
		if final != sum {
			t.Fatalf("seed %d: final value %d, want the sum of the increments %d", seed, final, sum)
		}
		seen := map[int64]bool{}
		for _, v := range values {
			if seen[v] {
				t.Fatalf("seed %d: two increments returned %d: %v", seed, v, values)
			}
			seen[v] = true
		}
	}
}

// A lost setData() (or create()) reply: the recipe reads its own entry and
// does not add again, nor lose it; counter-retry-blind adds it twice.
func TestCounterLostReplyIsAppliedOnce(t *testing.T) {
	doubled := 0
	for seed := uint64(1); seed <= 10; seed++ {
		for _, sched := range []string{
			"when c1 create#2 applied: lose-reply",
			"when c1 setData#1 applied: lose-reply",
			"when c2 setData#2 applied: lose-reply; when c3 setData#1 applied: lose-reply",
		} {
			final, sum, _ := counterRun(t, seed, 4, 4, sched, correctCounter)
			if final != sum {
				t.Fatalf("seed %d, %s: final value %d, want %d", seed, sched, final, sum)
			}
			final, sum, _ = counterRun(t, seed, 4, 4, sched, func(conn client.Conn, path, name string) recipes.Counter {
				return recipes.NewRetryBlindCounter(conn, path, name)
			})
			if final > sum {
				doubled++
			}
		}
	}
	t.Logf("counter-retry-blind added an increment twice in %d of 30 runs", doubled)
	if doubled == 0 {
		t.Fatal("counter-retry-blind never added an increment twice after a lost reply")
	}
}

// counter-blind-set loses increments with no fault at all.
func TestCounterBlindSetLosesIncrements(t *testing.T) {
	lost := 0
	for seed := uint64(1); seed <= 10; seed++ {
		final, sum, _ := counterRun(t, seed, 4, 4, "", func(conn client.Conn, path, name string) recipes.Counter {
			return recipes.NewBlindSetCounter(conn, path, name)
		})
		if final < sum {
			lost++
		}
	}
	t.Logf("counter-blind-set lost an increment in %d of 10 runs", lost)
	if lost == 0 {
		t.Fatal("counter-blind-set never lost an increment")
	}
}

// A lost setData() request: counter-idempotent-by-value takes another
// client's write of the same value for its own, and loses an increment; the
// recipe does not.
func TestCounterIdempotentByValueLosesIncrements(t *testing.T) {
	lost := 0
	for seed := uint64(1); seed <= 20; seed++ {
		for k := 1; k <= 3; k++ {
			sched := fmt.Sprintf("when c1 setData#%d received: lose-request", k)
			final, sum, _ := counterRun(t, seed, 4, 4, sched, correctCounter)
			if final != sum {
				t.Fatalf("seed %d, %s: the recipe's final value %d, want %d", seed, sched, final, sum)
			}
			final, sum, _ = counterRun(t, seed, 4, 4, sched, func(conn client.Conn, path, name string) recipes.Counter {
				return recipes.NewIdempotentByValueCounter(conn, path, name)
			})
			if final < sum {
				lost++
			}
		}
	}
	t.Logf("lost an increment in %d of 60 runs", lost)
	if lost == 0 {
		t.Fatal("counter-idempotent-by-value never lost an increment")
	}
}

// A writer made again under its name (a process restarted) takes its
// sequence number up from the node: after a lost request it does not take
// the entry its earlier instance left for its own increment, nor after a
// lost reply an increment of its own for an earlier one.
func TestCounterWriterMadeAgain(t *testing.T) {
	for _, sched := range []string{
		"when c1 setData#2 received: lose-request; when c1 setData#4 received: lose-request",
		"when c1 setData#2 applied: lose-reply; when c1 setData#4 applied: lose-reply",
	} {
		for seed := uint64(1); seed <= 10; seed++ {
			w := newWorld(t, seed, 3)
			var final int64
			w.Spawn("", func(ctx context.Context, conn client.Conn) error {
				for k := 0; k < 6; k++ {
					// A new instance for each increment.
					if _, err := recipes.NewCounter(conn, counterPath, "c1").Add(ctx, 1); err != nil {
						return err
					}
				}
				v, err := recipes.NewCounter(conn, counterPath, "c1").Get(ctx)
				final = v
				return err
			})
			inject(t, w, sched)
			run(t, w)
			if final != 6 {
				t.Fatalf("seed %d, %s: final value %d, want 6", seed, sched, final)
			}
		}
	}
}
