package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
)

// The herd and liveness checks were made n·log n; what they say must not
// have changed. These tests compare them, and the herd figures, with the
// code they replaced (checkref_test.go) on many random inputs: runs of the
// lock generator, shared, stopped, cut short and judged against tight
// bounds, and short random histories and traffic of every kind.

// randomCheckInput is a random input for the herd and liveness checks.
func randomCheckInput(r *rand.Rand) *Input {
	switch r.IntN(3) {
	case 0:
		return randomLockInput(r)
	case 1:
		return tinyLockInput(r)
	}
	return chaoticInput(r)
}

// tinyLockInput is a short random history of one lock at few instants:
// holdings that begin and end at once, a client's operations overlapping,
// stops, shared and exclusive acquires, waits pending at a stuck end.
func tinyLockInput(r *rand.Rand) *Input {
	end := int64(5 + r.IntN(15))
	in := &Input{End: end, Bound: time.Duration(1 + r.IntN(4)), Stuck: r.IntN(2) == 0}
	for range 2 + r.IntN(14) {
		call := r.Int64N(end)
		op := Operation{Client: r.IntN(3), Kind: Acquire, Path: "/l", Result: OK, Call: call,
			Return: min(end, call+r.Int64N(4)), Shared: r.IntN(3) == 0}
		if r.IntN(4) == 0 {
			op.Return = end
		}
		switch r.IntN(6) {
		case 0, 1:
			op.Kind = Release
		case 2:
			op.Result, op.Return = Pending, end
		case 3:
			op.Kind, op.Call = Fail, r.Int64N(end+1)
		}
		in.Ops = append(in.Ops, op)
	}
	return in
}

// randomLockInput is a generated lock run, changed: some acquires shared,
// some clients stopped, times made to coincide, tight bounds, a stuck end.
func randomLockInput(r *rand.Rand) *Input {
	ms := int64(time.Millisecond)
	o := lockRunOpts{clients: 1 + r.IntN(8), rounds: 1 + r.IntN(4), herd: r.IntN(3) == 0}
	switch r.IntN(4) {
	case 0:
		o.end = int64(5+r.IntN(40)) * ms
	case 1:
		o.unknown, o.rejected = 0.2, 0.3
	case 2:
		o.keep = true
	}
	run := genLockRun(r.Uint64(), o)
	in := run.input()
	if r.IntN(3) == 0 {
		grain := int64(1+r.IntN(3)) * ms
		for i := range in.Ops {
			in.Ops[i].Call = in.Ops[i].Call / grain * grain
			if in.Ops[i].Return != never {
				in.Ops[i].Return = in.Ops[i].Return / grain * grain
			}
		}
		for i := range in.Traffic {
			in.Traffic[i].At = in.Traffic[i].At / grain * grain
		}
	}
	if r.IntN(3) == 0 {
		for i := range in.Ops {
			if in.Ops[i].Kind == Acquire && r.IntN(2) == 0 {
				in.Ops[i].Shared = true
			}
		}
	}
	for range r.IntN(3) {
		c := r.IntN(o.clients)
		in.Ops = append(in.Ops, Operation{Client: c, Kind: Fail, Path: lockRunPath, Result: OK,
			Call: r.Int64N(in.End + 1), Return: in.End})
	}
	if r.IntN(2) == 0 {
		in.Bound = time.Duration(r.Int64N(20*ms) + 1)
	}
	in.Stuck = r.IntN(3) == 0
	in.Proceed = r.IntN(3)
	r.Shuffle(len(in.Ops), func(i, j int) { in.Ops[i], in.Ops[j] = in.Ops[j], in.Ops[i] })
	return in
}

// chaoticInput is a short random history of every kind of operation on a
// few objects, at few instants, with random traffic about them.
func chaoticInput(r *rand.Rand) *Input {
	paths := []string{"/a", "/b", "/a/x"}
	kinds := []OpKind{Acquire, Acquire, Release, Use, Put, Take, Pass, Lower, Enter, Leave, Propose, Vote, Fail}
	results := []Result{OK, OK, OK, Pending, Unknown, Failed}
	in := &Input{End: 40, Bound: time.Duration(1 + r.IntN(15)), Stuck: r.IntN(2) == 0, Size: r.IntN(4), Proceed: r.IntN(3)}
	for range r.IntN(25) {
		call := r.Int64N(35)
		op := Operation{Client: r.IntN(4), Kind: kinds[r.IntN(len(kinds))], Path: paths[r.IntN(len(paths))],
			Result: results[r.IntN(len(results))], Call: call, Return: call + r.Int64N(8), Shared: r.IntN(3) == 0,
			Data: fmt.Sprint("d", r.IntN(3)), OutData: fmt.Sprint("d", r.IntN(3)), Priority: r.IntN(4) / 3}
		switch op.Result {
		case Pending:
			op.Return = in.End
		case Unknown:
			op.Return = never
		}
		in.Ops = append(in.Ops, op)
	}
	events := []string{"NodeDeleted", "NodeChildrenChanged", "NodeCreated", "NodeDataChanged"}
	tpaths := []string{"/a", "/a/1", "/a/2", "/b", "/b/1", "/a/x", "/a/x/1", "/c"}
	txns := []string{"delete", "create", "closeSession", "multi", "setData"}
	for range r.IntN(30) {
		t := Traffic{At: r.Int64N(40), Server: r.IntN(3), Client: r.IntN(5) - 1, Zxid: r.Int64N(6),
			Path: tpaths[r.IntN(len(tpaths))], Session: r.Int64N(3)}
		switch r.IntN(3) {
		case 0:
			t.Kind, t.Op, t.Client = Applied, txns[r.IntN(len(txns))], -1
			if t.Op == "closeSession" && r.IntN(2) == 0 {
				t.Path = ""
			}
		case 1:
			t.Kind, t.Event = Notified, events[r.IntN(len(events))]
		default:
			t.Kind, t.Op, t.Zxid = Sent, []string{"getChildren", "exists", "create", "getData"}[r.IntN(4)], 0
		}
		in.Traffic = append(in.Traffic, t)
	}
	return in
}

// TestHerdAndLivenessUnchanged is the differential test of the herd and
// liveness checks and the herd figures against the code they replaced.
func TestHerdAndLivenessUnchanged(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 400
	}
	r := rand.New(rand.NewPCG(5, 5))
	found := map[string]int{} // inputs with violations, by check
	for i := range n {
		in := randomCheckInput(r)
		live, herd := checkLiveness(in), checkHerd(in)
		same(t, i, in, "liveness", live, refCheckLiveness(in))
		same(t, i, in, "herd", herd, refCheckHerd(in))
		for _, v := range append(live, herd...) {
			found[string(v.Kind)+" on "+v.Object[:2]]++
		}
		var objects []string
		for _, op := range in.Ops {
			if !slices.Contains(objects, op.Path) {
				objects = append(objects, op.Path)
			}
		}
		objects = append(objects, "/a/1", "/nothing")
		for _, obj := range objects {
			same(t, i, in, "HerdOf "+obj, HerdOf(in, obj), refHerdOf(in, obj))
			same(t, i, in, "VoteHerdOf "+obj, VoteHerdOf(in, obj), refVoteHerdOf(in, obj))
			same(t, i, in, "QueueListings "+obj, QueueListings(in, obj), refQueueListings(in, obj))
		}
	}
	t.Logf("violations found: %v", found)
	for _, k := range []string{"liveness on /z", "herd on /z", "liveness on /a", "herd on /a", "liveness on /l"} {
		if found[k] < n/50 {
			t.Errorf("only %d %s violations: too few to compare", found[k], k)
		}
	}
}

// same fails t unless got and want are deeply equal.
func same(t *testing.T, i int, in *Input, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("input %d, %s:\ngot  %+v\nwant %+v\nops:%s\ntraffic: %+v", i, what, got, want, describeOps(in.Ops), in.Traffic)
	}
}

// TestLockWaitsJudgedAsBefore compares the judgement of every single wait
// for a lock (not only the one a violation shows) with the code it
// replaced: when it is late, from when, since when, how long free, and
// whether for ever.
func TestLockWaitsJudgedAsBefore(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 400
	}
	r := rand.New(rand.NewPCG(9, 9))
	late := 0
	for i := range n {
		in := tinyLockInput(r)
		if i%3 == 0 {
			in = randomLockInput(r)
		}
		stops := stopTimes(in.Ops)
		paths, byPath := refOpsByPath(in.Ops, Acquire, Release)
		_, idxByPath := indicesByPath(in.Ops, true, Acquire, Release)
		for _, p := range paths {
			ops := byPath[p]
			idx := idxByPath[p]
			holdings := refLockHoldings(ops, stops)
			ids, owners := clientIDs(in.Ops, idx)
			id := func(client int) int32 { // as clientIDs numbers it
				for k, i := range idx {
					if in.Ops[i].Client == client {
						return ids[k]
					}
				}
				panic("no such client")
			}
			var all, exclusive []ownedSpan
			for _, h := range holdings {
				all = append(all, ownedSpan{timeSpan(h.span), id(h.client)})
				if !h.shared {
					exclusive = append(exclusive, ownedSpan{timeSpan(h.span), id(h.client)})
				}
			}
			exclusive = append(exclusive, writerWaits(in.Ops, idx, ids, stops)...)
			tlAll, tlExclusive := newBlockTimeline(all, owners), newBlockTimeline(exclusive, owners)
			for k, w := range ops {
				if w.Kind != Acquire || (w.Result != OK && w.Result != Pending) {
					continue
				}
				end, _ := refWaitEnd(in, w, stops)
				blocked := refBlockedBy(holdings, w, end)
				tl := tlAll
				if w.Shared {
					blocked = append(blocked, refWritersAhead(ops, w, end, stops)...)
					tl = tlExclusive
				}
				want, wantOK := refJudgeWait(in, w, stops, blocked)
				got, gotOK := tl.judgeWait(in, &in.Ops[idx[k]], ids[k], stops, math.MinInt64)
				if gotOK != wantOK || gotOK && (got.op != want.op || got.end != want.end || got.at != want.at ||
					got.since != want.since || got.free != want.free || got.forever != want.forever || got.unjudged != want.unjudged) {
					t.Fatalf("input %d, c%d's wait %s [%d, %d]: late %v %+v, want %v %+v\nblocked by %v\nops:%s",
						i, w.Client+1, Describe(w), w.Call, w.Return, gotOK, got, wantOK, want, blocked, describeOps(ops))
				}
				if gotOK {
					late++
				}
			}
		}
	}
	if late < n/10 {
		t.Errorf("only %d late waits: too few to compare", late)
	}
}

// TestEnteredByAsBefore compares when a double barrier had its processes
// in with the code it replaced, on random entries and stops.
func TestEnteredByAsBefore(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for i := range 5000 {
		var ops []Operation
		stops := map[int]int64{}
		for range r.IntN(8) {
			kind := Enter
			if r.IntN(4) == 0 {
				kind = Leave
			}
			ops = append(ops, Operation{Client: r.IntN(5), Kind: kind, Path: "/db", Result: OK, Call: r.Int64N(10)})
		}
		for range r.IntN(3) {
			stops[r.IntN(5)] = r.Int64N(10)
		}
		size := r.IntN(5)
		if got, want := enteredBy(ops, size, stops), refEnteredBy(ops, size, stops); got != want {
			t.Fatalf("case %d, size %d, stops %v: %d, want %d:%s", i, size, stops, got, want, describeOps(ops))
		}
	}
}
