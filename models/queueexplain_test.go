package models

import (
	"strings"
	"testing"
)

// A queue's violation says what no queue allows, naming the operations:
// an item taken twice, one taken out of order, a less urgent one taken
// first; a read-write lock's, the writer that held it beside another.
func TestQueueAndRWLockExplanations(t *testing.T) {
	put := func(c int, item string, prio int, call, ret int64) Operation {
		return Operation{Client: c, Kind: Put, Path: "/q", Data: item, Priority: prio, Result: OK, Call: call, Return: ret}
	}
	take := func(c int, item string, call, ret int64) Operation {
		return Operation{Client: c, Kind: Take, Path: "/q", OutData: item, Result: OK, Call: call, Return: ret}
	}
	for _, tc := range []struct {
		name     string
		ops      []Operation
		priority bool
		want     string
		named    int
	}{
		{"taken twice", []Operation{put(0, "a", 0, 0, 1), take(1, "a", 2, 3), take(2, "a", 4, 5)}, false,
			`"a" was taken twice: by c2 at 0.000000s and by c3 at 0.000000s (c1 put it with one call`, 3},
		{"out of order", []Operation{put(0, "a", 0, 0, 1), put(0, "b", 0, 2, 3), take(1, "b", 4, 5)}, false,
			`c2 took "b" at 0.000000s, put by c1 at 0.000000s, while "a", put by c1 before that put was called`, 3},
		{"less urgent first", []Operation{put(0, "a", 5, 0, 1), put(0, "b", 1, 2, 3), take(1, "a", 4, 5)}, true,
			`c2 took "a" (priority 5) at 0.000000s while "b" (priority 1, more urgent)`, 3},
		{"never put", []Operation{take(1, "z", 4, 5)}, false, `c2 took "z" at 0.000000s, which nobody put`, 1},
		{"in order", []Operation{put(0, "a", 0, 0, 1), put(0, "b", 0, 2, 3), take(1, "a", 4, 5)}, false, "", 0},
	} {
		why, named := queueMistake(tc.ops, tc.priority)
		if tc.want == "" && why != "" || !strings.Contains(why, tc.want) || len(named) != tc.named {
			t.Errorf("%s: %q naming %d operations; want %q naming %d", tc.name, why, len(named), tc.want, tc.named)
		}
	}
	rw := []Operation{
		{Client: 0, Kind: Acquire, Path: "/l", Shared: true, Result: OK, Call: 0, Return: 10},
		{Client: 1, Kind: Acquire, Path: "/l", Shared: true, Result: OK, Call: 0, Return: 20},
		{Client: 2, Kind: Acquire, Path: "/l", Result: OK, Call: 0, Return: 30},
		{Client: 0, Kind: Release, Path: "/l", Result: OK, Call: 40, Return: 41},
	}
	e := writerTogether(rw)
	if !strings.Contains(e.Why, "c1 and c3 held it at once: c1 (to read)") || !strings.Contains(e.Why, "c3 (to write)") || len(e.Named) < 3 || e.At != 30 {
		t.Errorf("rwlock: %q naming %d at %d; want the reader c1 and the writer c3, from 30", e.Why, len(e.Named), e.At)
	}
	if e := writerTogether(rw[:2]); e.Why != "" {
		t.Errorf("two readers together: %q; want nothing to explain", e.Why)
	}
}

// Where several items were passed over, the explanation names the first
// put, on every run: the same history explains itself the same way (a
// replay prints what the run printed).
func TestQueueExplanationNamesTheFirstPassedOver(t *testing.T) {
	var ops []Operation
	for i, item := range []string{"u1", "u2", "u3", "u4", "u5", "u6"} {
		ops = append(ops, Operation{Client: i, Kind: Put, Path: "/q", Data: item, Priority: 0, Result: OK, Call: int64(i), Return: int64(i) + 1})
	}
	ops = append(ops,
		Operation{Client: 9, Kind: Put, Path: "/q", Data: "late", Priority: 7, Result: OK, Call: 20, Return: 21},
		Operation{Client: 8, Kind: Take, Path: "/q", OutData: "late", Result: OK, Call: 30, Return: 31})
	for range 50 {
		why, _ := queueMistake(ops, true)
		if !strings.Contains(why, `while "u1" (priority 0, more urgent), put by c1`) {
			t.Fatalf("explained as %q; want the first item passed over, u1", why)
		}
	}
}
