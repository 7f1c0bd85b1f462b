package models

import "testing"

func TestDoubleBarrierCheck(t *testing.T) {
	const db = "/app/db/round-1"
	enter := func(c int, call, ret int64, res Result) Operation { return op(c, Enter, db, call, ret, res) }
	leave := func(c int, call, ret int64, res Result) Operation { return op(c, Leave, db, call, ret, res) }
	fail := func(c int, at int64) Operation { return op(c, Fail, db, at, at, OK) }
	sized := func(size int, ops ...Operation) Input { return Input{Ops: ops, End: secs(100), Size: size} }
	// A round of three that went right: all entered before any computed,
	// all called Leave before any left.
	good := []Operation{
		enter(0, 0, secs(3), OK), enter(1, secs(1), secs(3), OK), enter(2, secs(2), secs(3), OK),
		leave(0, secs(5), secs(8), OK), leave(1, secs(6), secs(8), OK), leave(2, secs(7), secs(8), OK),
	}
	cases := []checkCase{
		{"an empty history", sized(3), nil},
		{"a round that went right", sized(3, good...), nil},
		{"a round that went right, its size inferred", sized(0, good...), nil},
		{"an enter returning as the last is called", sized(2,
			enter(0, 0, secs(1), OK), enter(1, secs(1), secs(2), OK)), nil},
		{"entered before all had come", sized(3,
			enter(0, 0, secs(1), OK), enter(1, secs(0.5), secs(1.5), OK), enter(2, secs(2), secs(3), OK)),
			[]wantViolation{{db, Safety, secs(1), []string{"c1 entered /app/db/round-1 at 1.000000s", "only 2 of the 3 processes had called Enter (c1, c2)", "so did c2 at 1.500000s"}}}},
		{"entered before all had come, its size inferred", sized(0,
			enter(0, 0, secs(1), OK), enter(1, secs(0.5), secs(3), OK), enter(2, secs(2), secs(3), OK)),
			[]wantViolation{{db, Safety, secs(1), []string{"only 2 of the 3 processes", "no size was given: 3 is the number of clients that tried to enter"}}}},
		{"the early enter told is the first to return", sized(4,
			enter(0, 0, secs(5), OK), enter(1, secs(1), secs(3), OK), enter(2, secs(2), secs(4), OK), enter(3, secs(6), secs(7), OK)),
			[]wantViolation{{db, Safety, secs(3), []string{"c2 entered /app/db/round-1 at 3.000000s", "only 3 of the 4 processes had called Enter (c1, c2, c3)", "so did c3 at 4.000000s, c1 at 5.000000s"}}}},
		{"entered before the others, who are still waiting", sized(3,
			enter(0, 0, secs(1), OK), enter(1, secs(0.5), secs(100), Pending)),
			[]wantViolation{{db, Safety, secs(1), nil}}},
		{"an enter that failed with an error", sized(2,
			enter(0, 0, secs(1), OK), func() Operation {
				o := enter(1, secs(0.5), secs(2), Failed)
				o.OutData = "enter /app/db/round-1: zk: node does not exist"
				return o
			}()),
			[]wantViolation{{db, Safety, secs(2), []string{"c2's enter of /app/db/round-1 failed at 2.000000s: enter /app/db/round-1: zk: node does not exist; every process must enter and leave"}}}},
		{"an enter that failed with an error, as the workload records it", sized(2,
			enter(0, 0, secs(1), OK), failedCall(enter(1, secs(0.5), secs(2), Failed), "zk: node does not exist")),
			[]wantViolation{{db, Safety, secs(2), []string{"c2's enter of /app/db/round-1 failed at 2.000000s: enter /app/db/round-1: zk: node does not exist; every process must enter and leave"}}}},
		{"an enter made again after a failed call is one, from its first call", sized(3,
			enter(0, 0, secs(5), OK), failedCall(enter(1, secs(1), secs(1.5), Failed), "zk: connection closed"),
			enter(1, secs(2), secs(3), OK), enter(2, secs(4), secs(6), OK)),
			[]wantViolation{{db, Safety, secs(3), []string{"c2 entered /app/db/round-1 at 3.000000s (called at 1.000000s) when only 2 of the 3 processes had called Enter (c1, c2)"}}}},
		{"an enter whose node vanished, with its error, is a process that stopped", sized(2,
			enter(0, 0, secs(1), OK), failedCall(enter(1, secs(0.5), secs(2), Failed), "recipes: our node vanished (the session expired)"),
			fail(1, secs(0.5))), nil},
		{"a leave whose node vanished, with its error, is a process that stopped", sized(2,
			enter(0, 0, secs(1), OK), enter(1, secs(0.5), secs(1), OK),
			failedCall(leave(1, secs(2), secs(3), Failed), "recipes: our node vanished (the session expired)"), fail(1, secs(0.5)),
			leave(0, secs(2), secs(4), OK)), nil},
		{"an enter whose node vanished with its session is a process that stopped", sized(2,
			enter(0, 0, secs(1), OK), enter(1, secs(0.5), secs(2), Failed), fail(1, secs(0.5))), nil},
		{"still waiting to enter is not entering", sized(3,
			enter(0, 0, secs(100), Pending), enter(1, secs(0.5), secs(100), Pending)), nil},
		{"left before another had finished", sized(3,
			enter(0, 0, secs(3), OK), enter(1, secs(1), secs(3), OK), enter(2, secs(2), secs(3), OK),
			leave(0, secs(5), secs(6), OK), leave(1, secs(5), secs(6.5), OK), leave(2, secs(7), secs(8), OK)),
			[]wantViolation{{db, Safety, secs(6), []string{"c1 left /app/db/round-1 at 6.000000s", "while c3 (entered at 3.000000s) had not yet called Leave", "so did c2 at 6.500000s"}}}},
		{"left as the last called Leave", sized(3,
			enter(0, 0, secs(3), OK), enter(1, secs(1), secs(3), OK), enter(2, secs(2), secs(3), OK),
			leave(0, secs(5), secs(6), OK), leave(1, secs(5), secs(6), OK), leave(2, secs(5.9), secs(6), OK)), nil},
		{"left while one still computing, still waiting to leave itself", sized(2,
			enter(0, 0, secs(1), OK), enter(1, 0, secs(1), OK),
			leave(0, secs(2), secs(3), OK), leave(1, secs(50), secs(100), Pending)),
			[]wantViolation{{db, Safety, secs(3), []string{"c2 (entered at 1.000000s)"}}}},
		{"left after the one still computing failed", sized(3,
			enter(0, 0, secs(3), OK), enter(1, secs(1), secs(3), OK), enter(2, secs(2), secs(3), OK),
			fail(2, secs(4)), leave(0, secs(5), secs(6), OK), leave(1, secs(5), secs(6), OK)), nil},
		{"left before the one still computing failed", sized(3,
			enter(0, 0, secs(3), OK), enter(1, secs(1), secs(3), OK), enter(2, secs(2), secs(3), OK),
			leave(0, secs(5), secs(6), OK), leave(1, secs(5), secs(6), OK), fail(2, secs(7))),
			[]wantViolation{{db, Safety, secs(6), []string{"while c3"}}}},
		{"one that never entered is not waited for", sized(3,
			enter(0, 0, secs(3), OK), enter(1, secs(1), secs(3), OK), enter(2, secs(2), secs(100), Pending),
			leave(0, secs(5), secs(6), OK), leave(1, secs(5), secs(6), OK)),
			nil},
		{"both entered and left too early", sized(3,
			enter(0, 0, secs(1), OK), enter(1, 0, secs(1), OK), enter(2, secs(2), secs(3), OK),
			leave(0, secs(4), secs(5), OK), leave(1, secs(4), secs(5), OK)),
			[]wantViolation{{db, Safety, secs(1), []string{"entered"}}, {db, Safety, secs(5), []string{"left"}}}},
		{"each round on its own", Input{End: secs(100), Size: 2, Ops: []Operation{
			op(0, Enter, "/db/2", 0, secs(1), OK), op(1, Enter, "/db/2", secs(2), secs(3), OK),
			op(0, Enter, "/db/1", 0, secs(3), OK), op(1, Enter, "/db/1", secs(2), secs(3), OK)}},
			[]wantViolation{{"/db/2", Safety, secs(1), nil}}},
	}
	runCheckCases(t, "double-barrier", cases)
}
