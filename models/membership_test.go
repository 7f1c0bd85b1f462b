package models

import (
	"testing"
	"time"
)

func TestMembershipCheck(t *testing.T) {
	const g = "/app/group"
	join := func(c int, m string, call, ret int64, res Result) Operation {
		o := op(c, Join, g, call, ret, res)
		o.Data = m
		return o
	}
	leave := func(c int, m string, call, ret int64) Operation {
		o := op(c, Leave, g, call, ret, OK)
		o.Data = m
		return o
	}
	fail := func(c int, m string, at int64) Operation {
		o := op(c, Fail, g, at, at, OK)
		o.Data = m
		return o
	}
	view := func(c int, members string, at int64) Operation {
		o := op(c, View, g, at, at, OK)
		o.OutData = members
		return o
	}
	until := func(end int64, ops ...Operation) Input {
		return Input{Ops: ops, End: end, Bound: 30 * time.Second}
	}
	// c1 and c2 join as a and b, by 2s.
	joins := []Operation{join(0, "a", 0, secs(1), OK), join(1, "b", secs(1), secs(2), OK)}
	with := func(ops ...Operation) []Operation { return append(append([]Operation(nil), joins...), ops...) }
	cases := []checkCase{
		{"an empty history", until(secs(100)), nil},
		{"the watcher sees both members", until(secs(100), with(view(2, "a", secs(1.5)), view(2, "a,b", secs(2.5)))...), nil},
		{"the watcher's view in another order", until(secs(100), with(view(2, "b,a", secs(2.5)))...), nil},
		{"no change and nobody in the group", until(secs(100), view(2, "", secs(1))), nil},
		{"the watcher missed a join", until(secs(100), with(view(2, "a", secs(1.5)))...),
			[]wantViolation{{g, Liveness, secs(32), []string{`c3's last view of /app/group, at 1.500000s, was "a", but the live members are "a,b" since the last change (c2's join of "b", at 2.000000s) (b missing from the view)`, "within the bound (30s)"}}}},
		// A cache answers from what it knows, with no request: several
		// views in one instant, the last of them the one it ends with.
		{"views in one instant, the last right", until(secs(100), with(view(2, "a", secs(3)), view(2, "a,b,c", secs(3)),
			view(2, "a,b", secs(3)))...), nil},
		{"a run too short to judge", until(secs(31), with(view(2, "a", secs(1.5)))...),
			[]wantViolation{{g, Undecided, secs(31), []string{`the run ended at 31.000000s, before the last change (c2's join of "b", at 2.000000s) plus the bound (30s)`}}}},
		{"a run too short to judge, but nobody watched", until(secs(31), joins...), nil},
		{"the watcher saw a stale view after the deadline", until(secs(100),
			with(view(2, "a,b", secs(3)), view(2, "a", secs(40)), view(2, "a,b", secs(50)))...),
			[]wantViolation{{g, Liveness, secs(40), []string{`c3 saw "a" in /app/group at 40.000000s, more than the bound (30s) after the last change (c2's join of "b", at 2.000000s), though the live members are "a,b"`}}}},
		{"a stale view after the deadline, and no right one after", until(secs(100),
			with(view(2, "a", secs(3)), view(2, "a", secs(40)))...),
			[]wantViolation{{g, Liveness, secs(40), []string{`c3's last view of /app/group, at 40.000000s, was "a"`}}}},
		{"a stale view before the deadline, then the right one", until(secs(100),
			with(view(2, "a", secs(3)), view(2, "a,b", secs(31)))...), nil},
		{"a member that left", until(secs(100), with(leave(0, "a", secs(5), secs(6)), view(2, "b", secs(7)))...), nil},
		{"a watcher that missed a leave", until(secs(100), with(leave(0, "a", secs(5), secs(6)), view(2, "a,b", secs(3)))...),
			[]wantViolation{{g, Liveness, secs(36), []string{`the live members are "b" since the last change (c1's leave of "a", at 6.000000s) (a in it and no member)`}}}},
		{"a member that failed", until(secs(100), with(fail(0, "a", secs(5)), view(2, "b", secs(20)))...), nil},
		{"a watcher that missed a failure", until(secs(100), with(fail(0, "a", secs(5)), view(2, "a,b", secs(20)))...),
			[]wantViolation{{g, Liveness, secs(35), []string{`the live members are "b" since the last change (c1's fail of "a", at 5.000000s)`}}}},
		{"a member that left and joined again", until(secs(100),
			with(leave(0, "a", secs(5), secs(6)), join(0, "a", secs(7), secs(8), OK), view(2, "a,b", secs(9)))...), nil},
		{"an idempotent join answered at the instant its leave returned: the join came last", until(secs(100),
			with(leave(0, "a", secs(5), secs(6)), join(0, "a", secs(6), secs(6), OK), view(2, "a,b", secs(9)))...), nil},
		{"a leave answered at the instant a join returned: the leave came last", until(secs(100),
			with(join(0, "a", secs(5), secs(6), OK), leave(0, "a", secs(6), secs(6)), view(2, "b", secs(9)))...), nil},
		{"a join of unknown result is no change", until(secs(100),
			with(join(3, "d", secs(5), never, Unknown), view(2, "a,b", secs(9)))...), nil},
		{"a join still pending is no change", until(secs(100),
			with(join(3, "d", secs(5), secs(100), Pending), view(2, "a,b", secs(9)))...), nil},
		{"one watcher converged, the other not", until(secs(100), with(view(2, "a,b", secs(3)), view(3, "a", secs(3)))...),
			[]wantViolation{{g, Liveness, secs(32), []string{"c4's last view"}}}},
		{"two watchers that did not converge", until(secs(100), with(view(3, "b", secs(3)), view(2, "a", secs(3)))...),
			[]wantViolation{{g, Liveness, secs(32), []string{"c3's last view"}}, {g, Liveness, secs(32), []string{"c4's last view"}}}},
		{"a watcher that stopped is not judged", until(secs(100), with(view(2, "a", secs(1.5)), op(2, Fail, "/elsewhere", secs(10), secs(10), OK))...), nil},
		{"a member that watches", until(secs(100), with(view(0, "a,b", secs(3)), view(1, "a", secs(3)))...),
			[]wantViolation{{g, Liveness, secs(32), []string{"c2's last view"}}}},
		{"nobody in the group, but a watcher saw someone", until(secs(100), view(2, "a", secs(40))),
			[]wantViolation{{g, Liveness, secs(40), []string{`c3's last view of /app/group, at 40.000000s, was "a", but the live members are "" since the start of the run (no member changed)`}}}},
		{"each group on its own", until(secs(100),
			Operation{Client: 0, Kind: Join, Path: "/g2", Data: "a", Call: 0, Return: secs(1), Result: OK},
			Operation{Client: 1, Kind: View, Path: "/g2", Call: secs(2), Return: secs(2), Result: OK, OutData: "a"},
			Operation{Client: 0, Kind: Join, Path: "/g1", Data: "a", Call: 0, Return: secs(1), Result: OK},
			Operation{Client: 1, Kind: View, Path: "/g1", Call: secs(2), Return: secs(2), Result: OK, OutData: ""}),
			[]wantViolation{{"/g1", Liveness, secs(31), []string{`was "", but the live members are "a"`}}}},
	}
	runCheckCases(t, "membership", cases)
}
