package models

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/zksim/zksim/client"
)

// The delivery checks judge what became of every item a queue was given,
// whatever the order it came out in: the promise a queue makes its users.
// Real queues differ, so the promise is the user's to name:
//
//   - exactly-once: no item is taken twice, and no item put is lost.
//   - at-most-once: no item is taken twice (an item may be lost).
//   - at-least-once: no item put is lost (an item may come twice).
//
// Every promise also forbids taking an item nobody put. The order items
// come out in is the fifo and priority-queue checks' affair.
func init() {
	for _, p := range promises {
		register(Checker{Name: p.name, Kind: Safety, Doc: p.doc, Check: func(in *Input) []Violation {
			return checkDelivery(in, p)
		}})
	}
}

// promise is one delivery promise: once, no item taken twice; kept, no
// item put lost.
type promise struct {
	name, doc  string
	once, kept bool
}

var promises = []promise{
	{"exactly-once", "every item put is taken once: none twice, none lost while a consumer kept asking past the bound", true, true},
	{"at-most-once", "no item is taken twice, nor one nobody put (items may be lost)", true, false},
	{"at-least-once", "no item put is lost while a consumer kept asking past the bound (items may come twice)", false, true},
}

// checkDelivery judges promise p on each queue (Path) of in. On one queue,
// an item is a Put's Data (items are unique: the recording contract), and
// a Take that returned OK took its OutData.
//
//   - Nobody put it (safety, every promise): a take returned an item that
//     no Put of OK, Unknown or Pending result carried.
//   - Taken twice (safety, when p.once): two takes returned one item.
//   - Lost (liveness, when p.kept): a Put returned OK and no take returned
//     the item, although a consumer kept asking for longer than the bound
//     after the put returned. A consumer asks while a Take of its is under
//     way, whatever it returns (an item, nothing when it gave up, an
//     error), until its process stops (Fail); a take of unknown outcome
//     until it returned (Ended; its Return is the end of time). A take of
//     unknown outcome (Unknown, or still Pending at the end) may have
//     taken any one item put (called) before it ended, without anyone
//     seeing it: such takes, the one that ended first first, are counted
//     to have taken the oldest such item each, of those the check would
//     call lost first, then of those it could not judge (so that none is
//     called lost that they may have taken, and none is excused that none
//     of them could take). An item nobody asked for that long is still
//     in the queue as far as anyone knows, which breaks no promise; but
//     when a consumer was still asking at the end of the run and had not
//     asked that long, the run ended before the check could judge, and
//     the item is undecided, never passed.
func checkDelivery(in *Input, p promise) []Violation {
	stops := stopTimes(in.Ops)
	paths, byPath := opsByPath(in.Ops, Put, Take)
	var out []Violation
	for _, path := range paths {
		q := newDelivered(byPath[path])
		out = append(out, q.unput(in, path)...)
		if p.once {
			out = append(out, q.twice(in, path)...)
		}
		if p.kept {
			out = append(out, q.lost(in, path, stops)...)
		}
	}
	for i := range out {
		out[i].Check = p.name
	}
	sortViolations(out)
	return out
}

// delivered is what became of the items of one queue.
type delivered struct {
	puts    map[string]Operation   // each item's put (OK, Unknown or Pending)
	takes   map[string][]Operation // the OK takes of each item, by return
	doubt   []int64                // when each take of unknown outcome ended (doubtEnd), sorted
	takers  map[int][]Operation    // each consumer's takes, by call
	order   []string               // the items put, by put call
	clients []int                  // the consumers, sorted
}

func newDelivered(ops []Operation) *delivered {
	q := &delivered{puts: map[string]Operation{}, takes: map[string][]Operation{}, takers: map[int][]Operation{}}
	for _, op := range ops {
		switch {
		case op.Kind == Put && op.Result != Failed:
			if _, dup := q.puts[op.Data]; !dup {
				q.puts[op.Data] = op
				q.order = append(q.order, op.Data)
			}
		case op.Kind == Take:
			q.takers[op.Client] = append(q.takers[op.Client], op)
			switch op.Result {
			case OK:
				q.takes[op.OutData] = append(q.takes[op.OutData], op)
			case Unknown, Pending:
				q.doubt = append(q.doubt, doubtEnd(op))
			}
		}
	}
	slices.SortStableFunc(q.order, func(a, b string) int { return cmp.Compare(q.puts[a].Call, q.puts[b].Call) })
	for c, takes := range q.takers {
		slices.SortStableFunc(takes, func(a, b Operation) int { return cmp.Compare(a.Call, b.Call) })
		q.clients = append(q.clients, c)
	}
	slices.Sort(q.clients)
	slices.Sort(q.doubt)
	for _, takes := range q.takes {
		slices.SortStableFunc(takes, func(a, b Operation) int { return cmp.Compare(a.Return, b.Return) })
	}
	return q
}

// taken is the items some take returned, sorted, for a deterministic report.
func (q *delivered) taken() []string {
	out := make([]string, 0, len(q.takes))
	for it := range q.takes {
		out = append(out, it)
	}
	slices.Sort(out)
	return out
}

// unput reports the items taken that nobody put.
func (q *delivered) unput(in *Input, path string) []Violation {
	var out []Violation
	for _, it := range q.taken() {
		if _, ok := q.puts[it]; ok {
			continue
		}
		t := q.takes[it][0]
		out = append(out, Violation{Kind: Safety, Object: path, At: t.Return - in.Start, Ops: q.takes[it],
			Message: fmt.Sprintf("%s took %q at %s, an item nobody put", ClientName(t.Client), it, in.Since(t.Return))})
	}
	return out
}

// twice reports the items taken more than once: one violation per queue,
// naming the first such item and counting the others.
func (q *delivered) twice(in *Input, path string) []Violation {
	var twice []string
	for _, it := range q.taken() {
		if _, ok := q.puts[it]; ok && len(q.takes[it]) > 1 {
			twice = append(twice, it)
		}
	}
	if len(twice) == 0 {
		return nil
	}
	slices.SortStableFunc(twice, func(a, b string) int { return cmp.Compare(q.takes[a][1].Return, q.takes[b][1].Return) })
	it := twice[0]
	takes := q.takes[it]
	var by []string
	for _, t := range takes {
		by = append(by, fmt.Sprintf("%s at %s", ClientName(t.Client), in.Since(t.Return)))
	}
	msg := fmt.Sprintf("item %q was taken %d times: by %s", it, len(takes), strings.Join(by, ", by "))
	if n := len(twice) - 1; n > 0 {
		msg += fmt.Sprintf("; %d more %s taken more than once", n, plural(n, "item was", "items were"))
	}
	return []Violation{{Kind: Safety, Object: path, At: takes[1].Return - in.Start, Message: msg,
		Ops: append([]Operation{q.puts[it]}, takes...)}}
}

// lost reports the items put and never taken while a consumer kept asking
// past the bound (one violation per queue, naming the first), or, failing
// that, those the run ended too early to judge.
func (q *delivered) lost(in *Input, path string, stops map[int]int64) []Violation {
	bound := int64(in.BoundOrDefault())
	var lost, open []asking // by put call
	for _, it := range q.order {
		if q.puts[it].Result != OK || len(q.takes[it]) > 0 {
			continue
		}
		a := q.longestAsking(in, q.puts[it].Return, bound, stops)
		a.item = it
		switch {
		case a.asked > bound:
			lost = append(lost, a)
		case a.still:
			open = append(open, a)
		}
	}
	// The takes nobody saw the outcome of may have taken them.
	lost, doubt := q.excuse(lost, q.doubt)
	open, _ = q.excuse(open, doubt)
	switch {
	case len(lost) > 0:
		return []Violation{q.lostViolation(in, path, lost, bound)}
	case len(open) > 0:
		a, put := open[0], q.puts[open[0].item]
		return []Violation{{Kind: Undecided, Object: path, At: in.End - in.Start, Ops: []Operation{put},
			Message: fmt.Sprintf("item %q, put at %s, was never taken, and %s was still asking for an item when the "+
				"run ended, %s after the put, short of the bound of %s: the run ended before the item could be "+
				"judged lost or not", a.item, in.Since(put.Return), ClientName(a.client), client.FormatTime(a.asked),
				client.FormatTime(bound))}}
	}
	return nil
}

// excuse is items (by put call) without those the takes in doubt that
// end at ends (sorted) may have taken, and the ends of those takes left:
// each take, the one that ended first first, takes the oldest item left
// whose put was called by its end. Each take can take any item put
// before its end, the items put earlier included, so taking them in this
// order leaves as few as any assignment could.
func (q *delivered) excuse(items []asking, ends []int64) ([]asking, []int64) {
	items = slices.Clone(items)
	var left []int64
	for _, end := range ends {
		if len(items) > 0 && q.puts[items[0].item].Call <= end {
			items = items[1:]
			continue
		}
		left = append(left, end)
	}
	return items, left
}

// doubtEnd is when a take of unknown outcome ended: for one that
// returned, Ended (its Return, the end of time as recorded here, in a
// history that did not keep it); the end of time for one still pending.
func doubtEnd(t Operation) int64 {
	if t.Result == Pending {
		return math.MaxInt64
	}
	return cmp.Or(t.Ended, t.Return)
}

// lostViolation words the lost items: the first, the consumer that asked
// for it longest, and what its takes got meanwhile.
func (q *delivered) lostViolation(in *Input, path string, lost []asking, bound int64) Violation {
	a := lost[0]
	put := q.puts[a.item]
	nothing, other, doubt := 0, 0, 0
	for _, t := range a.takes {
		switch t.Result {
		case Failed:
			nothing++
		case OK:
			other++
		default:
			doubt++
		}
	}
	var got []string
	for _, n := range []struct {
		n    int
		what string
	}{{nothing, "took nothing"}, {other, "took other items"}, {doubt, "ended in doubt or still waiting"}} {
		if n.n > 0 {
			got = append(got, fmt.Sprintf("%d %s", n.n, n.what))
		}
	}
	msg := fmt.Sprintf("item %q, put at %s, was never taken, though %s kept asking for an item for %s after it, "+
		"past the bound of %s: %d %s (%s)", a.item, in.Since(put.Return), ClientName(a.client), client.FormatTime(a.asked),
		client.FormatTime(bound), len(a.takes), plural(len(a.takes), "take", "takes"), strings.Join(got, ", "))
	if n := len(lost) - 1; n > 0 {
		msg += fmt.Sprintf("; %d more %s lost so", n, plural(n, "item was", "items were"))
	}
	ops := []Operation{put}
	if len(a.takes) > 8 {
		ops = append(append(ops, a.takes[:4]...), a.takes[len(a.takes)-4:]...)
	} else {
		ops = append(ops, a.takes...)
	}
	return Violation{Kind: Liveness, Object: path, At: a.at - in.Start, Message: msg, Ops: ops, Question: LostItem}
}

// asking is how long one consumer asked for an item after an item was put.
type asking struct {
	item   string
	client int
	asked  int64       // how long its takes were under way after the put
	at     int64       // when asked passed the bound (0: it did not)
	takes  []Operation // its takes under way after the put
	still  bool        // it was still asking when the run ended
}

// longestAsking is the consumer that asked longest after from.
func (q *delivered) longestAsking(in *Input, from, bound int64, stops map[int]int64) asking {
	var best asking
	for _, c := range q.clients {
		if a := q.askingOf(in, c, from, bound, stops); best.takes == nil || a.asked > best.asked {
			best = a
		}
	}
	return best
}

// askingOf is how long consumer c asked after from: its takes under way,
// until its process stopped or the run ended, each instant counted once.
func (q *delivered) askingOf(in *Input, c int, from, bound int64, stops map[int]int64) asking {
	a := asking{client: c}
	end := in.End
	if s, ok := stops[c]; ok {
		end = min(end, s)
	}
	covered := from // counted so far
	for _, t := range q.takers[c] {
		ret := t.Return
		switch {
		case t.Result == Pending:
			ret = in.End
			a.still = end == in.End
		case t.Result == Unknown:
			ret = doubtEnd(t) // until it returned: its Return is the end of time
		}
		if ret <= from {
			continue
		}
		a.takes = append(a.takes, t)
		lo, hi := max(t.Call, covered), min(ret, end)
		if hi <= lo {
			continue
		}
		if a.at == 0 && a.asked+hi-lo > bound {
			a.at = lo + bound - a.asked
		}
		a.asked += hi - lo
		covered = hi
	}
	return a
}

// plural is one or many, as n says.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
