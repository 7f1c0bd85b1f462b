package recipes_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/recipes"
)

// priorityQueuePQ adapts a priority queue constructor.
func priorityQueuePQ(newQ func(client.Conn, string) *recipes.DistributedPriorityQueue) queueNew {
	return func(c client.Conn) queueHandle {
		q := newQ(c, "/app/pq")
		return queueHandle{put: q.Put, take: q.Take}
	}
}

var priorityQueueRecipe = priorityQueuePQ(recipes.NewPriorityQueue)

// priorityQueuePrios draws n priorities from a few levels.
func priorityQueuePrios(r *rand.Rand, n int) []int {
	levels := []int{0, 1, 7, 50, 99}
	out := make([]int, n)
	for i := range out {
		out[i] = levels[r.IntN(len(levels))]
	}
	return out
}

// urgentFirst checks that each consumer took items of non-decreasing
// priority (the items were present together, none put meanwhile).
func (l *queueLog) urgentFirst() error {
	last := map[int]int{}
	for _, t := range l.takes {
		if p, ok := last[t.consumer]; ok && t.item.priority < p {
			return fmt.Errorf("c%d took %v after an item of priority %d", t.consumer+1, t.item, p)
		}
		last[t.consumer] = t.item.priority
	}
	return nil
}

// Without faults, with the items present together: every item is taken
// exactly once, each consumer takes them most urgent first, and the items
// of one producer and one priority in the order they were put. With one
// consumer, that is the whole order.
func TestPriorityQueueOrder(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		for _, consumers := range []int{1, 3} {
			r := rand.New(rand.NewPCG(seed, 1))
			w := newWorld(t, seed, 3)
			log := newQueueLog(24, 2)
			for p := 0; p < 2; p++ {
				w.Spawn("", queueProducer(priorityQueueRecipe, p, priorityQueuePrios(r, 12), 0, 0, log))
			}
			for c := 0; c < consumers; c++ {
				w.Spawn("", queueConsumer(priorityQueueRecipe, c, true, 0, time.Minute, log))
			}
			run(t, w)
			for _, check := range []func() error{log.exactlyOnce, log.urgentFirst, log.fifo} {
				if err := check(); err != nil {
					t.Fatalf("seed %d, %d consumers: %v", seed, consumers, err)
				}
			}
		}
	}
}

// Under faults (as for the FIFO queue), items put first and taken once
// every producer is done: every item is taken exactly once, and each
// consumer takes them most urgent first and in put order within a
// producer and a priority.
func TestPriorityQueueUnderFaults(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		r := rand.New(rand.NewPCG(seed, 2))
		w := newWorld(t, seed, 3)
		log := newQueueLog(20, 2)
		for p := 0; p < 2; p++ {
			w.Spawn("", queueProducer(priorityQueueRecipe, p, priorityQueuePrios(r, 10), 0, 100*time.Millisecond, log))
		}
		for c := 0; c < 2; c++ {
			w.Spawn("", queueConsumer(priorityQueueRecipe, c, true, 100*time.Millisecond, 5*time.Minute, log))
		}
		queueFaults(t, w, seed, 4)
		run(t, w)
		if len(log.put) != 20 {
			t.Fatalf("seed %d: %d puts returned, want 20", seed, len(log.put))
		}
		for _, check := range []func() error{log.exactlyOnce, log.urgentFirst, log.fifo} {
			if err := check(); err != nil {
				t.Fatalf("seed %d: %v\n%s", seed, err, traceTail(w, 40))
			}
		}
	}
}

// An urgent item put while a consumer works through a backlog is served
// next: c1 puts six items of priority 50; c2 takes one every 20ms from
// 50ms on; c3 puts one of priority 1 at 100ms. The recipe's next take
// after it (5ms later or more) is the urgent item. The stale-list variant
// serves the rest of its old list first.
func TestPriorityQueueServesUrgentFirst(t *testing.T) {
	// late lists the takes of less urgent items that began 5ms or more after
	// the urgent item was put, before it was taken.
	late := func(newQ queueNew, seed uint64) []queueTaken {
		w := newWorld(t, seed, 3)
		log := newQueueLog(7, 2)
		w.Spawn("", queueProducer(newQ, 0, []int{50, 50, 50, 50, 50, 50}, 0, 0, log))
		w.Spawn("", func(ctx context.Context, conn client.Conn) error {
			if err := conn.Sleep(ctx, 50*time.Millisecond); err != nil {
				return err
			}
			return queueConsumer(newQ, 0, false, 20*time.Millisecond, time.Minute, log)(ctx, conn)
		})
		w.Spawn("", queueProducer(newQ, 1, []int{1}, 100*time.Millisecond, 0, log))
		run(t, w)
		if err := log.exactlyOnce(); err != nil {
			t.Fatal(err)
		}
		urgent := log.puts[1000]
		var out []queueTaken
		for _, tk := range log.takes {
			if tk.item.priority == 1 {
				break
			}
			if tk.start >= urgent+5*time.Millisecond {
				out = append(out, tk)
			}
		}
		return out
	}
	for seed := uint64(1); seed <= 5; seed++ {
		if l := late(priorityQueueRecipe, seed); len(l) > 0 {
			t.Fatalf("seed %d: the recipe served %v after the urgent item was put", seed, l)
		}
		if l := late(priorityQueuePQ(recipes.NewStaleListPriorityQueue), seed); len(l) == 0 {
			t.Fatalf("seed %d: the stale-list variant served the urgent item as soon as the recipe", seed)
		}
	}
}

// Priorities go from 0 to 99.
func TestPriorityQueueRange(t *testing.T) {
	q := recipes.NewPriorityQueue(nil, "/app/pq")
	for _, p := range []int{-1, 100} {
		if err := q.Put(context.Background(), nil, p); !errors.Is(err, recipes.ErrPriority) {
			t.Fatalf("Put with priority %d: %v, want ErrPriority", p, err)
		}
	}
}
