package models

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/zksim/zksim/client"
)

// Model is a porcupine model for one kind of object, and which operations
// of a history it judges. Every model's inputs and outputs are the recorded
// Operation, and every model partitions the history per object (Path), so
// each lock, queue or znode is checked on its own and checks stay fast.
type Model struct {
	// Name is how scenarios and `zksim check --model` refer to it.
	Name string
	// Doc says in a line what it models.
	Doc string
	// Kinds are the operations it judges; the others are left out.
	Kinds []OpKind
	// Init, Step and DescribeState define it for one object; Step must
	// not change its arguments.
	Init          func() any
	Step          func(state any, op Operation) (bool, any)
	DescribeState func(state any) string
	// Explain, when set, says in plain words what in an object's
	// operations breaks the model, which of them it names and when it
	// went wrong (see Explanation).
	Explain func(ops []Operation) Explanation
	// Prepare, when set, rewrites an object's operations before they are
	// checked (for example to order them or drop what cannot matter).
	Prepare func(ops []Operation) []Operation
	// Narrow, when set, speeds up the verdict on an object's operations
	// (as Prepare left them): it splits them into parts that porcupine
	// checks one by one, each from Init, with intervals narrowed to what
	// every linearization respects anyway, such that every part is
	// linearizable exactly when the whole is. Each model's Narrow proves
	// that it keeps every verdict (see mutexParts, fencedParts). Only the
	// verdict comes from the parts: an object that fails is checked again
	// as Prepare left it, for the violation and the visualization, so that
	// they show the intervals recorded. ops must not be changed.
	Narrow func(ops []Operation) [][]Operation
	// Witness, when set, proposes a linearization of an object's
	// operations (as Prepare left them): every index of ops once, in the
	// order the object would have taken them had it behaved. CheckModel
	// replays the order with Step and checks that it keeps real time; if
	// it does, it proves the object linearizable and porcupine is not run
	// (porcupine's search costs several allocations per operation and
	// step). A proposal that is no linearization only costs time: porcupine
	// decides. nil proposes nothing. ops must not be changed.
	Witness func(ops []Operation) []int32
}

// renamed is m under another name and doc, the same model otherwise: one
// model that judges two recipes' histories (the election is the mutex)
// is written once.
func (m Model) renamed(name, doc string) Model {
	m.Name, m.Doc = name, doc
	return m
}

// Porcupine is m as porcupine's model.
func (m Model) Porcupine() porcupine.Model {
	return porcupine.Model{
		Partition: partitionByPath,
		Init:      m.Init,
		Step: func(state, input, _ any) (bool, any) {
			return m.Step(state, input.(Operation))
		},
		DescribeOperation: func(input, _ any) string { return Describe(input.(Operation)) },
		DescribeState:     m.DescribeState,
	}
}

func partitionByPath(history []porcupine.Operation) [][]porcupine.Operation {
	byPath := map[string][]porcupine.Operation{}
	var paths []string
	for _, op := range history {
		p := op.Input.(Operation).Path
		if _, ok := byPath[p]; !ok {
			paths = append(paths, p)
		}
		byPath[p] = append(byPath[p], op)
	}
	slices.Sort(paths)
	out := make([][]porcupine.Operation, 0, len(paths))
	for _, p := range paths {
		out = append(out, byPath[p])
	}
	return out
}

var linearizableModels = map[string]Model{}

// registerModel adds a model and the checker of the same name that runs it.
func registerModel(m Model) {
	linearizableModels[m.Name] = m
	register(Checker{Name: m.Name, Kind: Safety, Doc: m.Doc, Check: func(in *Input) []Violation {
		return CheckModelWithin(m, in.Ops, in.CheckLimit)
	}})
}

// Models lists the porcupine models, by name.
func Models() []Model {
	out := make([]Model, 0, len(linearizableModels))
	for _, m := range linearizableModels {
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b Model) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// LookupModel finds a porcupine model by name.
func LookupModel(name string) (Model, error) {
	if m, ok := linearizableModels[name]; ok {
		return m, nil
	}
	var names []string
	for _, m := range Models() {
		names = append(names, m.Name)
	}
	return Model{}, fmt.Errorf("no model named %q; want one of %s", name, strings.Join(names, ", "))
}

// Porcupine turns a history into porcupine's operations.
func Porcupine(ops []Operation) []porcupine.Operation {
	out := make([]porcupine.Operation, len(ops))
	for i, op := range ops {
		out[i] = porcupine.Operation{ClientId: op.Client + 1, Input: op, Call: op.Call, Output: op, Return: op.Return}
	}
	return out
}

// Linearize checks ops (all of them, whatever their kind) against m. It
// has no time limit, so it never answers porcupine.Unknown.
func Linearize(m Model, ops []Operation) (porcupine.CheckResult, porcupine.LinearizationInfo) {
	if m.Prepare != nil {
		ops = m.Prepare(ops)
	}
	return porcupine.CheckOperationsVerbose(m.Porcupine(), Porcupine(ops), 0)
}

// Explanation is what a model's Explain makes of an object's operations
// that no linearization fits.
type Explanation struct {
	// Why is added to the violation's message; "" when Explain cannot
	// tell what breaks the model.
	Why string
	// Named are the operations Why names, added to the violation's Ops (a
	// report's window reaches the last of them).
	Named []Operation
	// At is the moment Why shows going wrong (two clients holding a lock
	// from the second's grant), which becomes the violation's At; 0
	// leaves it at the return of the operation no linearization got past,
	// which may be long before (the first holder's grant).
	At int64
	// Question is what Why asks the run to explain, which becomes the
	// violation's (NoQuestion: nothing).
	Question Question
	// guess is where Why holds the model's guess at the answer.
	guess guess
}

// because is an Explanation of why, naming named, at no moment of its own.
func because(why string, named []Operation) Explanation {
	return Explanation{Why: why, Named: named}
}

// CheckModel checks the operations of ops that m judges, object by object,
// and reports each object whose history is not linearizable, with the
// operation no linearization could get past. It has no time limit.
func CheckModel(m Model, ops []Operation) []Violation {
	return CheckModelWithin(m, ops, 0)
}

// CheckModelWithin is CheckModel with porcupine's search of each object
// bounded by limit (zero: no limit): an object it cannot decide in time
// is reported as an Undecided violation that says so, never passed.
func CheckModelWithin(m Model, ops []Operation, limit time.Duration) []Violation {
	paths, byPath := objectOps(ops, m.Kinds)
	var out []Violation
	for _, p := range paths {
		part := byPath[p]
		if m.Prepare != nil {
			part = m.Prepare(part)
		}
		// The plain check first: the verbose one records, at every step it
		// takes back, the longest partial linearization of each operation
		// (for the visualization), which costs time quadratic in the
		// history. Only a history that fails needs them.
		switch m.linearizable(part, limit) {
		case porcupine.Ok:
			continue
		case porcupine.Unknown:
			out = append(out, undecided(m, p, part, limit))
			continue
		}
		_, info := porcupine.CheckOperationsVerbose(m.Porcupine(), Porcupine(part), limit)
		v := Violation{Check: m.Name, Kind: Safety, Object: p, Linearization: &Linearization{Model: m.Porcupine(), Info: info}}
		stuck := stuckAt(part, info)
		if stuck >= 0 {
			v.At, v.Ops = part[stuck].Return, []Operation{part[stuck]}
			v.Message = fmt.Sprintf("%d operations on %s have no linearization as a %s: none gets past c%d's %s (called at %s, returned at %s)",
				len(part), p, m.Doc, part[stuck].Client+1, Describe(part[stuck]), client.FormatTime(part[stuck].Call), client.FormatTime(part[stuck].Return))
		} else {
			v.Message = fmt.Sprintf("%d operations on %s have no linearization as a %s", len(part), p, m.Doc)
		}
		if m.Explain != nil {
			if e := m.Explain(part); e.Why != "" {
				v.Message += ": "
				v.Question, v.guess = e.Question, e.guess.shift(v.Message)
				v.Message += e.Why
				v.Ops = append(v.Ops, e.Named...)
				if e.At != 0 {
					v.At = e.At
				}
			}
		}
		out = append(out, v)
	}
	return out
}

// objectOps groups the operations of ops of the given kinds by Path, each
// group in the order of ops, and returns the paths sorted. When every
// operation of ops is of those kinds and on one object, the group is ops
// itself, not a copy: a lock's history is often just that, and copying it
// would cost more than checking it.
func objectOps(ops []Operation, kinds []OpKind) ([]string, map[string][]Operation) {
	counts := map[string]int{} // but first's
	all, first, firsts := true, "", 0
	for i := range ops {
		op := &ops[i]
		switch {
		case !slices.Contains(kinds, op.Kind):
			all = false
		case firsts == 0 || op.Path == first:
			first = op.Path
			firsts++
		default:
			counts[op.Path]++
		}
	}
	if firsts == 0 {
		return nil, nil
	}
	if all && len(counts) == 0 {
		return []string{first}, map[string][]Operation{first: ops}
	}
	counts[first] = firsts
	byPath := make(map[string][]Operation, len(counts))
	for p, n := range counts {
		byPath[p] = make([]Operation, 0, n)
	}
	for i := range ops {
		if op := &ops[i]; slices.Contains(kinds, op.Kind) {
			byPath[op.Path] = append(byPath[op.Path], *op)
		}
	}
	return sortedKeys(counts), byPath
}

// undecided is the violation of an object whose history porcupine could
// not decide within limit.
func undecided(m Model, path string, ops []Operation, limit time.Duration) Violation {
	return Violation{Check: m.Name, Kind: Undecided, Object: path, Ops: ops,
		Message: fmt.Sprintf("porcupine could not decide within %s whether %d operations on %s linearize as a %s: "+
			"the run is undecided, not a pass (zksim check decides its history.json without a limit)", limit, len(ops), path, m.Doc)}
}

// linearizable is the plain verdict on one object's operations (as
// Prepare left them): Ok when m.Witness proposes a linearization of them,
// else porcupine's, on the parts m.Narrow splits them into when m has it,
// each checked from Init, within limit (zero: none). The operations go to
// porcupine as pointers, so that none is copied into an interface.
func (m Model) linearizable(ops []Operation, limit time.Duration) porcupine.CheckResult {
	parts := [][]Operation{ops}
	if inOrder(ops) {
		// (Narrow and Witness reason about intervals: they take none
		// that ends before it starts.)
		if m.Witness != nil && isLinearization(m, ops, m.Witness(ops)) {
			return porcupine.Ok
		}
		if m.Narrow != nil {
			parts = m.Narrow(ops)
		}
	}
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	history := make([]porcupine.Operation, 0, n)
	split := make([][]porcupine.Operation, 0, len(parts))
	for _, p := range parts {
		if len(p) == 0 {
			continue
		}
		from := len(history)
		for i := range p {
			op := &p[i]
			history = append(history, porcupine.Operation{ClientId: op.Client + 1, Input: op, Call: op.Call, Return: op.Return})
		}
		split = append(split, history[from:])
	}
	return porcupine.CheckOperationsTimeout(porcupine.Model{
		// history is split already: porcupine hands it back whole.
		Partition: func([]porcupine.Operation) [][]porcupine.Operation { return split },
		Init:      m.Init,
		Step:      func(state, input, _ any) (bool, any) { return m.Step(state, *input.(*Operation)) },
	}, history, limit)
}

// inOrder reports whether no operation of ops returned before it was
// called.
func inOrder(ops []Operation) bool {
	for i := range ops {
		if ops[i].Return < ops[i].Call {
			return false
		}
	}
	return true
}

// isLinearization reports whether order, indices of ops, is a
// linearization of ops for m: it names every operation once, m's Step
// allows each in turn from Init, and it keeps real time (no operation
// comes after one that was called after it returned; porcupine's rule, at
// equal times neither is known to come first).
func isLinearization(m Model, ops []Operation, order []int32) bool {
	if len(order) != len(ops) {
		return false
	}
	seen := make([]bool, len(ops))
	state := m.Init()
	latest := int64(math.MinInt64) // the latest call so far
	for _, i := range order {
		if i < 0 || int(i) >= len(ops) || seen[i] {
			return false
		}
		seen[i] = true
		op := &ops[i]
		if op.Return < latest {
			return false
		}
		latest = max(latest, op.Call)
		var ok bool
		if ok, state = m.Step(state, *op); !ok {
			return false
		}
	}
	return true
}

// stuckAt is the index of the operation the longest partial
// linearizations could not place: for each of them, the earliest-returning
// operation left out; of those, the earliest (then by call, then by
// index), so that the answer does not depend on the order porcupine lists
// them in.
func stuckAt(ops []Operation, info porcupine.LinearizationInfo) int {
	parts := info.PartialLinearizations()
	if len(parts) == 0 {
		return -1
	}
	longest := 0
	for _, l := range parts[0] {
		longest = max(longest, len(l))
	}
	before := func(i, j int) bool {
		a, b := ops[i], ops[j]
		if a.Return != b.Return {
			return a.Return < b.Return
		}
		if a.Call != b.Call {
			return a.Call < b.Call
		}
		return i < j
	}
	best := -1
	in := make([]bool, len(ops))
	for _, l := range parts[0] {
		if len(l) != longest {
			continue
		}
		clear(in)
		for _, i := range l {
			if i < len(in) {
				in[i] = true
			}
		}
		out := -1
		for i := range ops {
			if !in[i] && (out < 0 || before(i, out)) {
				out = i
			}
		}
		if out >= 0 && (best < 0 || before(out, best)) {
			best = out
		}
	}
	return best
}

// Visualize writes porcupine's HTML visualization of a failed check.
func (l *Linearization) Visualize(w io.Writer) error {
	return porcupine.Visualize(l.Model, l.Info, w)
}
