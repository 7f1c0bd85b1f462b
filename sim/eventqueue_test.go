package sim

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestEventQueueOrdersByTimeThenSequence(t *testing.T) {
	var q eventQueue
	var got []int
	push := func(at Time, id int) {
		q.push(at, funcHandler(func() { got = append(got, id) }), false)
	}
	push(5, 1)
	push(3, 2)
	push(5, 3)
	push(1, 4)
	push(3, 5)
	for q.len() > 0 {
		_, h, _ := q.pop()
		h.handle()
	}
	want := []int{4, 2, 5, 1, 3}
	if !equalInts(got, want) {
		t.Fatalf("fired %v, want %v", got, want)
	}
}

// Pushes and pops interleaved at random, with ties in time, come out in
// (time, sequence) order: the heap against a sorted reference.
func TestEventQueueAgainstSorting(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	var q eventQueue
	type due struct {
		at  Time
		seq uint64
		bg  bool
	}
	var pending []due
	seq := uint64(0)
	for step := 0; step < 20000; step++ {
		if r.IntN(3) > 0 || len(pending) == 0 {
			seq++
			e := due{at: Time(r.IntN(50)), seq: seq, bg: r.IntN(2) == 0}
			q.push(e.at, funcHandler(func() {}), e.bg) // the queue numbers it seq too
			pending = append(pending, e)
			continue
		}
		got, _, bg := q.pop()
		slices.SortFunc(pending, func(a, b due) int {
			if a.at != b.at {
				return cmp.Compare(a.at, b.at)
			}
			return cmp.Compare(a.seq, b.seq)
		})
		if want := pending[0]; got.at != want.at || got.seq() != want.seq || bg != want.bg {
			t.Fatalf("step %d: popped (%d, %d, %v), want (%d, %d, %v)", step, got.at, got.seq(), bg, want.at, want.seq, want.bg)
		}
		pending = pending[1:]
		if q.len() != len(pending) {
			t.Fatalf("step %d: %d queued, want %d", step, q.len(), len(pending))
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
