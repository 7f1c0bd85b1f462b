package models

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"
)

// The queue histories below are on /queue; times are virtual ns, clients
// 0-based.

// qPut is client c putting data with priority, called at call, returned at
// ret with res.
func qPut(c int, data string, priority int, call, ret int64, res Result) Operation {
	o := op(c, Put, "/queue", call, ret, res)
	o.Data, o.Priority = data, priority
	return o
}

// qTake is client c taking data, called at call, returned at ret with res.
func qTake(c int, data string, call, ret int64, res Result) Operation {
	o := op(c, Take, "/queue", call, ret, res)
	o.OutData = data
	return o
}

func TestFIFOModel(t *testing.T) {
	runModelCases(t, FIFOModel, []modelCase{
		{"an empty history", nil, porcupine.Ok},
		{"items taken in the order they were put", []Operation{
			qPut(0, "a", 0, 0, 10, OK), qPut(0, "b", 0, 20, 30, OK),
			qTake(1, "a", 40, 50, OK), qTake(1, "b", 60, 70, OK)}, porcupine.Ok},
		{"concurrent puts taken in either order", []Operation{
			qPut(0, "a", 0, 0, 20, OK), qPut(1, "b", 0, 5, 15, OK),
			qTake(2, "b", 30, 40, OK), qTake(2, "a", 50, 60, OK)}, porcupine.Ok},
		{"concurrent takes of two items", []Operation{
			qPut(0, "a", 0, 0, 10, OK), qPut(0, "b", 0, 20, 30, OK),
			qTake(1, "b", 40, 60, OK), qTake(2, "a", 45, 55, OK)}, porcupine.Ok},
		{"a take concurrent with its put", []Operation{
			qPut(0, "a", 0, 0, 20, OK), qTake(1, "a", 10, 30, OK)}, porcupine.Ok},
		{"a take waiting on an empty queue until a put", []Operation{
			qTake(1, "a", 0, 50, OK), qPut(0, "a", 0, 20, 30, OK)}, porcupine.Ok},
		{"priorities mean nothing to a FIFO queue", []Operation{
			qPut(0, "a", 5, 0, 10, OK), qPut(0, "b", 1, 20, 30, OK), qTake(1, "a", 40, 50, OK)}, porcupine.Ok},
		{"a take returning an item behind the head", []Operation{
			qPut(0, "a", 0, 0, 10, OK), qPut(0, "b", 0, 20, 30, OK), qTake(1, "b", 40, 50, OK)}, porcupine.Illegal},
		{"an item taken twice", []Operation{
			qPut(0, "a", 0, 0, 10, OK), qTake(1, "a", 20, 30, OK), qTake(2, "a", 40, 50, OK)}, porcupine.Illegal},
		{"an item taken twice at once", []Operation{
			qPut(0, "a", 0, 0, 10, OK), qTake(1, "a", 20, 30, OK), qTake(2, "a", 20, 30, OK)}, porcupine.Illegal},
		{"an item never put", []Operation{qTake(1, "a", 0, 10, OK)}, porcupine.Illegal},
		{"an item taken before it was put", []Operation{
			qTake(1, "a", 0, 10, OK), qPut(0, "a", 0, 20, 30, OK)}, porcupine.Illegal},
		{"a put of unknown outcome that happened", []Operation{
			qPut(0, "a", 0, 0, never, Unknown), qTake(1, "a", 10, 20, OK)}, porcupine.Ok},
		{"a put of unknown outcome that did not happen", []Operation{
			qPut(0, "a", 0, 0, never, Unknown), qPut(0, "b", 0, 10, 20, OK), qTake(1, "b", 30, 40, OK)}, porcupine.Ok},
		{"a put of unknown outcome recorded with its error's time", []Operation{
			qPut(0, "a", 0, 0, 5, Unknown), qPut(0, "b", 0, 10, 20, OK), qTake(1, "b", 30, 40, OK)}, porcupine.Ok},
		{"a put of unknown outcome taken before its call", []Operation{
			qTake(1, "a", 0, 10, OK), qPut(0, "a", 0, 20, never, Unknown)}, porcupine.Illegal},
		{"a put still pending, its item taken", []Operation{
			qPut(0, "a", 0, 0, 100, Pending), qTake(1, "a", 10, 20, OK)}, porcupine.Ok},
		{"a put still pending, its item not taken", []Operation{
			qPut(0, "a", 0, 0, 100, Pending), qPut(1, "b", 0, 10, 20, OK), qTake(2, "b", 30, 40, OK)}, porcupine.Ok},
		{"a take of unknown outcome that removed the head", []Operation{
			qPut(0, "a", 0, 0, 10, OK), qPut(0, "b", 0, 20, 30, OK),
			qTake(1, "", 40, never, Unknown), qTake(2, "b", 50, 60, OK)}, porcupine.Ok},
		{"a take of unknown outcome that removed nothing", []Operation{
			qPut(0, "a", 0, 0, 10, OK), qTake(1, "", 20, never, Unknown), qTake(2, "a", 30, 40, OK)}, porcupine.Ok},
		{"a take of unknown outcome on an empty queue", []Operation{
			qTake(1, "", 0, never, Unknown), qPut(0, "a", 0, 10, 20, OK), qTake(2, "a", 30, 40, OK)}, porcupine.Ok},
		{"a take of unknown outcome that removed the item holding others back", []Operation{
			qPut(0, "m", 0, 0, 30, OK), qPut(1, "h", 0, 5, 10, OK), qPut(1, "x", 0, 20, 25, OK),
			qTake(2, "", 31, never, Unknown), qTake(3, "x", 40, 50, OK), qTake(3, "m", 60, 70, OK)}, porcupine.Ok},
		{"a take of unknown outcome cannot excuse a skipped head", []Operation{
			qPut(0, "a", 0, 0, 10, OK), qPut(0, "b", 0, 20, 30, OK),
			qTake(2, "b", 50, 60, OK), qTake(1, "", 70, never, Unknown)}, porcupine.Illegal},
		{"a take blocked at the end on an empty queue", []Operation{
			qPut(0, "a", 0, 0, 10, OK), qTake(1, "a", 20, 30, OK), qTake(1, "", 40, 100, Pending)}, porcupine.Ok},
		{"a take blocked at the end since before the last put", []Operation{
			qTake(1, "", 0, 100, Pending), qPut(0, "a", 0, 10, 20, OK), qTake(2, "a", 30, 40, OK)}, porcupine.Ok},
		{"an item put again while queued", []Operation{
			qPut(0, "a", 0, 0, 10, OK), qPut(1, "a", 0, 20, 30, OK)}, porcupine.Illegal},
		{"an item put again after it was taken", []Operation{
			qPut(0, "a", 0, 0, 10, OK), qTake(1, "a", 20, 30, OK), qPut(0, "a", 0, 40, 50, OK), qTake(1, "a", 60, 70, OK)}, porcupine.Ok},
		{"a take the queue cannot answer", []Operation{
			qPut(0, "a", 0, 0, 10, OK), qTake(1, "a", 20, 30, NoNode)}, porcupine.Illegal},
		{"queues are independent", []Operation{
			onPath("/q1", qPut(0, "a", 0, 0, 10, OK)), onPath("/q2", qPut(0, "b", 0, 20, 30, OK)),
			onPath("/q2", qTake(1, "b", 40, 50, OK)), onPath("/q1", qTake(1, "a", 60, 70, OK))}, porcupine.Ok},
	})
}

func TestPriorityQueueModel(t *testing.T) {
	runModelCases(t, PriorityQueueModel, []modelCase{
		{"an empty history", nil, porcupine.Ok},
		{"the lowest priority first", []Operation{
			qPut(0, "a", 2, 0, 10, OK), qPut(0, "b", 1, 20, 30, OK), qPut(0, "c", 3, 40, 50, OK),
			qTake(1, "b", 60, 70, OK), qTake(1, "a", 80, 90, OK), qTake(1, "c", 100, 110, OK)}, porcupine.Ok},
		{"negative priorities before zero", []Operation{
			qPut(0, "a", 0, 0, 10, OK), qPut(0, "b", -1, 20, 30, OK), qTake(1, "b", 40, 50, OK)}, porcupine.Ok},
		{"the oldest first among equals", []Operation{
			qPut(0, "a", 1, 0, 10, OK), qPut(0, "b", 1, 20, 30, OK), qPut(0, "c", 2, 25, 35, OK),
			qTake(1, "a", 40, 50, OK), qTake(1, "b", 60, 70, OK)}, porcupine.Ok},
		{"concurrent puts of equal priority taken in either order", []Operation{
			qPut(0, "a", 1, 0, 20, OK), qPut(1, "b", 1, 5, 15, OK),
			qTake(2, "b", 30, 40, OK), qTake(2, "a", 50, 60, OK)}, porcupine.Ok},
		{"a take concurrent with a lower-priority put may precede it", []Operation{
			qPut(0, "a", 2, 0, 10, OK), qTake(1, "a", 20, 40, OK), qPut(0, "b", 1, 30, 50, OK)}, porcupine.Ok},
		{"a priority inversion", []Operation{
			qPut(0, "a", 2, 0, 10, OK), qPut(0, "b", 1, 20, 30, OK), qTake(1, "a", 40, 50, OK)}, porcupine.Illegal},
		{"a newer item first among equals", []Operation{
			qPut(0, "a", 1, 0, 10, OK), qPut(0, "b", 1, 20, 30, OK), qTake(1, "b", 40, 50, OK)}, porcupine.Illegal},
		{"an item taken twice", []Operation{
			qPut(0, "a", 1, 0, 10, OK), qTake(1, "a", 20, 30, OK), qTake(2, "a", 40, 50, OK)}, porcupine.Illegal},
		{"a lower-priority put of unknown outcome that did not happen", []Operation{
			qPut(0, "a", 2, 0, 10, OK), qPut(1, "b", 1, 5, never, Unknown), qTake(2, "a", 20, 30, OK)}, porcupine.Ok},
		{"a lower-priority put of unknown outcome that happened", []Operation{
			qPut(0, "a", 2, 0, 10, OK), qPut(1, "b", 1, 5, never, Unknown),
			qTake(2, "b", 20, 30, OK), qTake(2, "a", 40, 50, OK)}, porcupine.Ok},
		{"a take of unknown outcome that removed the lowest", []Operation{
			qPut(0, "a", 2, 0, 10, OK), qPut(0, "b", 1, 20, 30, OK),
			qTake(1, "", 40, never, Unknown), qTake(2, "a", 50, 60, OK)}, porcupine.Ok},
		{"a take blocked at the end", []Operation{
			qPut(0, "a", 2, 0, 10, OK), qTake(1, "", 20, 100, Pending), qTake(2, "a", 30, 40, OK)}, porcupine.Ok},
	})
}

func TestQueueViolationNamesTheStuckOperation(t *testing.T) {
	behind := qTake(1, "b", 40, 50, OK)
	twice := qTake(2, "a", 40, 50, OK)
	inverted := qTake(1, "a", 40, 50, OK)
	runStuckCases(t, []stuckCase{
		{"an item behind the head", FIFOModel, []Operation{
			qPut(0, "a", 0, 0, 10, OK), qPut(0, "b", 0, 20, 30, OK), behind}, behind},
		{"an item taken twice", FIFOModel, []Operation{
			qPut(0, "a", 0, 0, 10, OK), qTake(1, "a", 20, 30, OK), twice}, twice},
		{"a priority inversion", PriorityQueueModel, []Operation{
			qPut(0, "a", 2, 0, 10, OK), qPut(0, "b", 1, 20, 30, OK), inverted}, inverted},
	})
}

func TestQueueItems(t *testing.T) {
	const ms = int64(1e6)
	var q queueItems
	for _, it := range []queued{
		{data: "c", priority: 3, call: 30 * ms, ret: 40 * ms}, {data: "a", priority: 1, call: 10 * ms, ret: 20 * ms},
		{data: "b", call: 10 * ms, ret: never}, {data: "", priority: -4, call: 0, ret: 5 * ms},
	} {
		q = q.add(it)
	}
	want := `"" (put 0.000000s–0.005000s, priority -4), "a" (put 0.010000s–0.020000s, priority 1), ` +
		`"b" (put 0.010000s–unknown), "c" (put 0.030000s–0.040000s, priority 3)`
	if got := q.String(); got != want {
		t.Fatalf("queue %s, want %s", got, want)
	}
	same := queueItems("").add(queued{data: "b", call: 10 * ms, ret: never}).add(queued{data: "c", priority: 3, call: 30 * ms, ret: 40 * ms}).
		add(queued{data: "", priority: -4, call: 0, ret: 5 * ms}).add(queued{data: "a", priority: 1, call: 10 * ms, ret: 20 * ms})
	if same != q {
		t.Fatal("the same items added in another order make another state")
	}
	from, to, ok := q.find("b")
	if got, want := (q[:from] + q[to:]).String(), `"" (put 0.000000s–0.005000s, priority -4), "a" (put 0.010000s–0.020000s, priority 1), "c" (put 0.030000s–0.040000s, priority 3)`; !ok || got != want {
		t.Fatalf("without b: %s, want %s", got, want)
	}
	if _, _, ok := q.find("d"); ok {
		t.Fatal("found d, never added")
	}
	if queueItems("").String() != "empty" {
		t.Fatalf("an empty queue is %q", queueItems(""))
	}
}

func TestQueueDue(t *testing.T) {
	// A take nobody saw removes, of the items nothing outranks, the one
	// whose put returned first.
	q := queueItems("").add(queued{data: "long", call: 0, ret: 30}).add(queued{data: "short", call: 5, ret: 10}).
		add(queued{data: "late", call: 20, ret: 25}).add(queued{data: "low", priority: 1, call: 0, ret: 1})
	from, _, ok := q.due()
	if it, _ := q.item(from); !ok || it.data != "short" {
		t.Fatalf("due %q, want short", it.data)
	}
	if _, _, ok := queueItems("").due(); ok {
		t.Fatal("an empty queue has an item due")
	}
}

func TestQueueModelsRegistered(t *testing.T) {
	assertRegistered(t, FIFOModel, PriorityQueueModel)
}

// queueHistory is a history of a queue that behaved: producers each put
// perProducer items while consumers take them, every operation taking
// effect at a distinct instant inside its interval, and the intervals of
// different clients overlapping by up to overlap ns. byPriority gives the
// items priorities and takes the lowest first. The same seed gives the
// same history.
func queueHistory(seed uint64, producers, perProducer, consumers int, byPriority bool, overlap int64) []Operation {
	r := rand.New(rand.NewPCG(seed, 1))
	type item struct {
		data     string
		priority int
	}
	var queue []item
	put := make([]int, producers)
	var ops []Operation
	var at []int64 // each op's instant of effect
	for n := 0; n < 2*producers*perProducer; n++ {
		var ready []int // clients that can act: producers with items left, consumers if the queue has one
		for p := range producers {
			if put[p] < perProducer {
				ready = append(ready, p)
			}
		}
		if len(queue) > 0 {
			for c := range consumers {
				ready = append(ready, producers+c)
			}
		}
		c := ready[r.IntN(len(ready))]
		if c < producers {
			it := item{fmt.Sprintf("p%d-%d", c, put[c]), 0}
			if byPriority {
				it.priority = r.IntN(4)
			}
			put[c]++
			queue = append(queue, it)
			ops = append(ops, qPut(c, it.data, it.priority, 0, 0, OK))
		} else {
			head := 0
			for i, it := range queue {
				if byPriority && it.priority < queue[head].priority {
					head = i
				}
			}
			ops = append(ops, qTake(c, queue[head].data, 0, 0, OK))
			queue = append(queue[:head], queue[head+1:]...)
		}
		at = append(at, int64(n+1)*10)
	}
	// Give each client's operations intervals around their instants, in
	// the client's order.
	last := map[int]int{} // client → index of its previous op
	next := make([]int64, len(ops))
	for i := len(ops) - 1; i >= 0; i-- {
		next[i] = 1 << 62
		for j := i + 1; j < len(ops); j++ {
			if ops[j].Client == ops[i].Client {
				next[i] = at[j]
				break
			}
		}
	}
	for i := range ops {
		call := at[i] - r.Int64N(overlap)
		if j, ok := last[ops[i].Client]; ok && call <= ops[j].Return {
			call = ops[j].Return + 1
		}
		ops[i].Call, ops[i].Return = call, min(at[i]+r.Int64N(overlap), next[i]-1)
		last[ops[i].Client] = i
	}
	return ops
}

// TestQueueHistoryOfManyClients checks a busy history of 5 producers of 20
// items each and 5 consumers, and the same with one take's item swapped
// for another's.
func TestQueueHistoryOfManyClients(t *testing.T) {
	for _, m := range []Model{FIFOModel, PriorityQueueModel} {
		for seed := uint64(1); seed <= 5; seed++ {
			ops := queueHistory(seed, 5, 20, 5, m.Name == PriorityQueueModel.Name, 150)
			if got, _ := Linearize(m, ops); got != porcupine.Ok {
				t.Fatalf("%s, seed %d: %s, want ok", m.Name, seed, got)
			}
			// Swap the items of the first take and one well after it.
			var takes []int
			for i, o := range ops {
				if o.Kind == Take {
					takes = append(takes, i)
				}
			}
			a, b := takes[0], takes[len(takes)/2]
			ops[a].OutData, ops[b].OutData = ops[b].OutData, ops[a].OutData
			if got, _ := Linearize(m, ops); got != porcupine.Illegal {
				t.Fatalf("%s, seed %d, two takes' items swapped: %s, want illegal", m.Name, seed, got)
			}
		}
	}
}

// BenchmarkFIFOCheck measures checking a FIFO queue history of 5 producers
// of 20 items each and 5 consumers, operations overlapping up to 15 others.
func BenchmarkFIFOCheck(b *testing.B) {
	ops := queueHistory(1, 5, 20, 5, false, 150)
	for b.Loop() {
		if got, _ := Linearize(FIFOModel, ops); got != porcupine.Ok {
			b.Fatalf("%s, want ok", got)
		}
	}
}

// BenchmarkPriorityQueueCheck is BenchmarkFIFOCheck for a priority queue.
func BenchmarkPriorityQueueCheck(b *testing.B) {
	ops := queueHistory(1, 5, 20, 5, true, 150)
	for b.Loop() {
		if got, _ := Linearize(PriorityQueueModel, ops); got != porcupine.Ok {
			b.Fatalf("%s, want ok", got)
		}
	}
}

// sequentialQueue is the plain sequential specification of a queue, the
// one queueStep must agree with: the state is the items in order, a put
// appends (byPriority: inserts after every item of its priority or a lower
// one), a take that returned removes the head, which must be its item, and
// a take nobody saw removes the head if there is one. It searches every
// order of concurrent puts, so it is slow on long histories; on short ones
// it is the reference.
func sequentialQueue(byPriority bool) Model {
	type item struct {
		data     string
		priority int
	}
	decode := func(s string) []item {
		var out []item
		for line := range strings.SplitSeq(s, "\n") {
			if line == "" {
				continue
			}
			p, q, _ := strings.Cut(line, " ")
			var it item
			it.priority, _ = strconv.Atoi(p)
			it.data, _ = strconv.Unquote(q)
			out = append(out, it)
		}
		return out
	}
	encode := func(items []item) string {
		var b strings.Builder
		for _, it := range items {
			fmt.Fprintf(&b, "%d %q\n", it.priority, it.data)
		}
		return b.String()
	}
	return Model{
		Name: "sequential-queue",
		Init: func() any { return "" },
		Step: func(state any, op Operation) (bool, any) {
			items := decode(state.(string))
			switch {
			case op.Kind == Put && (op.Result == OK || op.Result == Unknown || op.Result == Pending):
				it := item{op.Data, 0}
				if byPriority {
					it.priority = op.Priority
				}
				i := len(items)
				for byPriority && i > 0 && items[i-1].priority > it.priority {
					i--
				}
				return true, encode(slices.Insert(items, i, it))
			case op.Kind == Take && op.Result == OK:
				return len(items) > 0 && items[0].data == op.OutData, encode(items[min(1, len(items)):])
			case op.Kind == Take && (op.Result == Unknown || op.Result == Pending):
				return true, encode(items[min(1, len(items)):])
			}
			return false, state
		},
		DescribeState: func(state any) string { return state.(string) },
		Prepare:       unknownLast,
	}
}

// smallQueueHistory is a short random history of a queue on few clients
// with much overlap, unknown and pending operations: from a run of a
// correct queue, then, when broken, with one take's item changed.
func smallQueueHistory(r *rand.Rand, byPriority, broken bool) []Operation {
	clients := 2 + r.IntN(4)
	n := 3 + r.IntN(9)
	var queue []Operation // the puts in the queue, in order
	var ops []Operation
	items := 0
	for i := range n {
		c := r.IntN(clients)
		lin := int64(i+1) * 10
		res := OK
		if r.IntN(8) == 0 {
			res = Unknown
		}
		happened := res == OK || r.IntN(2) == 0
		if len(queue) == 0 || r.IntN(2) == 0 {
			o := qPut(c, fmt.Sprintf("i%d", items), 0, lin, lin, res)
			items++
			if byPriority {
				o.Priority = r.IntN(2)
			}
			if happened {
				at := len(queue)
				for byPriority && at > 0 && queue[at-1].Priority > o.Priority {
					at--
				}
				queue = slices.Insert(queue, at, o)
			}
			ops = append(ops, o)
			continue
		}
		o := qTake(c, "", lin, lin, res)
		if happened && len(queue) > 0 {
			if res == OK {
				o.OutData = queue[0].Data
			}
			queue = queue[1:]
		}
		if res == OK && o.OutData == "" {
			continue // a take blocks on an empty queue
		}
		ops = append(ops, o)
	}
	// Intervals around the instants, each client's in its order; the last
	// operation of a client may still be pending at the end.
	end := int64(len(ops)+10) * 10
	next := make([]int64, len(ops)) // the instant of the client's next operation
	for i := range ops {
		next[i] = end
		for j := i + 1; j < len(ops); j++ {
			if ops[j].Client == ops[i].Client {
				next[i] = ops[j].Call
				break
			}
		}
	}
	last := map[int]int64{}
	for i := range ops {
		o := &ops[i]
		lin, spread := o.Call, 1+r.Int64N(60)
		o.Call = max(lin-r.Int64N(spread), last[o.Client]+1)
		o.Return = min(lin+r.Int64N(spread), next[i]-1)
		last[o.Client] = o.Return
		if o.Result == Unknown {
			o.Return = never
		}
	}
	for c := range clients {
		i := -1 // c's last operation
		for j, o := range ops {
			if o.Client == c {
				i = j
			}
		}
		if i >= 0 && r.IntN(3) == 0 {
			ops[i].Result, ops[i].Return = Pending, end
			if ops[i].Kind == Take {
				ops[i].OutData = ""
			}
		}
	}
	if broken {
		var takes []int
		for i, o := range ops {
			if o.Kind == Take && o.Result == OK {
				takes = append(takes, i)
			}
		}
		if len(takes) > 0 {
			ops[takes[r.IntN(len(takes))]].OutData = fmt.Sprintf("i%d", r.IntN(items))
		}
	}
	return ops
}

// TestQueueModelsAgreeWithSequentialQueue checks the queue models against
// the plain sequential queue on many short random histories, linearizable
// and not, with unknown and pending operations.
func TestQueueModelsAgreeWithSequentialQueue(t *testing.T) {
	for _, m := range []Model{FIFOModel, PriorityQueueModel} {
		byPriority := m.Name == PriorityQueueModel.Name
		ref := sequentialQueue(byPriority)
		r := rand.New(rand.NewPCG(7, 7))
		count := map[porcupine.CheckResult]int{}
		for i := range 5000 {
			broken := i%2 == 1
			ops := smallQueueHistory(r, byPriority, broken)
			want, _ := Linearize(ref, ops)
			got, _ := Linearize(m, ops)
			count[want]++
			if got != want || (!broken && got != porcupine.Ok) {
				var b strings.Builder
				for _, o := range ops {
					fmt.Fprintf(&b, "\n  c%d %s [%d, %d]", o.Client+1, Describe(o), o.Call, o.Return)
				}
				t.Fatalf("%s says %s, the sequential queue %s, of a history a correct queue made (%v, then broken: %v):%s",
					m.Name, got, want, !broken, broken, b.String())
			}
		}
		if count[porcupine.Ok] < 1000 || count[porcupine.Illegal] < 1000 {
			t.Fatalf("%s: %v: too few of one verdict to compare", m.Name, count)
		}
	}
}

// queuePrepare drops takes of unknown outcome beyond those that could have
// removed an item: the verdict stays what porcupine gives on the history
// with them all, on random small histories full of such takes, FIFO and
// priority alike.
func TestQueuePrepareKeepsTheVerdict(t *testing.T) {
	plain := func(m Model) Model { m.Prepare = unknownLast; return m }
	r := rand.New(rand.NewPCG(3, 7))
	counts := map[porcupine.CheckResult]int{}
	for i := 0; i < 3000; i++ {
		ops := randomQueueHistory(r)
		for _, m := range []Model{FIFOModel, PriorityQueueModel} {
			want, _ := Linearize(plain(m), ops)
			got, _ := Linearize(m, ops)
			if got != want {
				t.Fatalf("%s: %s with queuePrepare, %s without, on\n%v", m.Name, got, want, ops)
			}
			counts[want]++
		}
	}
	if counts[porcupine.Ok] == 0 || counts[porcupine.Illegal] == 0 {
		t.Fatalf("verdicts %v: want both kinds among the random histories", counts)
	}
}

// randomQueueHistory is a few puts and takes, OK or of unknown outcome or
// pending, with takes naming items put or not.
func randomQueueHistory(r *rand.Rand) []Operation {
	var ops []Operation
	items := 1 + r.IntN(4)
	for k := 0; k < items; k++ {
		call := int64(r.IntN(100))
		res := OK
		if r.IntN(4) == 0 {
			res = Unknown
		}
		ops = append(ops, qPut(k%2, "i"+strconv.Itoa(k), r.IntN(3), call, call+1+int64(r.IntN(30)), res))
	}
	for k := 0; k < 2+r.IntN(5); k++ {
		call := int64(r.IntN(150))
		ret := call + 1 + int64(r.IntN(30))
		switch r.IntN(3) {
		case 0:
			ops = append(ops, qTake(2+k%2, "i"+strconv.Itoa(r.IntN(items)), call, ret, OK))
		case 1:
			ops = append(ops, qTake(2+k%2, "", call, never, Unknown))
		default:
			ops = append(ops, qTake(2+k%2, "", call, 200, Pending))
		}
	}
	return ops
}

// A consumer whose takes keep giving up in doubt leaves many identical
// open takes: checked in an instant, and a take out of order among them
// is still caught.
func TestManyTakesOfUnknownOutcomeCheckFast(t *testing.T) {
	var ops []Operation
	for k := 0; k < 16; k++ {
		ops = append(ops, qPut(2, "i"+strconv.Itoa(k), 0, int64(k*10), int64(k*10+5), OK))
	}
	for k := 0; k < 25; k++ {
		ops = append(ops, qTake(k%2, "", int64(200+k*10), never, Unknown))
	}
	for k := 0; k < 16; k++ {
		ops = append(ops, qTake(0, "i"+strconv.Itoa(k), int64(1000+k*10), int64(1000+k*10+5), OK))
	}
	if got, _ := Linearize(FIFOModel, ops); got != porcupine.Ok {
		t.Fatalf("Linearize: %s, want Ok", got)
	}
	ops[len(ops)-2].OutData, ops[len(ops)-1].OutData = "i15", "i14"
	if got, _ := Linearize(FIFOModel, ops); got != porcupine.Illegal {
		t.Fatalf("the last two taken out of order: %s, want Illegal", got)
	}
}
