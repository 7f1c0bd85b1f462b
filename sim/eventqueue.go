package sim

import "fmt"

// The event queue: what is due when, for the scheduler's loop (scheduler.go)
// to fire in order. Events due at the same virtual time fire in the order
// they were scheduled, so that a run's order of events is the same every
// time it runs.

// handler is what an event does when it fires. Messages implement it
// themselves, so that sending one costs no closure.
type handler interface{ handle() }

// funcHandler makes a function a handler.
type funcHandler func()

func (f funcHandler) handle() { f() }

// event is something due at a virtual time. Events at the same time fire in
// the order they were scheduled (their sequence number). The heap holds no
// pointers (the handler sits in a slot table), so sifting it costs no write
// barriers, and an event is two words: the sequence number and the slot
// share one (seq<<slotBits | slot), which orders as the sequence number
// alone does, since no two events share one.
type event struct {
	at  Time
	key uint64
}

// slotBits is the width of an event's slot in its key: up to 16M events
// pending at once, and 2^40 scheduled in a run.
const slotBits = 24

func (e event) seq() uint64 { return e.key >> slotBits }

func (e event) slot() uint32 { return uint32(e.key & (1<<slotBits - 1)) }

// pending is what a slot holds: an event's handler, and whether it is
// background (heartbeats and housekeeping that change nothing by
// themselves).
type pending struct {
	h  handler
	bg bool
}

// eventQueue is a 4-ary min-heap of events ordered by (at, seq), with the
// handlers of pending events in slots (free slots are reused). Four
// children a node halve the heap's depth: fewer levels to sift through,
// for a few more comparisons on each (measured on lock-contention: the queue's
// share of a run fell by a quarter against a binary heap).
type eventQueue struct {
	heap  []event
	slots []pending
	free  []uint32
	seq   uint64 // the last event's sequence number
}

// heapArity is the number of children of a node of the event heap.
const heapArity = 4

func (q *eventQueue) len() int { return len(q.heap) }

// due reports whether an event is pending at or before now.
func (q *eventQueue) due(now Time) bool { return len(q.heap) > 0 && q.heap[0].at <= now }

// nextAt is when the earliest pending event is due; the queue must not be
// empty.
func (q *eventQueue) nextAt() Time { return q.heap[0].at }

// push adds an event due at at, after every event already pushed for
// that time. Its sequence number is larger than every pending event's, so
// it goes above another only if it is due earlier.
func (q *eventQueue) push(at Time, hd handler, bg bool) {
	q.seq++
	seq := q.seq
	var slot uint32
	if n := len(q.free); n > 0 {
		slot = q.free[n-1]
		q.free = q.free[:n-1]
		q.slots[slot] = pending{hd, bg}
	} else {
		slot = uint32(len(q.slots))
		q.slots = append(q.slots, pending{hd, bg})
	}
	if slot >= 1<<slotBits || seq >= 1<<(64-slotBits) {
		panic(fmt.Sprintf("sim: %d events pending, or %d scheduled: past what an event's key holds", slot, seq))
	}
	e := event{at: at, key: seq<<slotBits | uint64(slot)}
	q.heap = append(q.heap, e)
	h := q.heap
	i := len(h) - 1
	for i > 0 {
		// seq is the largest yet: only an earlier time goes above a parent.
		p := (i - 1) / heapArity
		if h[p].at <= at {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

// pop removes the earliest event and returns it with its handler and
// whether it is background. The last event takes the top's place, moving
// down a hole (each level's earliest child moves up into it) rather than
// by swaps: half the writes.
func (q *eventQueue) pop() (event, handler, bool) {
	h := q.heap
	top := h[0]
	n := len(h) - 1
	last := h[n]
	h = h[:n]
	q.heap = h
	if n > 0 {
		i := 0
		for {
			first := heapArity*i + 1
			if first >= n {
				break
			}
			m, mat, mkey := first, h[first].at, h[first].key
			for c := first + 1; c < min(first+heapArity, n); c++ {
				if e := &h[c]; e.at < mat || (e.at == mat && e.key < mkey) {
					m, mat, mkey = c, e.at, e.key
				}
			}
			if last.at < mat || (last.at == mat && last.key < mkey) {
				break
			}
			h[i] = h[m]
			i = m
		}
		h[i] = last
	}
	slot := top.slot()
	p := q.slots[slot]
	q.slots[slot] = pending{}
	q.free = append(q.free, slot)
	return top, p.h, p.bg
}
