package models

import (
	"math"
	"strings"
	"testing"
)

func TestCounterModel(t *testing.T) {
	const ctr = "/app/counter"
	add := func(c int, delta, value string, call, ret int64, res Result) Operation {
		o := op(c, Add, ctr, call, ret, res)
		o.Data, o.OutData = delta, value
		if res == Unknown {
			o.Return, o.OutData = math.MaxInt64, ""
		}
		return o
	}
	count := func(c int, value string, call, ret int64) Operation {
		o := op(c, Count, ctr, call, ret, OK)
		o.OutData = value
		return o
	}
	cases := []struct {
		name string
		ops  []Operation
		says string // "" when the history is linearizable
	}{
		{"an empty history", nil, ""},
		{"adds in turn", []Operation{
			add(0, "1", "1", 0, secs(1), OK), add(1, "10", "11", secs(2), secs(3), OK), count(2, "11", secs(4), secs(5))}, ""},
		{"concurrent adds, either order", []Operation{
			add(0, "1", "11", 0, secs(3), OK), add(1, "10", "10", secs(1), secs(2), OK), count(0, "11", secs(4), secs(5))}, ""},
		{"a count between two concurrent adds", []Operation{
			add(0, "1", "11", 0, secs(3), OK), add(1, "10", "10", 0, secs(3), OK), count(2, "10", secs(1), secs(2))}, ""},
		{"an unknown add that took effect", []Operation{
			add(0, "1", "", 0, secs(1), Unknown), add(1, "10", "11", secs(2), secs(3), OK), count(2, "11", secs(4), secs(5))}, ""},
		{"an unknown add that did not", []Operation{
			add(0, "1", "", 0, secs(1), Unknown), add(1, "10", "10", secs(2), secs(3), OK), count(2, "10", secs(4), secs(5))}, ""},
		{"an unknown add that took effect late", []Operation{
			add(0, "1", "", 0, secs(1), Unknown), add(1, "10", "10", secs(2), secs(3), OK), count(2, "11", secs(4), secs(5))}, ""},
		{"a pending add", []Operation{
			add(0, "5", "", 0, secs(9), Pending), count(1, "5", secs(4), secs(5))}, ""},
		{"a double increment", []Operation{
			add(0, "1", "2", 0, secs(1), OK), add(1, "10", "12", secs(2), secs(3), OK), count(2, "12", secs(4), secs(5))},
			"more than every add made adds up to (11): an increment was applied twice"},
		{"a double increment read by a count", []Operation{
			add(0, "1", "1", 0, secs(1), OK), count(1, "2", secs(2), secs(3))},
			"c2's count /app/counter → ok 2 shows 2, more than every add made adds up to (1)"},
		{"a lost increment: two adds made the same value", []Operation{
			add(0, "1", "1", 0, secs(2), OK), add(1, "1", "1", secs(1), secs(3), OK)},
			"c1's add /app/counter +1 → ok 1 and c2's add /app/counter +1 → ok 1 both made 1"},
		{"a lost increment: a count too low", []Operation{
			add(0, "1", "1", 0, secs(1), OK), add(1, "10", "11", secs(2), secs(3), OK), count(2, "10", secs(4), secs(5))},
			"after every add had returned, is below the 11 they added: an increment was lost"},
		{"a lost increment beside an unknown add", []Operation{
			add(0, "1", "", 0, secs(1), Unknown), add(1, "10", "10", secs(2), secs(3), OK), add(2, "10", "10", secs(2), secs(4), OK)},
			"both made 10"},
		{"a stale count: below an add that returned before it, which later reads see", []Operation{
			add(0, "1", "1", 0, secs(1), OK), add(1, "10", "11", secs(2), secs(3), OK), count(2, "1", secs(4), secs(5)),
			count(2, "11", secs(6), secs(7))},
			"c3's count /app/counter → ok 1 was called after c2's add /app/counter +10 → ok 11 had returned, and later " +
				"operations saw that add: a stale read"},
		{"a count gone back", []Operation{
			add(0, "1", "1", 0, secs(1), OK), count(1, "1", secs(2), secs(3)), count(1, "0", secs(4), secs(5))},
			"an increment was lost"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := CheckModel(CounterModel, tc.ops)
			for _, v := range got {
				t.Logf("%s", v)
			}
			switch {
			case tc.says == "" && len(got) > 0:
				t.Fatalf("%d violations, want none", len(got))
			case tc.says == "":
			case len(got) != 1:
				t.Fatalf("%d violations, want one", len(got))
			case got[0].Check != "counter" || got[0].Kind != Safety || got[0].Object != ctr:
				t.Errorf("violation %s %s on %s, want counter safety on %s", got[0].Check, got[0].Kind, got[0].Object, ctr)
			case !strings.Contains(got[0].Message, tc.says):
				t.Errorf("the message %q does not say %q", got[0].Message, tc.says)
			}
		})
	}
	if c, err := Lookup("counter"); err != nil || c.Kind != Safety {
		t.Errorf("the counter check is not registered: %v", err)
	}
}

func TestDescribeCounterOperations(t *testing.T) {
	for _, tc := range []struct {
		op   Operation
		want string
	}{
		{Operation{Kind: Add, Path: "/c", Data: "5", Result: OK, OutData: "17"}, "add /c +5 → ok 17"},
		{Operation{Kind: Add, Path: "/c", Data: "-2", Result: Unknown}, "add /c -2 → unknown"},
		{Operation{Kind: Count, Path: "/c", Result: OK, OutData: "17"}, "count /c → ok 17"},
	} {
		if got := Describe(tc.op); got != tc.want {
			t.Errorf("Describe = %q, want %q", got, tc.want)
		}
	}
}
