package models

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"
)

// The lock models' Narrow and Witness must never change a verdict. These
// tests compare, on many short random histories, linearizable and not,
// what CheckModel says (and what porcupine says of Narrow's parts, and
// whether Witness's order is a linearization) with what porcupine says of
// the operations as recorded.

// lockModels are the models of a lock, with their reference verdict:
// porcupine's on the operations as Prepare leaves them.
var lockModels = []Model{MutexModel, ElectionModel, FencedMutexModel, RWLockModel}

// refVerdict is porcupine's verdict on ops, as CheckModel reached it
// before it had Narrow and Witness.
func refVerdict(m Model, ops []Operation) bool {
	if m.Prepare != nil {
		ops = m.Prepare(ops)
	}
	return porcupine.CheckOperations(m.Porcupine(), Porcupine(ops))
}

// partsVerdict is porcupine's verdict on the parts m.Narrow makes of ops
// (as Prepare leaves them), each checked on its own.
func partsVerdict(m Model, ops []Operation) bool {
	if m.Prepare != nil {
		ops = m.Prepare(ops)
	}
	for _, p := range m.Narrow(ops) {
		for _, op := range p {
			if op.Call > op.Return {
				panic(fmt.Sprintf("%s narrowed %s to [%d, %d]", m.Name, Describe(op), op.Call, op.Return))
			}
		}
		if !porcupine.CheckOperations(m.Porcupine(), Porcupine(p)) {
			return false
		}
	}
	return true
}

// smallLockRun is a short run of a correct lock (from genLockRun, with
// few clients), then, unless clean, changed at random: times moved and
// rounded so that many coincide, results and tokens changed, operations
// dropped, duplicated, given to another client, or the run broken by
// breakLockRun. Most changes break it; some do not.
func smallLockRun(r *rand.Rand, clean bool) []Operation {
	o := lockRunOpts{clients: 2 + r.IntN(3), rounds: 1 + r.IntN(3)}
	if r.IntN(3) == 0 {
		o.unknown, o.rejected = 0.2, 0.3
	}
	if r.IntN(4) == 0 {
		o.keep = true
	}
	run := genLockRun(r.Uint64(), o)
	ops := run.ops
	if r.IntN(3) == 0 {
		// Coarse times: many instants coincide.
		grain := int64(1+r.IntN(4)) * 1_000_000
		for i := range ops {
			ops[i].Call = ops[i].Call / grain * grain
			if ops[i].Return != never {
				ops[i].Return = (ops[i].Return + grain - 1) / grain * grain
			}
		}
	}
	if r.IntN(4) == 0 {
		// The run ends early: what is under way is pending.
		end := ops[r.IntN(len(ops))].Return
		var cut []Operation
		for _, op := range ops {
			switch {
			case op.Call > end:
			case op.Return > end && op.Result != Unknown:
				if op.Kind == Acquire {
					op.Result, op.Return, op.Token = Pending, end, 0
					cut = append(cut, op)
				}
			default:
				cut = append(cut, op)
			}
		}
		ops = cut
	}
	if clean {
		return ops
	}
	for range 1 + r.IntN(3) {
		if len(ops) == 0 {
			break
		}
		i := r.IntN(len(ops))
		o := &ops[i]
		switch r.IntN(10) {
		case 0: // move a call or a return
			d := int64(r.IntN(4_000_000)) - 2_000_000
			if r.IntN(2) == 0 {
				o.Call = min(max(0, o.Call+d), o.Return)
			} else if o.Return != never {
				o.Return = max(o.Call, o.Return+d)
			}
		case 1: // another result
			o.Result = []Result{OK, Pending, Unknown, Rejected, Failed}[r.IntN(5)]
			if o.Result == Unknown {
				o.Return = never
			}
		case 2: // another token
			o.Token += int64(r.IntN(5)) - 2
		case 3: // another client
			o.Client = r.IntN(5)
		case 4: // dropped
			ops = slices.Delete(ops, i, i+1)
		case 5: // twice
			ops = append(ops, *o)
		case 6: // another kind
			o.Kind = []OpKind{Acquire, Use, Release}[r.IntN(3)]
		default:
			if broken, ok := breakLockRun(r, ops, lockBreak(r.IntN(int(lockBreaks)))); ok {
				ops = broken
			}
		}
	}
	return ops
}

// chaoticLockHistory is a short history of random lock operations by few
// clients at few instants: anything at all, mostly not linearizable.
func chaoticLockHistory(r *rand.Rand) []Operation {
	n := 1 + r.IntN(10)
	ops := make([]Operation, n)
	for i := range ops {
		call := int64(r.IntN(12))
		o := Operation{Client: r.IntN(3), Kind: []OpKind{Acquire, Acquire, Use, Release}[r.IntN(4)], Path: "/l",
			Token: int64(r.IntN(4)), Result: OK, Call: call, Return: call + int64(r.IntN(6))}
		switch r.IntN(8) {
		case 0:
			o.Result, o.Return = Pending, 20
		case 1:
			o.Result, o.Return = Unknown, never
		case 2:
			o.Result = Rejected
		case 3:
			o.Result = Failed
		}
		if o.Kind == Use && r.IntN(2) == 0 {
			o.Return = o.Call
		}
		ops[i] = o
	}
	return ops
}

// orderedLockHistory is a short history of clients each of which acquires
// and releases in turn (the shape Narrow splits and narrows), with random
// times and results: linearizable or not.
func orderedLockHistory(r *rand.Rand) []Operation {
	var ops []Operation
	for c := range 1 + r.IntN(3) {
		t := int64(r.IntN(6))
		for range 1 + r.IntN(3) {
			a := Operation{Client: c, Kind: Acquire, Path: "/l", Result: OK, Token: int64(r.IntN(6)), Call: t}
			t += int64(r.IntN(8))
			a.Return = t
			if r.IntN(8) == 0 {
				a.Result, a.Return = Pending, 40
				ops = append(ops, a)
				break
			}
			ops = append(ops, a)
			for range r.IntN(3) {
				t += int64(r.IntN(4))
				ops = append(ops, Operation{Client: c, Kind: Use, Path: "/l", Result: OK, Token: a.Token, Call: t, Return: t})
			}
			if r.IntN(6) == 0 {
				break // holds to the end
			}
			rel := Operation{Client: c, Kind: Release, Path: "/l", Result: OK, Call: t}
			t += int64(r.IntN(6))
			rel.Return = t
			ops = append(ops, rel)
			t += 1 + int64(r.IntN(3))
		}
	}
	if r.IntN(3) == 0 {
		ops = append(ops, Operation{Client: r.IntN(4), Kind: Use, Path: "/l", Result: Rejected, Call: int64(r.IntN(30))})
		ops[len(ops)-1].Return = ops[len(ops)-1].Call
	}
	r.Shuffle(len(ops), func(i, j int) { ops[i], ops[j] = ops[j], ops[i] })
	return ops
}

// tiedLockHistory is a short history of holdings one after another,
// passing between clients, at few instants: many times coincide, and
// uses fall near the ends of their holdings (or outside them), where
// which holding they belong to is in doubt.
func tiedLockHistory(r *rand.Rand) []Operation {
	var ops []Operation
	t := int64(0)
	clients := 2 + r.IntN(2)
	last := make([]int64, clients) // each client's last return
	for range 2 + r.IntN(4) {
		c := r.IntN(clients)
		a := Operation{Client: c, Kind: Acquire, Path: "/l", Result: OK, Call: max(last[c], t-int64(r.IntN(3)))}
		t += int64(r.IntN(2))
		a.Return = max(t, a.Call)
		rel := Operation{Client: c, Kind: Release, Path: "/l", Result: OK, Call: a.Return + int64(r.IntN(3))}
		rel.Return = rel.Call + int64(r.IntN(3))
		ops = append(ops, a, rel)
		for range r.IntN(3) {
			at := a.Call + int64(r.IntN(int(rel.Return-a.Call)+3)) - 1
			ops = append(ops, Operation{Client: c, Kind: Use, Path: "/l", Result: OK, Call: at, Return: at + int64(r.IntN(2))})
		}
		t = rel.Call + int64(r.IntN(2))
		last[c] = rel.Return + int64(r.IntN(2))
		if r.IntN(5) == 0 {
			break
		}
	}
	if r.IntN(4) == 0 {
		// A waiter, its acquire under way since before.
		c := r.IntN(clients)
		ops = append(ops, Operation{Client: c, Kind: Acquire, Path: "/l", Result: OK, Call: last[c],
			Return: max(last[c], t+int64(r.IntN(3)))})
	}
	r.Shuffle(len(ops), func(i, j int) { ops[i], ops[j] = ops[j], ops[i] })
	return ops
}

// fencedLockHistory is a short history of a fenced lock at few instants:
// grants of growing tokens, uses the resource accepted in order of token,
// refused ones, each interval around the instant it took effect, then
// perhaps a token or an instant changed.
func fencedLockHistory(r *rand.Rand, mayChange bool) []Operation {
	var ops []Operation
	token, accepted, at := int64(0), int64(-1), int64(0)
	for range 2 + r.IntN(6) {
		at += int64(r.IntN(2))
		o := Operation{Client: r.IntN(3), Path: "/l", Result: OK}
		switch r.IntN(3) {
		case 0:
			token += 1 + int64(r.IntN(2))
			o.Kind, o.Token = Acquire, token
		case 1:
			o.Kind, o.Token = Use, max(accepted, int64(r.IntN(int(token)+1)))
			accepted = o.Token
		default:
			if accepted <= 0 {
				continue
			}
			o.Kind, o.Token, o.Result = Use, int64(r.IntN(int(accepted))), Rejected
		}
		o.Call, o.Return = at-int64(r.IntN(2)), at+int64(r.IntN(2))
		ops = append(ops, o)
	}
	if mayChange && len(ops) > 0 && r.IntN(2) == 0 {
		o := &ops[r.IntN(len(ops))]
		if r.IntN(2) == 0 {
			o.Token += int64(r.IntN(3)) - 1
		} else {
			o.Call, o.Return = o.Call+1, o.Return+1
		}
	}
	r.Shuffle(len(ops), func(i, j int) { ops[i], ops[j] = ops[j], ops[i] })
	return ops
}

func describeOps(ops []Operation) string {
	var b strings.Builder
	for _, o := range ops {
		fmt.Fprintf(&b, "\n  c%d %s token %d [%d, %d]", o.Client+1, Describe(o), o.Token, o.Call, o.Return)
	}
	return b.String()
}

// TestLockModelsNarrowKeepsVerdicts is the differential test: on thousands
// of short random histories, for every lock model, CheckModel's verdict,
// porcupine's verdict on Narrow's parts, and Witness (when its order is a
// linearization) all agree with porcupine's verdict on the operations as
// recorded.
func TestLockModelsNarrowKeepsVerdicts(t *testing.T) {
	n := 2500
	if testing.Short() {
		n = 400
	}
	gens := []struct {
		name string
		gen  func(r *rand.Rand, i int) []Operation
	}{
		{"runs of a correct lock", func(r *rand.Rand, _ int) []Operation { return smallLockRun(r, true) }},
		{"runs of a lock, changed", func(r *rand.Rand, _ int) []Operation { return smallLockRun(r, false) }},
		{"clients in turn", func(r *rand.Rand, _ int) []Operation { return orderedLockHistory(r) }},
		{"holdings at few instants", func(r *rand.Rand, _ int) []Operation { return tiedLockHistory(r) }},
		{"a fenced lock at few instants", func(r *rand.Rand, _ int) []Operation { return fencedLockHistory(r, true) }},
		{"chaos", func(r *rand.Rand, _ int) []Operation { return chaoticLockHistory(r) }},
	}
	// Cut wherever mutexParts may, so that short histories are cut too.
	defer func(size int) { mutexPartSize = size }(mutexPartSize)
	mutexPartSize = 1
	for gi, g := range gens {
		t.Run(g.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(11, uint64(gi)))
			count := map[string]map[bool]int{}
			for i := range n {
				ops := g.gen(r, i)
				for _, m := range lockModels {
					want := refVerdict(m, ops)
					if count[m.Name] == nil {
						count[m.Name] = map[bool]int{}
					}
					count[m.Name][want]++
					if got := len(CheckModel(m, ops)) == 0; got != want {
						t.Fatalf("%s: CheckModel says linearizable %v, porcupine on the recorded operations %v:%s",
							m.Name, got, want, describeOps(ops))
					}
					if m.Narrow != nil {
						if got := partsVerdict(m, ops); got != want {
							t.Fatalf("%s: porcupine on Narrow's parts says %v, on the recorded operations %v:%s",
								m.Name, got, want, describeOps(ops))
						}
					}
					if m.Witness != nil {
						prepared := ops
						if m.Prepare != nil {
							prepared = m.Prepare(ops)
						}
						if isLinearization(m, prepared, m.Witness(prepared)) && !want {
							t.Fatalf("%s: Witness's order passes, porcupine finds no linearization:%s", m.Name, describeOps(ops))
						}
					}
				}
			}
			t.Logf("verdicts (linearizable: count): %v", count)
		})
	}
}

// The fenced mutex's witness finds the order of every history of a fenced
// lock that behaved (each operation's interval around the instant it took
// effect, in any order of listing): without it, porcupine would decide
// every one.
func TestFencedWitnessFindsCleanHistories(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 13))
	m := FencedMutexModel
	for range 3000 {
		ops := m.Prepare(fencedLockHistory(r, false))
		if order := m.Witness(ops); !isLinearization(m, ops, order) {
			t.Fatalf("no linearization proposed (%v) for:%s", order, describeOps(ops))
		}
	}
	// A refused use that no accepted use with a higher token excuses has
	// no place: no order is proposed.
	stale := []Operation{{Kind: Use, Client: 0, Path: "/l", Token: 5, Result: Rejected, Call: 1, Return: 2}}
	if order := m.Witness(stale); order != nil {
		t.Fatalf("proposed %v for a refusal nothing excuses", order)
	}
}

// TestIsLinearization checks the check of a proposed order on the edge
// cases: real time at equal and adjacent instants, an order that names an
// operation twice or leaves one out, and a step the model refuses.
func TestIsLinearization(t *testing.T) {
	a, b := lkAcquire(0, 1, 0, 10), lkRelease(0, 10, 20)
	c := lkAcquire(1, 2, 20, 30)
	for _, tc := range []struct {
		name  string
		ops   []Operation
		order []int32
		want  bool
	}{
		{"in order", []Operation{a, b, c}, []int32{0, 1, 2}, true},
		{"out of order", []Operation{a, b, c}, []int32{0, 2, 1}, false},
		{"an operation that returned when the next was called", []Operation{a, b, c}, []int32{0, 1, 2}, true},
		{"after one called when it returned", []Operation{lkAcquire(0, 1, 0, 10), lkRelease(0, 10, 10)}, []int32{0, 1}, true},
		{"before one that returned when it was called", []Operation{lkUse(1, 0, 10, Rejected), lkAcquire(0, 1, 0, 10)},
			[]int32{0, 1}, true},
		{"before one that returned just before it was called", []Operation{lkUse(1, 0, 10, Rejected), lkAcquire(0, 1, 0, 9)},
			[]int32{0, 1}, false},
		{"twice", []Operation{a, b, c}, []int32{0, 1, 1}, false},
		{"one left out", []Operation{a, b, c}, []int32{0, 1}, false},
		{"out of range", []Operation{a}, []int32{1}, false},
		{"refused by the model", []Operation{a, c}, []int32{0, 1}, false},
		{"no order", []Operation{a}, nil, false},
		{"nothing", nil, nil, true},
	} {
		if got := isLinearization(MutexModel, tc.ops, tc.order); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
