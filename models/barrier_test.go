package models

import (
	"math"
	"testing"
)

func TestBarrierCheck(t *testing.T) {
	const b = "/app/barrier"
	raise := func(c int, call, ret int64) Operation { return op(c, Raise, b, call, ret, OK) }
	lower := func(c int, call, ret int64, res Result) Operation { return op(c, Lower, b, call, ret, res) }
	pass := func(c int, call, ret int64, res Result) Operation { return op(c, Pass, b, call, ret, res) }
	run := func(ops ...Operation) Input { return Input{Ops: ops, End: secs(100)} }
	cases := []checkCase{
		{"an empty history", run(), nil},
		{"a pass after the lowering", run(
			raise(0, 0, secs(1)), pass(1, secs(2), secs(5), OK), lower(0, secs(4), secs(4.5), OK)), nil},
		{"a pass concurrent with the lowering", run(
			raise(0, 0, secs(1)), pass(1, secs(2), secs(5), OK), lower(0, secs(4), secs(6), OK)), nil},
		{"a pass concurrent with a lowering of unknown result", run(
			raise(0, 0, secs(1)), pass(1, secs(2), secs(5), OK), lower(0, secs(4), math.MaxInt64, Unknown)), nil},
		{"a pass called before the raise returned", run(
			raise(0, 0, secs(1)), pass(1, secs(0.5), secs(0.6), OK)), nil},
		{"a pass with no raise", run(pass(1, secs(1), secs(2), OK)), nil},
		{"a pass still waiting at the end", run(
			raise(0, 0, secs(1)), pass(1, secs(2), secs(100), Pending)), nil},
		{"a pass while the barrier is up", run(
			raise(0, 0, secs(1)), pass(1, secs(2), secs(3), OK), lower(0, secs(4), secs(5), OK)),
			[]wantViolation{{b, Safety, secs(3), []string{"c2 passed /app/barrier at 3.000000s (called at 2.000000s)", "c1 had raised it at 1.000000s", "no Lower that could have removed it had been called"}}}},
		{"many passes while it is up: one violation", run(
			raise(0, 0, secs(1)), pass(2, secs(2), secs(4), OK), pass(1, secs(2), secs(3), OK), pass(3, secs(2), secs(10), OK),
			lower(0, secs(5), secs(6), OK)),
			[]wantViolation{{b, Safety, secs(3), []string{"c2 passed", "so did c3 at 4.000000s"}}}},
		{"a lowering that failed did not lower it", run(
			raise(0, 0, secs(1)), lower(0, secs(2), secs(2.5), Failed), pass(1, secs(2), secs(3), OK)),
			[]wantViolation{{b, Safety, secs(3), nil}}},
		{"a lowering made again after a failed call lowered it from its first call", run(
			raise(0, 0, secs(1)), failedCall(lower(0, secs(2), secs(2.5), Failed), "zk: connection closed"),
			pass(1, secs(1.5), secs(2.4), OK), lower(0, secs(2.6), secs(3), OK)), nil},
		{"a raise made again after a failed call, and a pass while it is up", run(
			failedCall(op(0, Raise, b, 0, secs(1), Failed), "zk: connection closed"), raise(0, secs(1.5), secs(2)),
			failedCall(pass(1, secs(2.5), secs(3), Failed), "zk: connection closed"), pass(1, secs(3.5), secs(4), OK),
			lower(0, secs(5), secs(6), OK)),
			[]wantViolation{{b, Safety, secs(4), []string{"c2 passed /app/barrier at 4.000000s (called at 2.500000s)", "c1 had raised it at 2.000000s"}}}},
		{"a lowering over before the raise", run(
			lower(0, 0, secs(0.5), OK), raise(0, secs(1), secs(2)), pass(1, secs(3), secs(4), OK)),
			[]wantViolation{{b, Safety, secs(4), nil}}},
		{"raised again after a lowering", run(
			raise(0, 0, secs(1)), lower(0, secs(2), secs(3), OK), pass(1, secs(2.5), secs(3.5), OK),
			raise(0, secs(4), secs(5)), pass(1, secs(6), secs(7), OK)),
			[]wantViolation{{b, Safety, secs(7), []string{"c1 had raised it at 5.000000s"}}}},
		{"each barrier on its own", run(
			op(0, Raise, "/b2", 0, secs(1), OK), op(1, Pass, "/b2", secs(2), secs(3), OK),
			op(0, Raise, "/b1", 0, secs(1), OK), op(1, Pass, "/b1", secs(2), secs(4), OK),
			op(0, Raise, "/b3", 0, secs(1), OK), op(0, Lower, "/b3", secs(1), secs(2), OK), op(1, Pass, "/b3", secs(2), secs(3), OK)),
			[]wantViolation{{"/b1", Safety, secs(4), nil}, {"/b2", Safety, secs(3), nil}}},
	}
	runCheckCases(t, "barrier", cases)
}
