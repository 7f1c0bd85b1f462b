package models

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/zksim/zksim/client"
)

func init() {
	register(Checker{Name: "semaphore", Kind: Safety,
		Doc: "counting semaphore (at most Permits holders at a time, each acting only while it holds)",
		Check: func(in *Input) []Violation {
			return CheckModelWithin(SemaphoreModel(in.Permits), in.Ops, in.CheckLimit)
		}})
}

// SemaphoreModel is the porcupine model of a counting semaphore of n
// leases (n < 1 counts as 1: a mutex) as seen through the uses it
// protects: at any moment at most n clients hold a lease, and only a
// holder acts on the resource. Its rules are the mutex's (mutexStep), with
// a count for a single holder: an Acquire that returned OK takes a lease
// and needs fewer than n held; one whose answer its caller never saw
// (Pending, Unknown) changes nothing; a Use the resource accepted needs
// its client to hold a lease, a rejected one proves nothing; a Release
// needs its client to hold one, and gives it back, anywhere between the
// holder's last use and its return.
//
// A semaphore's resource is unfenced (a fence that refuses tokens lower
// than the newest would refuse a rightful holder of an older lease, as
// leases are not given back in the order they were granted): what is
// judged is what the holders did.
func SemaphoreModel(n int) Model {
	n = max(n, 1)
	return Model{
		Name:    "semaphore",
		Doc:     fmt.Sprintf("counting semaphore (at most %d holders at a time)", n),
		Kinds:   []OpKind{Acquire, Use, Release},
		Explain: func(ops []Operation) Explanation { return overGranted(ops, n) },
		Init:    func() any { return holders("") },
		Step: func(state any, op Operation) (bool, any) {
			ok, h := semaphoreStep(n, state.(holders), op)
			return ok, h
		},
		DescribeState: func(state any) string { return state.(holders).String() },
		Witness:       semaphoreWitness,
		Prepare:       asHolders,
	}
}

// holders is the state of a semaphore: the clients that hold a lease, a
// multiset kept sorted, each client as four bytes (big-endian, so that the
// bytes sort as the numbers do). A string, as porcupine compares states
// with ==.
type holders string

func holderKey(c int) string {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(c))
	return string(b[:])
}

func (h holders) count() int { return len(h) / 4 }

func (h holders) at(i int) int { return int(binary.BigEndian.Uint32([]byte(h[4*i : 4*i+4]))) }

// find is where client c is, or would go, and whether it is there.
func (h holders) find(c int) (int, bool) {
	lo, hi := 0, h.count()
	for lo < hi {
		m := (lo + hi) / 2
		if h.at(m) < c {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < h.count() && h.at(lo) == c
}

func (h holders) with(c int) holders {
	i, _ := h.find(c)
	return h[:4*i] + holders(holderKey(c)) + h[4*i:]
}

func (h holders) without(c int) (holders, bool) {
	i, ok := h.find(c)
	if !ok {
		return h, false
	}
	return h[:4*i] + h[4*i+4:], true
}

func (h holders) String() string {
	if h.count() == 0 {
		return "free"
	}
	names := make([]string, h.count())
	for i := range names {
		names[i] = fmt.Sprintf("c%d", h.at(i)+1)
	}
	return "held by " + strings.Join(names, ", ")
}

// semaphoreStep is the sequential specification of a semaphore of n
// leases (see SemaphoreModel).
func semaphoreStep(n int, h holders, op Operation) (bool, holders) {
	switch op.Kind {
	case Acquire:
		switch op.Result {
		case OK:
			if h.count() >= n {
				return false, h
			}
			return true, h.with(op.Client)
		case Pending, Unknown, Failed:
			return true, h
		}
	case Use:
		switch op.Result {
		case OK:
			_, ok := h.find(op.Client)
			return ok, h
		case Rejected:
			return true, h
		}
	case Release:
		if lets(op.Result) {
			after, ok := h.without(op.Client)
			return ok, after
		}
	}
	return false, h
}

// semaphoreWitness is Witness for the semaphore: each operation at one
// instant of its interval, in order of those instants, which keeps real
// time whatever the instants (each is within its operation's interval):
// a grant when its acquire returned, a release when it was called (the
// holder's last use), a use when it was made, and what changes nothing
// (an acquire whose answer its caller never saw, a refused use) when it
// was called. At one instant, uses come first, then releases, then
// grants. A semaphore that behaved is then never over its count.
func semaphoreWitness(ops []Operation) []int32 {
	type keyed struct {
		at   int64
		rank int
		i    int32
	}
	ks := make([]keyed, len(ops))
	for i, op := range ops {
		k := keyed{at: op.Call, rank: 3, i: int32(i)}
		switch {
		case op.Kind == Acquire && op.Result == OK:
			k.at, k.rank = op.Return, 2
		case op.Kind == Release:
			k.rank = 1
		case op.Kind == Use && op.Result == OK:
			k.rank = 0
		}
		ks[i] = k
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.rank, b.rank), cmp.Compare(a.i, b.i))
	})
	out := make([]int32, len(ks))
	for j, k := range ks {
		out[j] = k.i
	}
	return out
}

// overGranted explains a semaphore of n leases that no linearization fits
// by what the history shows: the first instant at which more than n
// clients held it, each from the moment its acquire returned to the call
// of its next release (or the end), and what each did meanwhile with the
// resource. It returns "" when the holdings never number more than n (the
// history breaks the model some other way: a use without a holding), and
// the operations it names: the acquires, the releases, and the uses made
// while they all held.
func overGranted(ops []Operation, n int) Explanation {
	hs := holdingsOf(ops, true)
	for i, x := range hs {
		// At x's start, the holdings under way (x among them).
		var under []heldSpan
		for _, y := range hs[:i+1] {
			if y.to > x.from {
				under = append(under, y)
			}
		}
		if len(under) <= n {
			continue
		}
		from, to := x.from, int64(1<<63-1)
		var parts, clients []string
		var ids []int
		var named []Operation
		for _, y := range under {
			to = min(to, y.to)
		}
		for _, y := range under {
			c := y.op.Client
			clients = append(clients, fmt.Sprintf("c%d", c+1))
			ids = append(ids, c)
			parts = append(parts, fmt.Sprintf("c%d from %s (token %d) %s", c+1, client.FormatTime(y.from), y.op.Token, until(y.to)))
			named = append(named, y.op)
		}
		for _, op := range ops {
			if !slices.Contains(ids, op.Client) {
				continue
			}
			switch {
			case op.Kind == Use && op.Call <= to && op.Return >= from:
				named = append(named, op)
			case op.Kind == Release && op.Call >= from && op.Call <= to:
				named = append(named, op)
			}
		}
		why := fmt.Sprintf("%s held it at once, where at most %d may: %s; from %s, %s",
			joinAnd(clients), n, strings.Join(parts, ", "), client.FormatTime(from), meanwhile(ops, ids, from, to))
		return Explanation{Why: why, Named: named, At: from, Question: TwoHolders}
	}
	return Explanation{}
}

// joinAnd joins words as a list in prose: "a, b and c".
func joinAnd(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
