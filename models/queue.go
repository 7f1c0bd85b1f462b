package models

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/zksim/zksim/client"
)

// queued is one item in a queue: its data, its priority, and the interval
// of the put that brought it (the put took effect somewhere in it).
type queued struct {
	priority  int
	call, ret int64
	data      string
}

// outranks reports whether a must leave the queue before b: it has a lower
// priority, or the same and its put returned before b's was called. Two
// items of one priority put concurrently may leave in either order.
func (a queued) outranks(b queued) bool {
	return a.priority < b.priority || (a.priority == b.priority && a.ret < b.call)
}

// queueItems is the state of a queue: the items in it, as a set, encoded
// as one string so that it is comparable (porcupine compares states with
// ==) and cheap to copy. Items are in a canonical order, by put call time
// then data, so the same items make the same state whatever order their
// puts were linearized in. Each item is its priority, put call and put
// return (8 bytes each, big-endian), the length of its data (4 bytes) and
// its data.
type queueItems string

// queueHeader is the bytes before an item's data.
const queueHeader = 3*8 + 4

// item reads the item at offset i, and the offset of the next one.
func (q queueItems) item(i int) (it queued, next int) {
	b := []byte(q[i : i+queueHeader])
	it.priority = int(int64(binary.BigEndian.Uint64(b[0:])))
	it.call = int64(binary.BigEndian.Uint64(b[8:]))
	it.ret = int64(binary.BigEndian.Uint64(b[16:]))
	n := int(binary.BigEndian.Uint32(b[24:]))
	it.data = string(q[i+queueHeader : i+queueHeader+n])
	return it, i + queueHeader + n
}

// encode is it as queueItems holds it.
func (it queued) encode() queueItems {
	var b [queueHeader]byte
	binary.BigEndian.PutUint64(b[0:], uint64(int64(it.priority)))
	binary.BigEndian.PutUint64(b[8:], uint64(it.call))
	binary.BigEndian.PutUint64(b[16:], uint64(it.ret))
	binary.BigEndian.PutUint32(b[24:], uint32(len(it.data)))
	return queueItems(b[:]) + queueItems(it.data)
}

// find is the offsets of the item holding data (from, to), or ok false.
func (q queueItems) find(data string) (from, to int, ok bool) {
	for i := 0; i < len(q); {
		it, next := q.item(i)
		if it.data == data {
			return i, next, true
		}
		i = next
	}
	return 0, 0, false
}

// add is q with it, in its place in the canonical order.
func (q queueItems) add(it queued) queueItems {
	i := 0
	for i < len(q) {
		o, next := q.item(i)
		if o.call > it.call || (o.call == it.call && o.data > it.data) {
			break
		}
		i = next
	}
	return q[:i] + it.encode() + q[i:]
}

// first reports whether no item of q outranks it.
func (q queueItems) first(it queued) bool {
	for i := 0; i < len(q); {
		o, next := q.item(i)
		if o.outranks(it) {
			return false
		}
		i = next
	}
	return true
}

// due is the offsets of the item an unseen take removes: of the items no
// other outranks, the one whose put returned first (it holds back the most
// items put after it); ok false when q is empty.
func (q queueItems) due() (from, to int, ok bool) {
	var best queued
	for i := 0; i < len(q); {
		it, next := q.item(i)
		if !ok || it.priority < best.priority || (it.priority == best.priority && it.ret < best.ret) {
			best, from, to, ok = it, i, next, true
		}
		i = next
	}
	return from, to, ok
}

func (q queueItems) String() string {
	if q == "" {
		return "empty"
	}
	var items []string
	for i := 0; i < len(q); {
		it, next := q.item(i)
		ret := "unknown"
		if it.ret != int64(1<<63-1) {
			ret = client.FormatTime(it.ret)
		}
		s := fmt.Sprintf("%q (put %s–%s", it.data, client.FormatTime(it.call), ret)
		if it.priority != 0 {
			s += fmt.Sprintf(", priority %d", it.priority)
		}
		items = append(items, s+")")
		i = next
	}
	return strings.Join(items, ", ")
}

// queueStep is the specification of a queue that porcupine checks: whether
// op, with the result its client saw, can happen when the queue holds q,
// and what it holds after. byPriority makes it a priority queue; a FIFO
// queue treats every item as of priority 0.
//
// The state is the set of items in the queue, each with its put's
// interval, rather than their sequence: a take of item x is legal when no
// item present outranks x (a lower priority, or the same priority and a
// put that returned before x's was called). For unique items (the
// recording contract) this decides the same as the sequential queue (a
// put appends, or inserts after the items of its priority or a lower one;
// a take removes the head). One way is plain: a sequential linearization
// never takes an item another present item outranks. The other: given a
// linearization here, keep the takes where they are and move each put,
// within its interval and before its take, so that the items of one
// priority are put in the order they are taken (the never-taken after
// them), each after the last take of a worse item before its own take;
// the rule that no present item outranks a taken one is what makes every
// move fit. That is a proof for takes that returned; for takes nobody saw
// (below) it shows that what this accepts is linearizable, and
// TestQueueModelsAgreeWithSequentialQueue compares the two on random
// histories with unknown and pending operations. What it buys is speed:
// concurrent puts no longer make one state per order, so a history of
// many busy clients checks in milliseconds, where the sequential model
// searches the orders of every concurrent put still queued, exponentially
// many.
//
// The rules:
//
//   - A put that returned (OK) adds its item.
//   - A put whose outcome the caller does not know (Unknown) or never saw
//     (Pending) also adds its item: if it did happen, it happened after its
//     call, wherever porcupine places it; if it did not, porcupine may
//     place it last (its Return is the end of the run or later, see
//     unknownLast), where an item nobody takes harms nothing.
//   - A put of an item already in the queue is illegal: items must be
//     unique, or a take would not say which one it took.
//   - A take that returned (OK) with item x needs x in the queue with no
//     item outranking it, and removes it.
//   - A take that gave up and says it took nothing (Failed) leaves the
//     queue as it is: a blocking take may give up at any time.
//   - A take whose outcome the caller does not know (Unknown) or that was
//     still blocked at the end of the run (Pending) may have removed the
//     head or not. It removes, of the items nothing outranks, the one whose
//     put returned first (due), and is a no-op on an empty queue; placed
//     last, it removes nothing anyone saw, which stands for "it did not
//     happen". Choosing one item is what keeps the step deterministic; the
//     choice is the one that holds back the most later items, and the take
//     may be placed anywhere after its call.
//
// Any other operation or result is one the queue cannot give: illegal.
func queueStep(q queueItems, op Operation, byPriority bool) (bool, queueItems) {
	switch op.Kind {
	case Put:
		switch op.Result {
		case OK, Unknown, Pending:
			if _, _, dup := q.find(op.Data); dup {
				return false, q
			}
			it := queued{call: op.Call, ret: op.Return, data: op.Data}
			if byPriority {
				it.priority = op.Priority
			}
			return true, q.add(it)
		}
	case Take:
		switch op.Result {
		case OK:
			from, to, ok := q.find(op.OutData)
			if !ok {
				return false, q
			}
			it, _ := q.item(from)
			return q.first(it), q[:from] + q[to:]
		case Failed:
			return true, q
		case Unknown, Pending:
			if from, to, ok := q.due(); ok {
				return true, q[:from] + q[to:]
			}
			return true, q
		}
	}
	return false, q
}

// unknownLast is ops with every operation of unknown outcome made to
// return at the latest time there is: the server may apply a request whose
// answer was lost at any time after its call, and porcupine may then place
// such an operation last, where it harms nothing if it never happened.
// The Recorder records them so already; a history recorded elsewhere may
// not. ops is not changed.
func unknownLast(ops []Operation) []Operation {
	out := make([]Operation, len(ops))
	for i, op := range ops {
		if op.Result == Unknown {
			op.Return = int64(1<<63 - 1)
		}
		out[i] = op
	}
	return out
}

// queuePrepare is unknownLast without the takes that took nothing (Failed:
// legal anywhere, they change nothing), then every take of unknown outcome (Unknown
// or Pending) past the U earliest called dropped, where U is the number of
// items put (whatever the put's result) that no take returned. It is
// sound: a take of unknown outcome is legal at every point of queueStep
// and returns at the end or later, so a dropped one can follow any
// linearization of the rest; and in a linearization of the whole, at most
// U such takes remove an item (each removes another, none that a take
// returned), the others remove nothing and can go, and queueStep ignores
// a take's call, so the U earliest called can stand in for those that
// removed, each no later than the one it replaces. Without it a consumer
// whose takes keep giving up in doubt leaves porcupine to try every subset
// of identical open takes (2^19 states and 40 s for one history of 51
// operations).
func queuePrepare(ops []Operation) []Operation {
	ops = slices.DeleteFunc(unknownLast(ops), func(op Operation) bool { return op.Kind == Take && op.Result == Failed })
	taken := map[string]bool{}
	items := map[string]bool{}
	for _, op := range ops {
		switch {
		case op.Kind == Take && op.Result == OK:
			taken[op.OutData] = true
		case op.Kind == Put:
			items[op.Data] = true
		}
	}
	u := 0
	for it := range items {
		if !taken[it] {
			u++
		}
	}
	var open []int // takes of unknown outcome, by call
	for i, op := range ops {
		if op.Kind == Take && (op.Result == Unknown || op.Result == Pending) {
			open = append(open, i)
		}
	}
	if len(open) <= u {
		return ops
	}
	slices.SortStableFunc(open, func(a, b int) int { return cmp.Compare(ops[a].Call, ops[b].Call) })
	drop := map[int]bool{}
	for _, i := range open[u:] {
		drop[i] = true
	}
	out := ops[:0]
	for i, op := range ops {
		if !drop[i] {
			out = append(out, op)
		}
	}
	return out
}

// FIFOModel is the porcupine model of a FIFO queue: items are taken in
// the order they were put (see queueStep for each operation's rule). It
// judges Put and Take and ignores priorities.
var FIFOModel = Model{
	Name:          "fifo",
	Doc:           "FIFO queue (items taken in the order they were put)",
	Kinds:         []OpKind{Put, Take},
	Init:          func() any { return queueItems("") },
	Step:          func(state any, op Operation) (bool, any) { return queueStep(state.(queueItems), op, false) },
	DescribeState: func(state any) string { return state.(queueItems).String() },
	Prepare:       queuePrepare,
	Explain:       func(ops []Operation) Explanation { return because(queueMistake(ops, false)) },
}

// PriorityQueueModel is the porcupine model of a priority queue: a take
// returns an item of the lowest Priority, and among those the oldest,
// oldest meaning put first in the linearization (see queueStep). It
// judges Put and Take.
var PriorityQueueModel = Model{
	Name:          "priority-queue",
	Doc:           "priority queue (lowest priority first, oldest first among equals)",
	Kinds:         []OpKind{Put, Take},
	Init:          func() any { return queueItems("") },
	Step:          func(state any, op Operation) (bool, any) { return queueStep(state.(queueItems), op, true) },
	DescribeState: func(state any) string { return state.(queueItems).String() },
	Prepare:       queuePrepare,
	Explain:       func(ops []Operation) Explanation { return because(queueMistake(ops, true)) },
}

func init() {
	registerModel(FIFOModel)
	registerModel(PriorityQueueModel)
}
