package models

import (
	"math"
	"testing"
)

func TestTwoPhaseCommitCheck(t *testing.T) {
	const tx = "/app/tx-1"
	propose := func(c int, sites string, call, ret int64, res Result, decision string) Operation {
		o := op(c, Propose, tx, call, ret, res)
		o.Data, o.OutData = sites, decision
		return o
	}
	vote := func(c int, v string, call, ret int64, res Result, decision string) Operation {
		o := op(c, Vote, tx, call, ret, res)
		o.Data, o.OutData = v, decision
		return o
	}
	run := func(ops ...Operation) Input { return Input{Ops: ops, End: secs(100)} }
	cases := []checkCase{
		{"an empty history", run(), nil},
		{"all voted commit, all learnt commit", run(
			propose(0, "a,b", 0, secs(5), OK, "commit"),
			vote(1, "commit", secs(1), secs(5.5), OK, "commit"), vote(2, "commit", secs(2), secs(5.5), OK, "commit")), nil},
		{"one voted abort, all learnt abort", run(
			propose(0, "a,b", 0, secs(5), OK, "abort"),
			vote(1, "commit", secs(1), secs(5.5), OK, "abort"), vote(2, "abort", secs(2), secs(5.5), OK, "abort")), nil},
		{"a vote concurrent with the decision", run(
			propose(0, "a,b", 0, secs(5), OK, "commit"),
			vote(1, "commit", secs(1), secs(5.5), OK, "commit"), vote(2, "commit", secs(5), secs(5.5), OK, "commit")), nil},
		{"undecided: pending and unknown learn nothing", run(
			propose(0, "a,b", 0, secs(100), Pending, ""),
			vote(1, "commit", secs(1), math.MaxInt64, Unknown, ""), vote(2, "abort", secs(2), secs(100), Pending, "")), nil},
		{"a site learnt abort where the coordinator decided commit", run(
			propose(0, "a,b", 0, secs(5), OK, "commit"),
			vote(1, "commit", secs(1), secs(5.5), OK, "commit"), vote(2, "commit", secs(2), secs(6), OK, "abort")),
			[]wantViolation{{tx, Safety, secs(6), []string{`c1 learnt "commit" at 5.000000s (its propose), but c3 learnt "abort" at 6.000000s (its vote)`}}}},
		{"two sites learnt differently: one violation", run(
			propose(0, "a,b,c", 0, secs(5), OK, "abort"), vote(3, "abort", secs(1), secs(4), OK, "abort"),
			vote(1, "commit", secs(1), secs(7), OK, "commit"), vote(2, "commit", secs(2), secs(7), OK, "commit")),
			[]wantViolation{{tx, Safety, secs(7), []string{"c2 learnt commit of /app/tx-1 at 7.000000s (its vote), but c4 voted abort at 1.000000s"}},
				{tx, Safety, secs(7), []string{`c4 learnt "abort" at 4.000000s (its vote), but c2 learnt "commit" at 7.000000s`}}}},
		{"commit although a site voted abort", run(
			propose(0, "a,b", 0, secs(5), OK, "commit"),
			vote(1, "commit", secs(1), secs(5.5), OK, "commit"), vote(2, "abort", secs(2), secs(5.5), OK, "commit")),
			[]wantViolation{{tx, Safety, secs(5), []string{"c1 learnt commit of /app/tx-1 at 5.000000s (its propose), but c3 voted abort at 2.000000s"}}}},
		{"commit before every site voted", run(
			propose(0, "a,b", 0, secs(5), OK, "commit"),
			vote(1, "commit", secs(1), secs(5.5), OK, "commit"), vote(2, "commit", secs(6), secs(6.5), OK, "commit")),
			[]wantViolation{{tx, Safety, secs(5), []string{"only 1 of the 2 sites (a, b) had voted commit by then (c2 at 1.000000s)"}}}},
		{"commit with no vote at all", run(propose(0, "a,b", 0, secs(5), OK, "commit")),
			[]wantViolation{{tx, Safety, secs(5), []string{"only 0 of the 2 sites"}}}},
		{"a vote that failed is no vote", run(
			propose(0, "a", 0, secs(5), OK, "commit"),
			vote(1, "abort", secs(1), secs(1.5), Failed, ""), vote(1, "commit", secs(2), secs(5.5), OK, "commit")), nil},
		{"a vote made again after a failed call is one, from its first call", run(
			propose(0, "a", 0, secs(5), OK, "commit"),
			failedCall(vote(1, "commit", secs(1), secs(1.5), Failed, ""), "zk: connection closed"), vote(1, "commit", secs(6), secs(6.5), OK, "commit")), nil},
		{"a vote whose site failed before it voted is no vote", run(
			propose(0, "a", 0, secs(5), OK, "commit"),
			failedCall(vote(1, "abort", secs(1), secs(1.5), Failed, ""), "recipes: something no fault explains")),
			[]wantViolation{{tx, Safety, secs(5), []string{"only 0 of the 1 site (a) had voted commit by then"}}}},
		{"a site learnt commit though it had not voted, no coordinator recorded", run(
			vote(1, "commit", secs(1), secs(5), OK, "commit"), vote(2, "commit", secs(6), secs(7), OK, "commit")),
			[]wantViolation{{tx, Safety, secs(5), []string{"c2 learnt commit", "only 1 of the 2 voters"}}}},
		{"each transaction on its own", Input{End: secs(100), Ops: []Operation{
			{Client: 0, Kind: Propose, Path: "/tx-2", Data: "a", Call: 0, Return: secs(1), Result: OK, OutData: "commit"},
			{Client: 0, Kind: Propose, Path: "/tx-1", Data: "a", Call: 0, Return: secs(1), Result: OK, OutData: "abort"},
			{Client: 1, Kind: Vote, Path: "/tx-1", Data: "commit", Call: 0, Return: secs(1), Result: OK, OutData: "abort"}}},
			[]wantViolation{{"/tx-2", Safety, secs(1), []string{"only 0 of the 1 site (a)"}}}},
	}
	runCheckCases(t, "2pc", cases)
}
