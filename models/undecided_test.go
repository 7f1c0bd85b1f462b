package models

import (
	"strings"
	"testing"
	"time"
)

// A check that runs out of its time limit reports the object as
// undecided, never as a pass; without a limit the same history is
// decided. The model's Step takes a millisecond, so porcupine needs far
// longer than the limit to find the linearization it would find.
func TestUndecidedIsNeverAPass(t *testing.T) {
	slow := Model{Name: "slow", Doc: "set that takes its time", Kinds: []OpKind{Set},
		Init: func() any { return 0 },
		Step: func(state any, op Operation) (bool, any) {
			time.Sleep(time.Millisecond)
			return true, state.(int) + 1
		},
		DescribeState: func(any) string { return "" }}
	var ops []Operation
	for i := range 200 {
		ops = append(ops, Operation{Client: i, Kind: Set, Path: "/x", Result: OK, Call: 0, Return: 1000})
	}
	vs := CheckModelWithin(slow, ops, 20*time.Millisecond)
	if len(vs) != 1 || vs[0].Kind != Undecided || vs[0].Object != "/x" || !strings.Contains(vs[0].Message, "could not decide within 20ms") {
		t.Fatalf("within 20ms: %v, want one undecided violation on /x", vs)
	}
	if vs := CheckModelWithin(slow, ops, 0); len(vs) != 0 {
		t.Errorf("without a limit: %v, want none", vs)
	}
}
