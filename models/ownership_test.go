package models

import "testing"

func TestOwnershipCheck(t *testing.T) {
	del := func(at float64, path string, owner int64, ownerClient int, by int64, byClient int) ForeignDelete {
		return ForeignDelete{At: secs(at), Path: path, Owner: owner, OwnerClient: ownerClient, By: by, ByClient: byClient}
	}
	// Each client waits for the lock the whole run: what it was doing.
	var ops []Operation
	for c := 0; c < 3; c++ {
		ops = append(ops, op(c, Acquire, "/app/lock", secs(1), secs(100), Pending))
	}
	in := func(ds ...ForeignDelete) Input { return Input{Ops: ops, End: secs(100), ForeignDeletes: ds} }
	cases := []checkCase{
		{"no foreign delete", in(), nil},
		{"a client cleaning up its own earlier session's node", in(del(5, "/app/lock/n-1", 0x11, 0, 0x12, 0)), nil},
		{"a node whose client had given its session up", in(ForeignDelete{At: secs(5), Path: "/app/lock/holder", Owner: 0x11,
			By: 0x21, ByClient: 1, GivenUp: true}), nil},
		{"another client's node", in(del(5, "/app/lock/holder", 0x11, 0, 0x21, 1)),
			[]wantViolation{{"/app/lock", Safety, secs(5), []string{`c2 (session 0x21) deleted /app/lock/holder at 5.000000s, ` +
				`an ephemeral node of c1's live session 0x11: a client may delete only its own nodes`}}}},
		{"two on one object, one on another", in(del(7, "/app/lock/holder", 0x11, 0, 0x21, 1),
			del(5, "/app/lock/holder", 0x31, 2, 0x21, 1), del(6, "/app/group/c1", 0x11, 0, 0x31, 2)),
			[]wantViolation{
				{"/app/group", Safety, secs(6), []string{`c3 (session 0x31) deleted /app/group/c1 at 6.000000s`}},
				{"/app/lock", Safety, secs(5), []string{`c2 (session 0x21) deleted /app/lock/holder at 5.000000s, an ephemeral node of c3's`,
					"; 1 more node was deleted so"}}}},
	}
	runCheckCases(t, "ownership", cases)
}
