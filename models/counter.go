package models

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// CounterModel is the porcupine model of a shared counter: its state is
// the value (0 before any add). An Add of delta that returned OK made the
// value OutData, delta above the state; a Count that returned OK read the
// state. An Add whose outcome the caller does not know (Unknown: its Return
// is the end of time; Pending: it had not returned when the run ended) adds
// its delta wherever porcupine places it after its call: placed after every
// other operation, it is an add that never took effect, so both outcomes
// are allowed. Other results change nothing.
//
// A counter does not block: no operation waits for another, so the kind
// has no liveness check.
var CounterModel = Model{
	Name:          "counter",
	Doc:           "shared counter (each add changes the value by its delta, once)",
	Kinds:         []OpKind{Add, Count},
	Init:          func() any { return int64(0) },
	Step:          func(state any, op Operation) (bool, any) { return counterStep(state.(int64), op) },
	DescribeState: func(state any) string { return strconv.FormatInt(state.(int64), 10) },
	Explain:       func(ops []Operation) Explanation { return because(counterExplain(ops)) },
}

func init() { registerModel(CounterModel) }

// number reads a counter operation's decimal field (0 when it is not one:
// the step then fails on it, unless it is 0).
func number(s string) int64 {
	n, _ := strconv.ParseInt(strings.TrimPrefix(s, "+"), 10, 64)
	return n
}

// signed is a delta as a person reads it: "+5", "-2".
func signed(delta string) string {
	if n := number(delta); n >= 0 {
		return "+" + strconv.FormatInt(n, 10)
	}
	return delta
}

// counterStep is the counter's sequential specification.
func counterStep(v int64, op Operation) (bool, int64) {
	switch op.Kind {
	case Add:
		next := v + number(op.Data)
		switch op.Result {
		case OK:
			return number(op.OutData) == next, next
		case Unknown, Pending:
			return true, next
		}
		return true, v // it did not happen
	case Count:
		if op.Result == OK {
			return number(op.OutData) == v, v
		}
		return true, v
	}
	return false, v
}

// counterExplain says what in a counter's operations shows an increment
// applied twice or lost, when every delta is positive (otherwise, or when
// it cannot tell, nothing):
//
//   - a value read or made above the sum of every add's delta (those of
//     unknown outcome too): some increment was applied twice;
//   - two adds that returned OK and made the same value: one of them
//     overwrote the other, which was lost;
//   - a count below the value an add made that returned before the count
//     was called, where an operation after the count saw that add's
//     effect: the count was a stale read (its server had not applied the
//     add yet; ZooKeeper's reads are not linearizable, and a count must
//     follow a sync to see every add that returned);
//   - a count, called after every add of known outcome returned, below
//     the sum of their deltas: an increment was lost.
func counterExplain(ops []Operation) (string, []Operation) {
	var all, known int64 // the deltas of every add, of those that returned OK
	for _, op := range Of(ops, Add) {
		d := number(op.Data)
		if d <= 0 {
			return "", nil
		}
		all += d
		if op.Result == OK {
			known += d
		}
	}
	seen := Of(okOps(ops), Add, Count)
	slices.SortStableFunc(seen, func(a, b Operation) int {
		return cmp.Or(cmp.Compare(a.Return, b.Return), cmp.Compare(a.Client, b.Client))
	})
	for _, op := range seen {
		if v := number(op.OutData); v > all {
			return fmt.Sprintf("c%d's %s shows %d, more than every add made adds up to (%d): an increment was applied twice",
				op.Client+1, Describe(op), v, all), []Operation{op}
		}
	}
	made := map[int64]Operation{}
	for _, op := range seen {
		if op.Kind != Add {
			continue
		}
		v := number(op.OutData)
		if first, ok := made[v]; ok {
			return fmt.Sprintf("c%d's %s and c%d's %s both made %d: one overwrote the other, whose increment was lost",
				first.Client+1, Describe(first), op.Client+1, Describe(op), v), []Operation{first, op}
		}
		made[v] = op
	}
	if why, involved := staleCount(ops); why != "" {
		return why, involved
	}
	var lastAdd int64
	for _, op := range Of(okOps(ops), Add) {
		lastAdd = max(lastAdd, op.Return)
	}
	for _, op := range Of(okOps(ops), Count) {
		if op.Call > lastAdd && number(op.OutData) < known {
			return fmt.Sprintf("c%d's %s, after every add had returned, is below the %d they added: an increment was lost",
				op.Client+1, Describe(op), known), []Operation{op}
		}
	}
	return "", nil
}

// staleCount finds a count below the value made by an add that returned
// before the count was called, that add's effect seen after the count
// (so it was not lost): the count read a server that had not applied it.
// It names the highest such add.
func staleCount(ops []Operation) (string, []Operation) {
	adds, counts := Of(okOps(ops), Add), Of(okOps(ops), Count)
	seenAfter := func(v, t int64) bool {
		for _, op := range okOps(ops) {
			if (op.Kind == Add || op.Kind == Count) && op.Call > t && number(op.OutData) >= v {
				return true
			}
		}
		return false
	}
	for _, c := range counts {
		var before *Operation
		for i, a := range adds {
			made := number(a.OutData)
			if a.Return < c.Call && number(c.OutData) < made && seenAfter(made, c.Return) &&
				(before == nil || made > number(before.OutData)) {
				before = &adds[i]
			}
		}
		if before != nil {
			return fmt.Sprintf("c%d's %s was called after c%d's %s had returned, and later operations saw that add: "+
				"a stale read (c%d's server had not applied the add yet: ZooKeeper's reads are not linearizable, "+
				"and a count sees every add that returned only after a sync)",
				c.Client+1, Describe(c), before.Client+1, Describe(*before), c.Client+1), []Operation{*before, c}
		}
	}
	return "", nil
}
