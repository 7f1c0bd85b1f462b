package models

import (
	"math"
	"testing"
	"time"
)

// deliveryOps are the helpers of the delivery checks' tests: puts and
// takes on one queue.
const dq = "/app/queue"

func dput(c int, item string, call, ret int64, res Result) Operation {
	o := op(c, Put, dq, call, ret, res)
	o.Data = item
	return o
}

func dtake(c int, item string, call, ret int64, res Result) Operation {
	o := op(c, Take, dq, call, ret, res)
	o.OutData = item
	return o
}

// dindoubt is consumer c's take of unknown outcome, called at call, that
// returned (its error) at ended: as the workload records it, its Return
// is the end of time.
func dindoubt(c int, call, ended int64) Operation {
	o := dtake(c, "", call, math.MaxInt64, Unknown)
	o.Ended, o.Error = ended, "zk: connection closed"
	return o
}

// dasks are consumer c's takes that took nothing, one a second from
// from (in seconds) for n seconds.
func dasks(c int, from float64, n int) []Operation {
	var out []Operation
	for k := 0; k < n; k++ {
		out = append(out, dtake(c, "", secs(from+float64(k)), secs(from+float64(k+1)), Failed))
	}
	return out
}

func dhistory(end float64, groups ...[]Operation) Input {
	var ops []Operation
	for _, g := range groups {
		ops = append(ops, g...)
	}
	return Input{Ops: ops, End: secs(end), Bound: 10 * time.Second}
}

func dops(ops ...Operation) []Operation { return ops }

func TestExactlyOnceCheck(t *testing.T) {
	putAB := dops(dput(1, "a", 0, secs(1), OK), dput(1, "b", secs(1), secs(2), OK))
	cases := []checkCase{
		{"an empty history", dhistory(100), nil},
		{"both taken once, in any order", dhistory(100, putAB,
			dops(dtake(0, "b", secs(2), secs(3), OK), dtake(0, "a", secs(3), secs(4), OK)), dasks(0, 4, 20)), nil},
		{"an item nobody asked for stays in the queue", dhistory(100, putAB, dops(dtake(0, "a", secs(2), secs(3), OK))), nil},
		{"an item left while a consumer kept asking", dhistory(100, putAB,
			dops(dtake(0, "a", secs(2), secs(3), OK)), dasks(0, 3, 20)),
			[]wantViolation{{dq, Liveness, secs(12), []string{`item "b", put at 2.000000s, was never taken, though c1 kept ` +
				`asking for an item for 21.000000s after it, past the bound of 10.000000s: 21 takes (20 took nothing, 1 took other items)`}}}},
		{"asking only as long as the bound", dhistory(100, putAB,
			dops(dtake(0, "a", secs(2), secs(3), OK)), dasks(0, 3, 7)), nil},
		{"a take of unknown outcome may have taken it", dhistory(100, putAB,
			dops(dtake(0, "a", secs(2), secs(3), OK), dtake(0, "", secs(3), secs(4), Unknown)), dasks(0, 4, 20)), nil},
		{"a take in doubt that ended before the put took nothing of it", dhistory(100,
			dops(dindoubt(0, secs(1), secs(2)), dput(1, "a", secs(5), secs(6), OK)), dasks(2, 6, 20)),
			[]wantViolation{{dq, Liveness, secs(16), []string{`item "a", put at 6.000000s, was never taken, though c3 kept asking`}}}},
		{"a take in doubt may have taken the item put while it waited", dhistory(9.0305,
			dops(dput(1, "x", secs(9), secs(9.02), OK), dindoubt(0, secs(8.02), secs(9.025)),
				dtake(0, "", secs(9.03), secs(9.0305), Pending))), nil},
		{"a consumer asks until its take in doubt returned, no longer", dhistory(100,
			dops(dindoubt(0, secs(1), secs(2)), dput(1, "a", secs(5), secs(6), OK), dput(1, "b", secs(6), secs(7), OK))), nil},
		{"a put of unknown outcome need not be taken", dhistory(100,
			dops(dput(1, "a", 0, secs(1), Unknown)), dasks(0, 1, 20)), nil},
		{"a consumer still asking when the run ended, short of the bound", dhistory(8, putAB,
			dops(dput(1, "c", secs(2), secs(2.5), OK), dtake(0, "a", secs(2), secs(3), OK), dtake(0, "", secs(3), secs(8), Pending))),
			// The pending take may have taken "b", the oldest left.
			[]wantViolation{{dq, Undecided, secs(8), []string{`item "c", put at 2.500000s, was never taken, and c1 was ` +
				`still asking for an item when the run ended, 5.500000s after the put`}}}},
		{"a consumer whose process stopped asks no more", dhistory(100, putAB,
			dops(dtake(0, "a", secs(2), secs(3), OK), op(0, Fail, dq, secs(5), secs(5), OK)), dasks(0, 3, 20)), nil},
		{"taken twice", dhistory(100, putAB,
			dops(dtake(0, "a", secs(2), secs(3), OK), dtake(2, "a", secs(2), secs(4), OK), dtake(0, "b", secs(3), secs(5), OK))),
			[]wantViolation{{dq, Safety, secs(4), []string{`item "a" was taken 2 times: by c1 at 3.000000s, by c3 at 4.000000s`}}}},
		{"taken, never put", dhistory(100, putAB,
			dops(dtake(0, "a", secs(2), secs(3), OK), dtake(0, "b", secs(3), secs(4), OK), dtake(0, "z", secs(4), secs(5), OK))),
			[]wantViolation{{dq, Safety, secs(5), []string{`c1 took "z" at 5.000000s, an item nobody put`}}}},
	}
	runCheckCases(t, "exactly-once", cases)
}

// The other promises each leave out one rule of exactly-once.
func TestAtMostAndAtLeastOnceChecks(t *testing.T) {
	putAB := dops(dput(1, "a", 0, secs(1), OK), dput(1, "b", secs(1), secs(2), OK))
	twice := dhistory(100, putAB, dops(dtake(0, "a", secs(2), secs(3), OK), dtake(2, "a", secs(2), secs(4), OK),
		dtake(0, "b", secs(3), secs(5), OK)))
	lost := dhistory(100, putAB, dops(dtake(0, "a", secs(2), secs(3), OK)), dasks(0, 3, 20))
	runCheckCases(t, "at-most-once", []checkCase{
		{"taken twice", twice, []wantViolation{{dq, Safety, secs(4), []string{`taken 2 times`}}}},
		{"lost", lost, nil},
	})
	runCheckCases(t, "at-least-once", []checkCase{
		{"taken twice", twice, nil},
		{"lost", lost, []wantViolation{{dq, Liveness, secs(12), []string{`item "b"`, "was never taken"}}}},
	})
}

// A take that took nothing changes nothing in the order checks.
func TestTakeOfNothingInTheQueueModels(t *testing.T) {
	ops := dops(dput(1, "a", 0, secs(1), OK), dtake(0, "", secs(1), secs(2), Failed), dtake(0, "a", secs(2), secs(3), OK))
	for _, m := range []Model{FIFOModel, PriorityQueueModel} {
		if vs := CheckModel(m, ops); len(vs) != 0 {
			t.Errorf("%s: %v", m.Name, vs)
		}
	}
	if got := Describe(ops[1]); got != "take /app/queue → nothing (gave up)" {
		t.Errorf("Describe = %q", got)
	}
}
