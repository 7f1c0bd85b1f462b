package models

import (
	"strings"
	"testing"
)

func TestLeaksCheck(t *testing.T) {
	ops := []Operation{op(0, Put, "/app/queue", 0, secs(1), OK), op(1, Take, "/app/queue", secs(1), secs(2), OK)}
	left := func(p string, client int) Leftover {
		return Leftover{Path: p, Creator: int64(0x10 + client), Client: client, Closed: secs(3)}
	}
	in := func(ls ...Leftover) Input { return Input{Ops: ops, End: secs(10), Leftovers: ls} }
	cases := []checkCase{
		{"nothing left", in(), nil},
		{"the recipe's object and the directories above it", in(left("/app", 0), left("/app/queue", 0)), nil},
		{"a receipt left under the queue", in(left("/app/queue", 0), left("/app/queue/receipts", 1), left("/app/queue/receipts/r1", 1)),
			[]wantViolation{{"/app/queue", Safety, secs(10), []string{`2 nodes were left behind by clients that had finished ` +
				`and closed their sessions: /app/queue/receipts (made by c2's session 0x11, closed at 3.000000s), /app/queue/receipts/r1`}}}},
		{"a node under no object", in(left("/other/x", 0)),
			[]wantViolation{{"/other", Safety, secs(10), []string{`1 node was left behind`, "/other/x (made by c1's session 0x10"}}}},
	}
	// A history written by hand may name objects without a leading slash.
	cases = append(cases, checkCase{"a relative object", Input{Ops: []Operation{op(0, Put, "queue", 0, 1, OK)}, End: secs(10),
		Leftovers: []Leftover{left("queue/r1", 0)}}, []wantViolation{{"queue", Safety, secs(10), []string{"queue/r1"}}}})
	for i := range cases[:len(cases)-1] {
		cases[i].in.Ops = ops
	}
	runLeaks(t, cases)
}

// runLeaks is runCheckCases without its demand that a violation show
// operations: a node left behind is shown by the node, not by an
// operation.
func runLeaks(t *testing.T, cases []checkCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			got := checkLeaks(&in)
			if len(got) != len(tc.want) {
				t.Fatalf("%d violations, want %d: %v", len(got), len(tc.want), got)
			}
			for i, w := range tc.want {
				v := got[i]
				if v.Object != w.object || v.Kind != w.kind || v.At != w.at {
					t.Errorf("violation %d is %s %s at %d, want %s %s at %d", i, v.Object, v.Kind, v.At, w.object, w.kind, w.at)
				}
				for _, say := range w.says {
					if !containsText(v.Message, say) {
						t.Errorf("violation %d says %q, not %q", i, v.Message, say)
					}
				}
			}
		})
	}
}

func containsText(s, sub string) bool { return strings.Contains(s, sub) }
