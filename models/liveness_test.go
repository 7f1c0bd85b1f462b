package models

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/client"
)

// secs is n seconds of virtual time, in ns.
func secs(n float64) int64 { return int64(n * float64(time.Second)) }

// wantViolation is what a test expects of one violation: its object, kind,
// instant, and words its message must say.
type wantViolation struct {
	object string
	kind   ViolationKind
	at     int64
	says   []string
}

// checkCase is one table case of a checker test.
type checkCase struct {
	name string
	in   Input
	want []wantViolation
}

// runCheckCases runs the named checker on each case and compares what it
// found with what the case wants. It also runs each case on the history
// with the clients' operations interleaved in reverse, which must give the
// same violations: output must not depend on the order of the history,
// but for one client's operations at one instant, which are in the order
// the client made them.
func runCheckCases(t *testing.T, check string, cases []checkCase) {
	t.Helper()
	c, err := Lookup(check)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			got := c.Check(&in)
			for _, v := range got {
				t.Logf("%s", v)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%d violations, want %d", len(got), len(tc.want))
			}
			for i, w := range tc.want {
				v := got[i]
				if v.Check != check || v.Object != w.object || v.Kind != w.kind || v.At != w.at {
					t.Errorf("violation %d is %s %s on %s at %s, want %s %s on %s at %s", i,
						v.Check, v.Kind, v.Object, client.FormatTime(v.At), check, w.kind, w.object, client.FormatTime(w.at))
				}
				for _, s := range w.says {
					if !strings.Contains(v.Message, s) {
						t.Errorf("violation %d's message %q does not say %q", i, v.Message, s)
					}
				}
				if len(v.Ops) == 0 {
					t.Errorf("violation %d shows no operations", i)
				}
			}
			rev := tc.in
			rev.Ops = reversedAcrossClients(tc.in.Ops)
			if again := c.Check(&rev); !reflect.DeepEqual(again, got) {
				t.Errorf("on the history reversed:\n%v\nwant\n%v", again, got)
			}
		})
	}
}

func TestLivenessCheck(t *testing.T) {
	const lock, q, b, db, tx = "/app/lock", "/app/queue", "/app/barrier", "/app/db", "/app/tx"
	acquire := func(c int, call, ret int64, res Result) Operation { return op(c, Acquire, lock, call, ret, res) }
	shared := func(c int, call, ret int64, res Result) Operation {
		o := acquire(c, call, ret, res)
		o.Shared = true
		return o
	}
	release := func(c int, call, ret int64) Operation { return op(c, Release, lock, call, ret, OK) }
	fail := func(c int, path string, at int64) Operation { return op(c, Fail, path, at, at, OK) }
	put := func(c int, call, ret int64, res Result) Operation { return op(c, Put, q, call, ret, res) }
	take := func(c int, call, ret int64, res Result) Operation { return op(c, Take, q, call, ret, res) }
	end := secs(3600)
	run := func(stuck bool, ops ...Operation) Input {
		return Input{Ops: ops, End: end, Stuck: stuck, Bound: 30 * time.Second}
	}
	short := func(e int64, ops ...Operation) Input {
		return Input{Ops: ops, End: e, Stuck: true, Bound: 30 * time.Second}
	}
	pend := func(o Operation) Operation {
		o.Return = end
		return o
	}
	cases := []checkCase{
		{"an empty history", run(false), nil},
		{"a waiter behind a holder", run(false,
			acquire(0, 0, secs(1), OK), release(0, secs(100), secs(101)),
			acquire(1, secs(2), secs(102), OK)), nil},
		{"a waiter through a hand-over", run(false,
			acquire(0, 0, secs(1), OK), release(0, secs(50), secs(51)),
			acquire(1, secs(2), secs(51.1), OK), release(1, secs(100), secs(101)),
			acquire(2, secs(3), secs(101.1), OK)), nil},
		{"an orphaned lock node: nobody holds the lock", run(false,
			acquire(0, 0, secs(1), OK), release(0, secs(4), secs(5)),
			pend(acquire(1, secs(2), 0, Pending))),
			[]wantViolation{{lock, Liveness, secs(35), []string{"c2 waited 59m58s for the lock /app/lock (from 2.000000s)", "nobody held it (since 5.000000s)", "orphaned node"}}}},
		{"a waiter that got the lock, late", run(false,
			acquire(0, 0, secs(1), OK), release(0, secs(4), secs(5)),
			acquire(1, secs(2), secs(45), OK)),
			[]wantViolation{{lock, Liveness, secs(35), []string{"c2 waited 43s", "40s of it while nobody held it"}}}},
		{"free waiting adds up over several gaps", run(false,
			acquire(0, 0, secs(1), OK), release(0, secs(1), secs(20)),
			acquire(2, secs(40), secs(41), OK), release(2, secs(41), secs(60)),
			acquire(1, secs(2), secs(75), OK)),
			[]wantViolation{{lock, Liveness, secs(69), []string{"c2 waited 1m13s", "36s of it", "since 60.000000s"}}}},
		{"free waiting just under the bound", run(false,
			acquire(0, 0, secs(1), OK), release(0, secs(4), secs(5)),
			acquire(1, secs(2), secs(35), OK)), nil},
		{"a stuck run: the waiter would wait for ever", short(secs(10),
			acquire(0, 0, secs(1), OK), release(0, secs(4), secs(5)),
			op(1, Acquire, lock, secs(2), secs(10), Pending)),
			[]wantViolation{{lock, Liveness, secs(10), []string{"would have waited for ever", "run got stuck at 10.000000s", "since 5.000000s"}}}},
		{"a stuck run with the lock held: a deadlock elsewhere", short(secs(10),
			acquire(0, 0, secs(1), OK),
			op(1, Acquire, lock, secs(2), secs(10), Pending)), nil},
		{"a run too short to judge", Input{End: secs(10), Bound: 30 * time.Second, Ops: []Operation{
			op(1, Acquire, lock, secs(2), secs(10), Pending)}},
			[]wantViolation{{lock, Undecided, secs(10), []string{"c2's acquire of /app/lock, called at 2.000000s, was still waiting (8s)",
				"within the bound (30s) could not be judged"}}}},
		{"a run too short, the waiter blocked at its end", Input{End: secs(10), Bound: 30 * time.Second, Ops: []Operation{
			op(0, Acquire, lock, secs(1), secs(1), OK), op(1, Acquire, lock, secs(2), secs(10), Pending)}}, nil},
		{"a run too short, one waiter late and one unjudged", Input{End: secs(50), Bound: 30 * time.Second, Ops: []Operation{
			op(0, Acquire, lock, secs(1), secs(50), Pending), op(1, Acquire, lock, secs(45), secs(50), Pending)}},
			[]wantViolation{{lock, Liveness, secs(31), []string{"c1 waited 49s for the lock /app/lock"}}}},
		{"a holder that stopped: its node goes", run(false,
			acquire(0, 0, secs(1), OK), fail(0, lock, secs(10)),
			pend(acquire(1, secs(2), 0, Pending))),
			[]wantViolation{{lock, Liveness, secs(40), []string{"since 10.000000s"}}}},
		{"a waiter that stopped is not waiting", run(false,
			acquire(0, 0, secs(1), OK), release(0, secs(4), secs(5)),
			pend(acquire(1, secs(2), 0, Pending)), fail(1, lock, secs(20))), nil},
		{"a waiter that stopped in a stuck run does not wait for ever", short(secs(10),
			op(1, Acquire, lock, secs(2), secs(10), Pending), fail(1, lock, secs(3))), nil},
		{"a reader is not blocked by a reader", run(false,
			shared(0, 0, secs(1), OK), pend(shared(1, secs(2), 0, Pending))),
			[]wantViolation{{lock, Liveness, secs(32), []string{"for a shared lock on /app/lock", "no writer held it or queued before it"}}}},
		{"a writer is blocked by a reader", run(false,
			shared(0, 0, secs(1), OK), pend(acquire(1, secs(2), 0, Pending))), nil},
		{"a reader is blocked by a writer", run(false,
			acquire(0, 0, secs(1), OK), pend(shared(1, secs(2), 0, Pending))), nil},
		{"a reader queued behind a waiting writer", run(false,
			shared(0, 0, secs(1), OK), pend(acquire(1, secs(2), 0, Pending)), pend(shared(2, secs(3), 0, Pending))), nil},
		// The reader's node may have been created after the writer's (its
		// server lagged, its create was retried): it may queue behind the
		// writer, which waits for the reader holding.
		{"a reader may queue behind a writer called after it", run(false,
			shared(0, 0, secs(1), OK), pend(shared(2, secs(2), 0, Pending)), pend(acquire(1, secs(3), 0, Pending))), nil},
		{"but not behind one called after it returned", run(false,
			shared(0, 0, secs(1), OK), shared(2, secs(2), secs(40), OK), acquire(1, secs(41), 0, Pending)),
			[]wantViolation{{lock, Liveness, secs(32), []string{"c3 waited"}}}},
		{"a reader stuck alone", run(false,
			shared(0, 0, secs(1), OK), pend(shared(2, secs(2), 0, Pending))),
			[]wantViolation{{lock, Liveness, secs(32), []string{"c3 waited"}}}},
		{"one orphan, many waiters: one violation", run(false,
			pend(acquire(2, secs(3), 0, Pending)), pend(acquire(1, secs(2), 0, Pending))),
			[]wantViolation{{lock, Liveness, secs(32), []string{"c2 waited", "so did c3 from 3.000000s"}}}},
		{"each lock on its own", run(false,
			pend(op(0, Acquire, "/b", secs(1), 0, Pending)), pend(op(0, Acquire, "/a", secs(2), 0, Pending))),
			[]wantViolation{{"/a", Liveness, secs(32), nil}, {"/b", Liveness, secs(31), nil}}},

		{"a taker waits on an empty queue", run(false,
			pend(take(1, secs(1), 0, Pending))), nil},
		{"a taker gets an item put", run(false,
			take(1, secs(1), secs(101), OK), put(0, secs(100), secs(100.5), OK)), nil},
		{"a taker misses an item in the queue", run(false,
			put(0, 0, secs(1), OK), pend(take(1, secs(2), 0, Pending))),
			[]wantViolation{{q, Liveness, secs(32), []string{"for an item of /app/queue", "it had items (since 2.000000s)"}}}},
		{"another taker took the item", run(false,
			put(0, 0, secs(1), OK), take(2, secs(1), secs(1.5), OK), pend(take(1, secs(2), 0, Pending))), nil},
		{"a take of unknown result may have taken the item", run(false,
			put(0, 0, secs(1), OK), take(2, secs(1), math.MaxInt64, Unknown), pend(take(1, secs(2), 0, Pending))), nil},
		{"a put of unknown result is no item", run(false,
			put(0, 0, math.MaxInt64, Unknown), pend(take(1, secs(2), 0, Pending))), nil},
		{"a stuck taker with items", short(secs(5),
			put(0, 0, secs(1), OK), put(0, secs(1), secs(2), OK), take(2, secs(2), secs(3), OK), op(1, Take, q, secs(3), secs(5), Pending)),
			[]wantViolation{{q, Liveness, secs(5), []string{"would have waited for ever", "since 3.000000s"}}}},

		{"a passer waits for the barrier", run(false,
			op(0, Raise, b, 0, secs(1), OK), pend(op(1, Pass, b, secs(2), 0, Pending))), nil},
		{"a passer misses the lowering", run(false,
			op(0, Raise, b, 0, secs(1), OK), op(0, Lower, b, secs(9), secs(10), OK), pend(op(1, Pass, b, secs(2), 0, Pending))),
			[]wantViolation{{b, Liveness, secs(40), []string{"to pass the barrier /app/barrier", "it was lowered (since 10.000000s)"}}}},
		{"a passer passes soon after the lowering", run(false,
			op(0, Raise, b, 0, secs(1), OK), op(0, Lower, b, secs(9), secs(10), OK), op(1, Pass, b, secs(2), secs(11), OK)), nil},
		{"a passer made again after a failed call waits from its first call", run(false,
			op(0, Raise, b, 0, secs(1), OK), op(0, Lower, b, secs(9), secs(10), OK),
			failedCall(op(1, Pass, b, secs(2), secs(12), Failed), "zk: connection closed"), pend(op(1, Pass, b, secs(12.5), 0, Pending))),
			[]wantViolation{{b, Liveness, secs(40), []string{"to pass the barrier /app/barrier", "it was lowered (since 10.000000s)"}}}},

		{"an enterer waits for the others", Input{Size: 3, End: end, Bound: 30 * time.Second, Ops: []Operation{
			op(0, Enter, db, 0, end, Pending), op(1, Enter, db, secs(1), end, Pending)}}, nil},
		{"an enterer not let in when all entered", Input{Size: 2, End: end, Bound: 30 * time.Second, Ops: []Operation{
			op(0, Enter, db, 0, end, Pending), op(1, Enter, db, secs(1), end, Pending)}},
			[]wantViolation{{db, Liveness, secs(31), []string{"c1 waited", "to enter the double barrier /app/db", "2 processes had entered it (since 1.000000s)", "so did c2"}}}},
		{"an enterer waits when one stopped before all entered", Input{Size: 3, End: end, Bound: 30 * time.Second, Ops: []Operation{
			op(0, Enter, db, 0, end, Pending), fail(1, db, secs(0.5)), op(1, Enter, db, 0, end, Pending),
			op(2, Enter, db, secs(1), end, Pending)}},
			nil},
		{"a leaver waits for one still computing", Input{End: end, Bound: 30 * time.Second, Ops: []Operation{
			op(0, Enter, db, 0, secs(1), OK), op(1, Enter, db, 0, secs(1), OK),
			op(0, Leave, db, secs(2), end, Pending)}}, nil},
		{"a leaver not let out when all left", Input{End: end, Bound: 30 * time.Second, Ops: []Operation{
			op(0, Enter, db, 0, secs(1), OK), op(1, Enter, db, 0, secs(1), OK),
			op(0, Leave, db, secs(2), end, Pending), op(1, Leave, db, secs(3), secs(4), OK)}},
			[]wantViolation{{db, Liveness, secs(33), []string{"to leave the double barrier", "since 3.000000s"}}}},
		{"a leaver let out when the other stopped", Input{End: end, Bound: 30 * time.Second, Ops: []Operation{
			op(0, Enter, db, 0, secs(1), OK), op(1, Enter, db, 0, secs(1), OK),
			op(0, Leave, db, secs(2), secs(50), OK), fail(1, db, secs(30))}}, nil},

		{"an enterer made again after a failed call waits from its first call", Input{Size: 2, End: end, Bound: 30 * time.Second, Ops: []Operation{
			op(0, Enter, db, 0, end, Pending), failedCall(op(1, Enter, db, secs(1), secs(2), Failed), "zk: connection closed"),
			op(1, Enter, db, secs(3), end, Pending)}},
			[]wantViolation{{db, Liveness, secs(31), []string{"2 processes had entered it (since 1.000000s)", "so did c2 from 1.000000s"}}}},
		{"a vote made again after a failed call waits from its first call", run(false,
			failedCall(op(1, Vote, tx, secs(2), secs(2.5), Failed), "zk: connection closed"), pend(op(1, Vote, tx, secs(3), 0, Pending)),
			op(2, Vote, tx, secs(2), secs(3), OK)),
			[]wantViolation{{tx, Liveness, secs(32), []string{"c2's vote of /app/tx, called at 2.000000s"}}}},
		{"a decision pending while a site failed", run(false,
			pend(op(0, Propose, tx, 0, 0, Pending)), fail(2, tx, secs(1))), nil},
		{"a decision never reached although no site failed", run(false,
			pend(op(0, Propose, tx, secs(1), 0, Pending)), pend(op(1, Vote, tx, secs(2), 0, Pending)), op(2, Vote, tx, secs(2), secs(3), OK)),
			[]wantViolation{{tx, Liveness, secs(31), []string{"c1's propose of /app/tx, called at 1.000000s", "no site failed", "so was c2's vote"}}}},
		{"a decision pending in a run too short", short(secs(10), pend(op(0, Propose, tx, secs(1), 0, Pending))),
			[]wantViolation{{tx, Liveness, secs(10), []string{"when the run got stuck"}}}},
		{"a decision pending in a short run that was not stuck", Input{End: secs(10), Ops: []Operation{
			op(0, Propose, tx, secs(1), secs(10), Pending)}},
			[]wantViolation{{tx, Undecided, secs(10), []string{"c1's propose of /app/tx", "could not be judged"}}}},
		{"a decision pending in a short run after a site failed", Input{End: secs(10), Ops: []Operation{
			op(0, Propose, tx, secs(1), secs(10), Pending), op(1, Fail, tx, secs(2), secs(2), OK)}}, nil},
	}
	runCheckCases(t, "liveness", cases)
}

// failedCall is o, a call that returned err.
func failedCall(o Operation, err string) Operation {
	o.Error = err
	return o
}

func TestFreeStretches(t *testing.T) {
	cases := []struct {
		name     string
		from, to int64
		blocked  []timeSpan
		want     []timeSpan
	}{
		{"nothing blocks", 0, 10, nil, []timeSpan{{0, 10}}},
		{"blocked throughout", 0, 10, []timeSpan{{math.MinInt64, math.MaxInt64}}, nil},
		{"a gap between spans", 0, 10, []timeSpan{{6, 20}, {-5, 3}}, []timeSpan{{3, 6}}},
		{"overlapping spans", 0, 10, []timeSpan{{1, 4}, {2, 3}, {3, 5}}, []timeSpan{{0, 1}, {5, 10}}},
		{"spans outside the wait", 5, 10, []timeSpan{{0, 5}, {10, 12}}, []timeSpan{{5, 10}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := freeStretches(tc.from, tc.to, tc.blocked); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("%v, want %v", got, tc.want)
			}
		})
	}
}

func TestEmptySpans(t *testing.T) {
	const q = "/q"
	got := emptySpans([]Operation{
		op(0, Put, q, 0, 10, OK), op(0, Put, q, 10, 20, OK),
		op(1, Take, q, 0, 25, OK), op(1, Take, q, 26, 30, OK),
		op(1, Take, q, 31, 35, OK), // nothing left: never below zero
		op(0, Put, q, 36, 40, OK),
	})
	want := []timeSpan{{math.MinInt64, 10}, {30, 40}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%v, want %v", got, want)
	}
}

// Clients are numbered in order of client, alike whether they are close
// together (counted in an array) or far apart (sorted).
func TestNumberClients(t *testing.T) {
	for _, c := range []struct {
		clients []int
		ids     []int32
		n       int
	}{
		{nil, []int32{}, 0},
		{[]int{3, 1, 3, 2}, []int32{2, 0, 2, 1}, 3},
		{[]int{5, 1 << 40, 5, -3}, []int32{1, 2, 1, 0}, 3},
	} {
		ids, n := numberClients(len(c.clients), func(k int) int { return c.clients[k] })
		if n != c.n || !slices.Equal(ids, c.ids) {
			t.Errorf("clients %v numbered %v (%d), want %v (%d)", c.clients, ids, n, c.ids, c.n)
		}
	}
}

// reversedAcrossClients is ops with the clients' operations interleaved in
// reverse, each client's own operations in their order: what a history's
// order may change without changing what it says (a client's operations
// at one instant are in the order it made them).
func reversedAcrossClients(ops []Operation) []Operation {
	out := slices.Clone(ops)
	slices.Reverse(out)
	own := map[int][]Operation{}
	for _, op := range ops {
		own[op.Client] = append(own[op.Client], op)
	}
	for i, op := range out {
		out[i], own[op.Client] = own[op.Client][0], own[op.Client][1:]
	}
	return out
}
