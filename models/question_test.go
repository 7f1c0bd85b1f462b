package models

import (
	"strings"
	"testing"
	"time"
)

// questionCase is a history that makes one check ask one question: the
// violation's message before an answer (the check's words), and after the
// answer "CAUSE" (Explain).
type questionCase struct {
	question Question
	check    string
	in       Input
	asked    string // a part of the message the check words
	answered string // a part of the message once answered, "" for the end
}

// questionCases are a history for each question, each judged by the check
// that asks it.
func questionCases() []questionCase {
	const l, g, db, k = "/l", "/g", "/db", "/k"
	stuck := func(permits int) Input {
		return Input{Ops: []Operation{op(0, Acquire, l, secs(1), secs(50), Pending), op(1, Acquire, l, secs(2), secs(50), Pending)},
			End: secs(50), Stuck: true, Permits: permits}
	}
	failed := op(1, Enter, db, secs(0.5), secs(2), Failed)
	failed.OutData = "enter /db: zk: node exists"
	join := op(0, Join, g, 0, secs(1), OK)
	join.Data = "a"
	view := op(2, View, g, secs(2), secs(2), OK)
	view.OutData = ""
	return []questionCase{
		{OrphanedNode, "liveness", stuck(0), "more than the bound (30s): an orphaned node?; so did c2",
			"more than the bound (30s): CAUSE; so did c2"},
		{LeaseLeft, "liveness", stuck(3), "more than the bound (30s): an orphaned lease node, or a waiter that missed a lease's release?; so did c2",
			"more than the bound (30s): CAUSE; so did c2"},
		{StaleRead, "store", Input{Ops: []Operation{
			{Client: 0, Kind: Create, Path: k, Data: "v0", Result: OK, Call: 0, Return: 1},
			{Client: 0, Kind: Set, Path: k, Data: "v1", Version: -1, Result: OK, OutVersion: 1, Call: 2, Return: 3},
			{Client: 1, Kind: Get, Path: k, Result: OK, OutData: "v0", OutVersion: 0, Call: 4, Return: 5},
		}}, "a stale read, from a server that had not applied the write yet (sync() before", "a stale read, CAUSE (sync() before"},
		{TwoHolders, "mutex", Input{Ops: []Operation{lkAcquire(0, 1, 0, 10), lkAcquire(1, 2, 5, 20)}}, "c1 and c2 held it at once", ""},
		{TwoHolders, "semaphore", Input{Ops: []Operation{lkAcquire(0, 1, 0, 10), lkAcquire(1, 2, 5, 15), lkAcquire(2, 3, 6, 16)}, Permits: 2},
			"c1, c2 and c3 held it at once, where at most 2 may", ""},
		{LostItem, "exactly-once", dhistory(100, dops(dput(1, "a", 0, secs(1), OK), dput(1, "b", secs(1), secs(2), OK)),
			dops(dtake(0, "a", secs(2), secs(3), OK)), dasks(0, 3, 20)), `though c1 kept asking for an item`, ""},
		{FailedStep, "double-barrier", Input{Ops: []Operation{op(0, Enter, db, 0, secs(1), OK), failed}, End: secs(100), Size: 2},
			"every process must enter and leave, and this one could not", "this one could not: CAUSE"},
		{Unconverged, "membership", Input{Ops: []Operation{join, view}, End: secs(100), Bound: 30 * time.Second},
			"it did not converge within the bound (30s)", ""},
	}
}

// Each question is asked by the check that raises it, on the violation
// whose cause a run can tell, and Explain words the answer into the
// message where the check's guess stood, or after what it said.
func TestEachCheckAsksItsQuestion(t *testing.T) {
	for _, tc := range questionCases() {
		t.Run(string(tc.question)+" "+tc.check, func(t *testing.T) {
			vs, err := Run(&tc.in, tc.check)
			if err != nil {
				t.Fatal(err)
			}
			var v *Violation
			for i := range vs {
				if vs[i].Question != NoQuestion {
					if v != nil {
						t.Fatalf("two violations ask: %v", vs)
					}
					v = &vs[i]
				}
			}
			if v == nil || v.Question != tc.question {
				t.Fatalf("%v: want one asking %s", vs, tc.question)
			}
			if !strings.Contains(v.Message, tc.asked) {
				t.Errorf("the check says %q; want it to say %q", v.Message, tc.asked)
			}
			asked := v.Message
			v.Explain("CAUSE")
			want := tc.answered
			if want == "" {
				want = asked + "; CAUSE"
			}
			if v.Cause != "CAUSE" || !strings.Contains(v.Message, want) || strings.Contains(v.Message, "?") {
				t.Errorf("answered, it says %q (cause %q); want it to say %q", v.Message, v.Cause, want)
			}
			before := v.Message
			v.Explain("AGAIN") // a guess is replaced once; what follows the message is added again
			if tc.answered != "" && tc.question != FailedStep && v.Message != before {
				t.Errorf("answered twice, a guess replaced again: %q", v.Message)
			}
		})
	}
}

// A violation that asks nothing is not changed by an answer, nor is an
// empty answer worded; questions read back from JSON are known.
func TestExplainLeavesTheUnasked(t *testing.T) {
	v := Violation{Check: "client", Kind: Safety, Message: "c1 failed: an orphaned node?"}
	v.Explain("CAUSE")
	if v.Message != "c1 failed: an orphaned node?" || v.Cause != "" {
		t.Errorf("a violation that asked nothing was answered: %+v", v)
	}
	w := Violation{Question: TwoHolders, Message: "c1 and c2 held it at once"}
	w.Explain("")
	if w.Message != "c1 and c2 held it at once" {
		t.Errorf("an empty answer worded: %q", w.Message)
	}
	for _, q := range Questions() {
		if !q.Known() {
			t.Errorf("%s unknown", q)
		}
	}
	if Question("orphaned").Known() {
		t.Error("a question no check asks is known")
	}
}
