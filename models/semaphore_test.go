package models

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// The semaphore histories reuse the lock's helpers (mutex_test.go), on
// /lock, with a semaphore of two leases unless said otherwise.
func TestSemaphoreModel(t *testing.T) {
	two := SemaphoreModel(2)
	runModelCases(t, two, []modelCase{
		{"an empty history", nil, porcupine.Ok},
		{"two holders at once", []Operation{
			lkAcquire(0, 1, 0, 10), lkAcquire(1, 2, 5, 15), lkUse(0, 1, 20, OK), lkUse(1, 2, 21, OK),
			lkRelease(0, 20, 30), lkRelease(1, 21, 31)}, porcupine.Ok},
		{"a third after one of two released", []Operation{
			lkAcquire(0, 1, 0, 10), lkAcquire(1, 2, 5, 15), lkRelease(0, 20, 30),
			lkAcquire(2, 3, 12, 40), lkUse(2, 3, 45, OK), lkUse(1, 2, 46, OK)}, porcupine.Ok},
		{"a release overlapping the third's acquire may end first", []Operation{
			lkAcquire(0, 1, 0, 10), lkAcquire(1, 2, 5, 15), lkRelease(0, 20, 40), lkAcquire(2, 3, 25, 30)}, porcupine.Ok},
		{"three holders at once", []Operation{
			lkAcquire(0, 1, 0, 10), lkAcquire(1, 2, 5, 15), lkAcquire(2, 3, 20, 30)}, porcupine.Illegal},
		{"three holders at once, all acting", []Operation{
			lkAcquire(0, 1, 0, 10), lkAcquire(1, 2, 5, 15), lkAcquire(2, 3, 6, 16),
			lkUse(0, 1, 20, OK), lkUse(1, 2, 21, OK), lkUse(2, 3, 22, OK),
			lkRelease(0, 20, 30), lkRelease(1, 21, 31), lkRelease(2, 22, 32)}, porcupine.Illegal},
		{"a use by a client holding no lease", []Operation{
			lkAcquire(0, 1, 0, 10), lkUse(1, 0, 20, OK)}, porcupine.Illegal},
		{"a use after its own release", []Operation{
			lkAcquire(0, 1, 0, 10), lkRelease(0, 10, 20), lkUse(0, 1, 30, OK)}, porcupine.Illegal},
		{"a release by a client holding no lease", []Operation{
			lkAcquire(0, 1, 0, 10), lkRelease(1, 20, 30)}, porcupine.Illegal},
		{"a rejected use proves nothing", []Operation{
			lkAcquire(0, 1, 0, 10), lkUse(1, 0, 20, Rejected)}, porcupine.Ok},
		{"acquires of unknown outcome grant nothing", []Operation{
			op(3, Acquire, "/lock", 0, never, Unknown), lkAcquire(0, 1, 20, 30), lkAcquire(1, 2, 40, 50),
			lkWaiting(2, 45, 100)}, porcupine.Ok},
		{"an acquire of unknown outcome excuses nothing", []Operation{
			op(3, Acquire, "/lock", 0, never, Unknown), lkAcquire(0, 1, 20, 30), lkAcquire(1, 2, 40, 50),
			lkAcquire(2, 3, 60, 70)}, porcupine.Illegal},
		{"semaphores are independent", []Operation{
			onPath("/a", lkAcquire(0, 1, 0, 10)), onPath("/a", lkAcquire(1, 2, 0, 10)),
			onPath("/b", lkAcquire(2, 1, 0, 10)), onPath("/b", lkAcquire(3, 2, 0, 10))}, porcupine.Ok},
	})
	// A semaphore of one is a mutex.
	runModelCases(t, SemaphoreModel(1), []modelCase{
		{"one holder after the other", []Operation{
			lkAcquire(0, 1, 0, 10), lkRelease(0, 20, 30), lkAcquire(1, 2, 40, 50)}, porcupine.Ok},
		{"two holders at once", []Operation{
			lkAcquire(0, 1, 0, 10), lkAcquire(1, 2, 20, 30)}, porcupine.Illegal},
	})
}

// The semaphore check reads its count from the input, and its violation
// names every holder of the instant it was over, and what they did; it
// is at that instant.
func TestSemaphoreCheckNamesTheHolders(t *testing.T) {
	ops := []Operation{
		lkAcquire(0, 1, 0, 10), lkAcquire(1, 2, 5, 15), lkAcquire(2, 3, 6, 16),
		lkUse(0, 1, 20, OK), lkUse(1, 2, 21, OK), lkUse(2, 3, 22, OK),
		lkRelease(0, 20, 30), lkRelease(1, 21, 31), lkRelease(2, 22, 32)}
	c, err := Lookup("semaphore")
	if err != nil {
		t.Fatal(err)
	}
	if vs := c.Check(&Input{Ops: ops, Permits: 3}); len(vs) != 0 {
		t.Fatalf("a semaphore of three: %v", vs)
	}
	vs := c.Check(&Input{Ops: ops, Permits: 2})
	if len(vs) != 1 {
		t.Fatalf("a semaphore of two: %v, want one violation", vs)
	}
	for _, s := range []string{"c1, c2 and c3 held it at once, where at most 2 may", "(token 3)",
		"c1 used it at", "c3 did not use the resource"} {
		if !strings.Contains(vs[0].Message, s) {
			t.Errorf("%q does not say %q", vs[0].Message, s)
		}
	}
	named := map[int]bool{}
	for _, o := range vs[0].Ops {
		if o.Kind == Acquire {
			named[o.Client] = true
		}
	}
	if len(named) != 3 {
		t.Errorf("it names the acquires of %d clients (%v), want the three", len(named), vs[0].Ops)
	}
	if vs[0].At != 16 {
		t.Errorf("the violation is at %d, want 16 (c3's grant, the third holder at once)", vs[0].At)
	}
}

// The witness proves a semaphore that behaved without porcupine, and
// proposes nothing porcupine would reject.
func TestSemaphoreWitness(t *testing.T) {
	ops := []Operation{
		lkAcquire(0, 1, 0, 10), lkAcquire(1, 2, 5, 15), lkUse(0, 1, 20, OK), lkRelease(0, 20, 30),
		lkAcquire(2, 3, 12, 25), lkUse(2, 3, 26, OK), lkUse(1, 2, 27, OK), lkRelease(1, 27, 28),
		lkRelease(2, 26, 40), op(3, Acquire, "/lock", 1, never, Unknown)}
	m := SemaphoreModel(2)
	if !isLinearization(m, ops, m.Witness(ops)) {
		t.Fatal("the witness is no linearization of a semaphore that behaved")
	}
}

func TestSemaphoreLiveness(t *testing.T) {
	const s = "/app/leases"
	acquire := func(c int, call, ret int64, res Result) Operation { return op(c, Acquire, s, call, ret, res) }
	release := func(c int, call, ret int64) Operation { return op(c, Release, s, call, ret, OK) }
	end := secs(3600)
	run := func(stuck bool, permits int, ops ...Operation) Input {
		return Input{Ops: ops, End: end, Stuck: stuck, Bound: 30 * time.Second, Permits: permits}
	}
	pend := func(o Operation) Operation {
		o.Return = end
		return o
	}
	runCheckCases(t, "liveness", []checkCase{
		{"a waiter while two hold", run(false, 2,
			acquire(0, 0, secs(1), OK), acquire(1, 0, secs(1), OK),
			release(0, secs(100), secs(101)), release(1, secs(200), secs(201)),
			acquire(2, secs(2), secs(101.1), OK)), nil},
		{"a waiter while one of two holds", run(false, 2,
			acquire(0, 0, secs(1), OK), acquire(1, 0, secs(1), OK),
			release(0, secs(10), secs(11)), release(1, secs(200), secs(201)),
			acquire(2, secs(2), secs(101.1), OK)),
			[]wantViolation{{s, Liveness, secs(41), []string{"c3 waited", "fewer than 2 others held one (since 11.000000s)"}}}},
		{"the same wait for a semaphore of one is blocked", run(false, 1,
			acquire(0, 0, secs(1), OK), acquire(1, 0, secs(1), OK),
			release(0, secs(10), secs(11)), release(1, secs(200), secs(201)),
			acquire(2, secs(2), secs(101.1), OK)), nil},
		{"an orphaned lease: waiting beside one holder until the end", run(true, 2,
			acquire(0, 0, secs(1), OK), pend(acquire(1, secs(2), 0, Pending))),
			[]wantViolation{{s, Liveness, secs(32), []string{"c2 waited 59m58s", "more than the bound"}}}},
		{"stuck soon after, beside one holder: for ever", Input{Ops: []Operation{
			acquire(0, 0, secs(1), OK), op(1, Acquire, s, secs(2), secs(5), Pending)}, End: secs(5), Stuck: true,
			Bound: 30 * time.Second, Permits: 2},
			[]wantViolation{{s, Liveness, secs(5), []string{"would have waited for ever", "since 2.000000s"}}}},
		{"waiting for ever beside two holders is blocked", run(true, 2,
			acquire(0, 0, secs(1), OK), acquire(1, 0, secs(1), OK), pend(acquire(2, secs(2), 0, Pending))), nil},
		{"its own holding does not block a waiter", run(false, 2,
			acquire(0, 0, secs(1), OK), acquire(1, 0, secs(1), OK), release(1, secs(2), secs(3)),
			acquire(1, secs(4), secs(100), OK)),
			[]wantViolation{{s, Liveness, secs(34), []string{"c2 waited"}}}},
	})
}

// A semaphore's release may wake the one waiter that can proceed, and a
// holder too (the watch of the listing that granted its lease, which a
// go-zookeeper/zk client cannot take back, fires once more); two waiters
// are a herd. A lock's release waking a holder beside its waiter is one.
func TestSemaphoreHerd(t *testing.T) {
	const leases = "/app/leases"
	node := func(c int) string { return fmt.Sprintf("%s/x-lease-%010d", leases, c) }
	// c1 and c2 hold from 5ms; c1 releases at 100ms; c3 and c4 wait.
	ops := []Operation{
		herdOp(0, Acquire, leases, 0, 5), herdOp(1, Acquire, leases, 0, 5), herdOp(0, Release, leases, 100, 101),
		herdOp(2, Acquire, leases, 1, 105), herdOp(3, Acquire, leases, 2, 300)}
	release := func(woken ...int) *herdTraffic {
		h := (&herdTraffic{}).apply(100, 10, "delete", node(0), 1)
		for _, c := range woken {
			h.notify(100, 0, c, "NodeChildrenChanged", leases, 10)
		}
		return h
	}
	for _, tc := range []struct {
		name    string
		permits int
		woken   []int
		herd    bool
	}{
		{"the waiter", 2, []int{2}, false},
		{"the waiter and a holder", 2, []int{1, 2}, false},
		{"the waiter and the releaser", 2, []int{0, 2}, false},
		{"two waiters", 2, []int{2, 3}, true},
		{"a lock's waiter and its holder", 0, []int{1, 2}, true},
	} {
		vs := herdCheck(t, &Input{Ops: ops, Traffic: release(tc.woken...).recs, Proceed: 1, Permits: tc.permits})
		if (len(vs) > 0) != tc.herd {
			t.Errorf("%s: %v, want a herd violation: %v", tc.name, vs, tc.herd)
		}
	}
}
