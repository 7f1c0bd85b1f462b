package recipes_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/trace"
)

// queueHandle is one client's handle on a FIFO or a priority queue.
type queueHandle struct {
	put  func(ctx context.Context, data []byte, priority int) error
	take func(ctx context.Context) ([]byte, error)
}

// queueNew makes a client's handle.
type queueNew = func(conn client.Conn) queueHandle

// queueFIFO adapts a FIFO queue constructor (priorities are ignored).
func queueFIFO(newQ func(client.Conn, string) *recipes.DistributedQueue) queueNew {
	return func(c client.Conn) queueHandle {
		q := newQ(c, "/app/queue")
		return queueHandle{put: func(ctx context.Context, d []byte, _ int) error { return q.Put(ctx, d) }, take: q.Take}
	}
}

var queueRecipe = queueFIFO(recipes.NewQueue)

// queueItem is an item as the tests put it: its producer, its index in
// the producer's puts, its priority.
type queueItem struct{ producer, index, priority int }

func (it queueItem) String() string {
	return fmt.Sprintf("p%d-%d-%02d", it.producer, it.index, it.priority)
}

// queueTaken is one item taken.
type queueTaken struct {
	item     queueItem
	consumer int
	start    time.Duration // when the Take began
}

// queueLog is what a run's producers put and its consumers took.
type queueLog struct {
	want      int // items the consumers stop after
	put       []queueItem
	puts      map[int]time.Duration // (producer*1000+index) → when the Put returned
	producers int                   // producers still running
	takes     []queueTaken
}

func newQueueLog(want, producers int) *queueLog {
	return &queueLog{want: want, producers: producers, puts: map[int]time.Duration{}}
}

// queueProducer puts one item per priority in prios, after waiting delay,
// pausing pace after each put.
func queueProducer(newQ queueNew, id int, prios []int, delay, pace time.Duration, log *queueLog) body {
	return func(ctx context.Context, conn client.Conn) error {
		defer func() { log.producers-- }()
		q := newQ(conn)
		if err := conn.Sleep(ctx, delay); err != nil {
			return err
		}
		for i, p := range prios {
			it := queueItem{id, i, p}
			if err := q.put(ctx, []byte(it.String()), p); err != nil {
				return fmt.Errorf("put %v: %w", it, err)
			}
			log.put = append(log.put, it)
			log.puts[id*1000+i] = conn.Now().Sub(client.Epoch)
			if err := conn.Sleep(ctx, pace); err != nil {
				return err
			}
		}
		return nil
	}
}

// queueConsumer takes items until the consumers together took log.want,
// or until the virtual time limit. With afterPuts it starts once every
// producer is done (the items are present together); pace is a pause
// after each take.
func queueConsumer(newQ queueNew, id int, afterPuts bool, pace, limit time.Duration, log *queueLog) body {
	return func(ctx context.Context, conn client.Conn) error {
		q := newQ(conn)
		for afterPuts && log.producers > 0 {
			if err := conn.Sleep(ctx, 10*time.Millisecond); err != nil {
				return err
			}
		}
		for len(log.takes) < log.want && conn.Now().Sub(client.Epoch) < limit {
			start := conn.Now().Sub(client.Epoch)
			tctx, cancel := conn.WithTimeout(ctx, 500*time.Millisecond)
			data, err := q.take(tctx)
			cancel()
			if errors.Is(err, context.DeadlineExceeded) {
				continue // look at the count again
			}
			if err != nil {
				return fmt.Errorf("take: %w", err)
			}
			var it queueItem
			if _, err := fmt.Sscanf(string(data), "p%d-%d-%d", &it.producer, &it.index, &it.priority); err != nil {
				return fmt.Errorf("took %q: %w", data, err)
			}
			log.takes = append(log.takes, queueTaken{it, id, start})
			if pace > 0 {
				if err := conn.Sleep(ctx, pace); err != nil {
					return err
				}
			}
		}
		return nil
	}
}

// exactlyOnce checks that every item put was taken once and nothing else
// was taken.
func (l *queueLog) exactlyOnce() error {
	seen := map[queueItem]int{}
	for _, t := range l.takes {
		seen[t.item]++
	}
	for _, it := range l.put {
		switch seen[it] {
		case 0:
			return fmt.Errorf("item %v was put and never taken", it)
		case 1:
		default:
			return fmt.Errorf("item %v was taken %d times", it, seen[it])
		}
		delete(seen, it)
	}
	for it := range seen {
		return fmt.Errorf("item %v was taken but never put", it)
	}
	return nil
}

// duplicates lists the items taken more than once.
func (l *queueLog) duplicates() []queueItem {
	seen := map[queueItem]int{}
	var out []queueItem
	for _, t := range l.takes {
		if seen[t.item]++; seen[t.item] == 2 {
			out = append(out, t.item)
		}
	}
	return out
}

// fifo checks that each consumer took the items of each producer (and of
// each priority) in the order they were put.
func (l *queueLog) fifo() error {
	type key struct{ consumer, producer, priority int }
	last := map[key]int{}
	for _, t := range l.takes {
		k := key{t.consumer, t.item.producer, t.item.priority}
		if prev, ok := last[k]; ok && t.item.index <= prev {
			return fmt.Errorf("c%d took %v after item %d of the same producer and priority", t.consumer+1, t.item, prev)
		}
		last[k] = t.item.index
	}
	return nil
}

// queueSeq is n items of priority 0.
func queueSeq(n int) []int { return make([]int, n) }

// Without faults, producers and consumers running together: every item is
// taken exactly once, and each consumer takes each producer's items in the
// order they were put. With one consumer, that is the whole order.
func TestQueueExactlyOnceFIFO(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		for _, consumers := range []int{1, 3} {
			w := newWorld(t, seed, 3)
			log := newQueueLog(30, 3)
			for p := 0; p < 3; p++ {
				w.Spawn("", queueProducer(queueRecipe, p, queueSeq(10), time.Duration(p)*time.Millisecond, time.Millisecond, log))
			}
			for c := 0; c < consumers; c++ {
				w.Spawn("", queueConsumer(queueRecipe, c, false, 0, time.Minute, log))
			}
			run(t, w)
			if err := log.exactlyOnce(); err != nil {
				t.Fatalf("seed %d, %d consumers: %v", seed, consumers, err)
			}
			if err := log.fifo(); err != nil {
				t.Fatalf("seed %d, %d consumers: %v", seed, consumers, err)
			}
		}
	}
}

// queueFaults is a random schedule of crashes, leader crashes, partitions,
// pauses (past the session timeout too), latency spikes and lost replies,
// plus lost replies of the queue's own writes (multis, which the random
// schedule does not pick).
func queueFaults(t *testing.T, w *sim.World, seed uint64, clients int) {
	t.Helper()
	rates := fault.Rates{Crash: 0.2, LeaderCrash: 0.2, Partition: 0.3, Pause: 0.2, Spike: 0.2, LoseReply: 1}
	src := sim.NewSeeded(seed)
	sched := fault.RandomSchedule(src, rates, 3*time.Second, 3, clients)
	for i := 0; i < 4; i++ {
		tr := fault.Trigger{Client: src.Choose(clients), Op: client.OpMulti, Nth: 1 + src.Choose(8)}
		sched = append(sched, fault.Fault{When: &tr, Kind: fault.LoseReply})
	}
	if err := w.Inject(sched); err != nil {
		t.Fatal(err)
	}
}

// Under faults the queue holds: every Put returns nil, every item put is
// taken exactly once (no loss, no duplicate, even when the reply to a
// put's or a take's multi is lost or a session expires), and each consumer
// takes each producer's items in order. No client fails.
func TestQueueUnderFaults(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		w := newWorld(t, seed, 3)
		log := newQueueLog(24, 2)
		for p := 0; p < 2; p++ {
			w.Spawn("", queueProducer(queueRecipe, p, queueSeq(12), 0, 150*time.Millisecond, log))
		}
		for c := 0; c < 3; c++ {
			w.Spawn("", queueConsumer(queueRecipe, c, false, 100*time.Millisecond, 5*time.Minute, log))
		}
		queueFaults(t, w, seed, 5)
		run(t, w)
		if len(log.put) != 24 {
			t.Fatalf("seed %d: %d puts returned, want 24", seed, len(log.put))
		}
		if err := log.exactlyOnce(); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, traceTail(w, 40))
		}
		if err := log.fifo(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}

// queueApplied counts the writes of kind op under /app/queue/ that server
// s1 applied successfully.
func queueApplied(w *sim.World, op client.Op) int {
	n := 0
	for _, r := range w.Trace().Records() {
		if r.Kind == trace.KApply && r.From == trace.ServerActor(0) && r.Op == op && r.Code == 0 &&
			strings.HasPrefix(r.Path, "/app/queue/") {
			n++
		}
	}
	return n
}

// queueFaultsStruck counts the faults that struck.
func queueFaultsStruck(w *sim.World) int { return count(w, trace.KFault) }

// A lost reply to the multi that puts an item: the producer reads its
// receipt, sees the put was applied, and does not put it again. The
// blind-put variant creates the item again: it is taken twice.
func TestQueueLostPutReply(t *testing.T) {
	scenario := func(newQ queueNew, fault string) (*queueLog, *sim.World) {
		w := newWorld(t, 1, 3)
		log := newQueueLog(4, 1)
		w.Spawn("", queueProducer(newQ, 0, queueSeq(3), 0, 0, log))
		w.Spawn("", queueConsumer(newQ, 0, false, 0, 5*time.Second, log))
		inject(t, w, fault)
		run(t, w)
		if queueFaultsStruck(w) != 1 {
			t.Fatalf("%q never struck", fault)
		}
		return log, w
	}
	// c1 puts its second item.
	log, _ := scenario(queueRecipe, "when c1 multi#2 applied: lose-reply")
	if err := log.exactlyOnce(); err != nil {
		t.Fatalf("recipe: %v", err)
	}
	// The blind variant's creates: /app, /app/queue, /app/queue/receipts,
	// its receipt, then the items: create#6 is the second item.
	log, w := scenario(queueFIFO(recipes.NewBlindPutQueue), "when c1 create#6 applied: lose-reply")
	if d := log.duplicates(); len(d) != 1 || d[0] != (queueItem{0, 1, 0}) || len(log.takes) != 4 {
		t.Fatalf("blind put: duplicates %v in %d takes, want p0-1 twice in 4", d, len(log.takes))
	}
	if n := queueApplied(w, client.OpCreate); n != 4+3 {
		t.Fatalf("blind put: %d creates applied under /app/queue/, want 4 items, the receipts node and 2 receipts", n)
	}
}

// A lost reply to the multi that takes an item: the consumer reads its
// receipt, sees it took the item, and returns it.
//
// Finding (the recipe as its text has it, the queue-plain-delete variant):
// when the reply to a take's plain delete is lost, the retried delete
// answers NoNode, and the consumer cannot tell its own delete from
// another consumer's. It assumes another's: here, with one consumer, the
// first item is lost. That is what the recipe's text gives under a lost
// delete reply; our queue's receipt closes it.
func TestQueueLostTakeReply(t *testing.T) {
	scenario := func(newQ queueNew, fault string) *queueLog {
		w := newWorld(t, 1, 3)
		log := newQueueLog(3, 1)
		w.Spawn("", queueProducer(newQ, 0, queueSeq(3), 0, 0, log))
		w.Spawn("", queueConsumer(newQ, 0, false, 0, 5*time.Second, log))
		inject(t, w, fault)
		run(t, w)
		if queueFaultsStruck(w) != 1 {
			t.Fatalf("%q never struck", fault)
		}
		return log
	}
	log := scenario(queueRecipe, "when c2 multi#1 applied: lose-reply")
	if err := log.exactlyOnce(); err != nil {
		t.Fatalf("recipe: %v", err)
	}
	if err := log.fifo(); err != nil {
		t.Fatalf("recipe: %v", err)
	}
	log = scenario(queueFIFO(recipes.NewPlainDeleteQueue), "when c2 delete#1 applied: lose-reply")
	var got []queueItem
	for _, tk := range log.takes {
		got = append(got, tk.item)
	}
	if want := []queueItem{{0, 1, 0}, {0, 2, 0}}; !slices.Equal(got, want) {
		t.Fatalf("plain delete took %v, want %v (the first item lost with its delete's reply)", got, want)
	}
	t.Logf("finding: with a plain delete, a lost delete reply lost item p0-0 (taken: %v)", got)
}

// A consumer that does not check its delete: consumers that read the same
// item all process it.
func TestQueueUncheckedDeleteDuplicates(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		w := newWorld(t, seed, 3)
		log := newQueueLog(10, 1)
		newQ := queueFIFO(recipes.NewUncheckedQueue)
		w.Spawn("", queueProducer(newQ, 0, queueSeq(10), 0, 0, log))
		for c := 0; c < 3; c++ {
			w.Spawn("", queueConsumer(newQ, c, true, 0, 5*time.Second, log))
		}
		run(t, w)
		if d := log.duplicates(); len(d) > 0 {
			t.Logf("seed %d: items taken twice: %v", seed, d)
			return // caught
		}
	}
	t.Fatal("the unchecked consumer never took an item twice in 10 seeds")
}

// The recipe lists the queue node once for a backlog; the relist variant
// lists it once per item.
func TestQueueRelistTraffic(t *testing.T) {
	listings := func(newQ queueNew) int {
		w := newWorld(t, 1, 3)
		log := newQueueLog(20, 1)
		w.Spawn("", queueProducer(newQ, 0, queueSeq(20), 0, 0, log))
		w.Spawn("", queueConsumer(newQ, 0, true, 0, 5*time.Second, log))
		run(t, w)
		if err := log.exactlyOnce(); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range w.Trace().Records() {
			if r.Kind == trace.KSend && r.Op == client.OpGetChildren {
				n++
			}
		}
		return n
	}
	recipe, relist := listings(queueRecipe), listings(queueFIFO(recipes.NewRelistQueue))
	t.Logf("getChildren for 20 items: recipe %d, relist %d", recipe, relist)
	if recipe != 1 || relist != 20 {
		t.Fatalf("getChildren for a backlog of 20: recipe %d (want 1), relist %d (want 20)", recipe, relist)
	}
}

// Every teaching variant of the queues is registered with its lesson.
func TestQueueVariantsRegistered(t *testing.T) {
	want := map[string]string{"queue-unchecked-delete": "safety", "queue-plain-delete": "safety",
		"queue-blind-put": "safety", "queue-relist": "herd", "priority-queue-stale-list": "safety", "priority-queue-trusts-watch": "safety"}
	for _, v := range recipes.Variants() {
		if f, ok := want[v.Name]; ok {
			if v.Fails != f || v.Lesson == "" || !strings.HasPrefix(v.Name, v.Kind+"-") {
				t.Errorf("variant %s: kind %q fails %q (want %q), lesson %q", v.Name, v.Kind, v.Fails, f, v.Lesson)
			}
			delete(want, v.Name)
		}
	}
	if len(want) > 0 {
		t.Fatalf("not registered: %v", want)
	}
}

// Close removes the handle's receipt, and the handle still works after.
func TestQueueClose(t *testing.T) {
	w := newWorld(t, 1, 3)
	w.Spawn("", func(ctx context.Context, conn client.Conn) error {
		q := recipes.NewQueue(conn, "/app/queue")
		receipts := func() int {
			kids, _, err := conn.Children(ctx, "/app/queue/receipts")
			if err != nil {
				t.Error(err)
			}
			return len(kids)
		}
		for round := 0; round < 2; round++ {
			if err := q.Put(ctx, []byte("x")); err != nil {
				return err
			}
			if data, err := q.Take(ctx); err != nil || string(data) != "x" {
				return fmt.Errorf("take: %q %v", data, err)
			}
			if n := receipts(); n != 1 {
				return fmt.Errorf("round %d: %d receipts before Close, want 1", round, n)
			}
			if err := q.Close(ctx); err != nil {
				return err
			}
			if n := receipts(); n != 0 {
				return fmt.Errorf("round %d: %d receipts after Close, want 0", round, n)
			}
		}
		return nil
	})
	run(t, w)
}
