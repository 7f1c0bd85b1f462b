package models

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
)

// Listings is what a FIFO queue's consumers cost in getChildren requests
// when items were waiting: the recipe lists the queue node once and works
// through the list, so a backlog of n items costs about one listing per
// consumer; the queue-relist variant lists at every take.
type Listings struct {
	Queue string `json:"queue"`
	// Takes is the number of takes that returned an item.
	Takes int `json:"takes"`
	// Judged is the number of those that found items waiting: no put on
	// the queue was under way from the call of the client's previous take
	// to this take's return, so the item taken was there all along and an
	// earlier listing could have shown it.
	Judged int `json:"judged"`
	// Listings is the number of getChildren requests on the queue node the
	// takers sent during their judged takes; PerTake is Listings / Judged.
	Listings int     `json:"listings"`
	PerTake  float64 `json:"per_take"`
	// Relisted are the judged takes that sent one, in order of call.
	Relisted []Operation `json:"relisted,omitempty"`
}

// QueueListings counts the getChildren requests on queue that its takes
// sent while items were waiting (see Listings).
func QueueListings(in *Input, queue string) Listings {
	st := Listings{Queue: queue}
	var puts []timeSpan // each put's [Call, Return], by Call
	var takes []Operation
	for i := range in.Ops {
		switch op := &in.Ops[i]; {
		case op.Path != queue:
		case op.Kind == Put:
			puts = append(puts, timeSpan{op.Call, op.Return})
		case op.Kind == Take && op.Result != Failed: // a take that took nothing sent what it sent for nothing
			takes = append(takes, *op)
		}
	}
	slices.SortStableFunc(takes, func(a, b Operation) int {
		return cmp.Or(cmp.Compare(a.Client, b.Client), cmp.Compare(a.Call, b.Call))
	})
	// A put was under way during [from, to] when one called by to
	// returned at from or later: the latest return among the puts called
	// by each put's call.
	slices.SortFunc(puts, func(a, b timeSpan) int { return cmp.Compare(a.from, b.from) })
	latest := make([]int64, len(puts))
	for k, p := range puts {
		latest[k] = p.to
		if k > 0 {
			latest[k] = max(latest[k], latest[k-1])
		}
	}
	putDuring := func(from, to int64) bool {
		k := sort.Search(len(puts), func(k int) bool { return puts[k].from > to }) - 1
		return k >= 0 && latest[k] >= from
	}
	// The listings, by client and time.
	type listing struct {
		client int
		at     int64
	}
	var listings []listing
	for i := range in.Traffic {
		if t := &in.Traffic[i]; t.Kind == Sent && t.Op == "getChildren" && t.Path == queue {
			listings = append(listings, listing{t.Client, t.At})
		}
	}
	slices.SortFunc(listings, func(a, b listing) int { return cmp.Or(cmp.Compare(a.client, b.client), cmp.Compare(a.at, b.at)) })
	// listed is how many listings client c sent during [from, to).
	listed := func(c int, from, to int64) int {
		lo := sort.Search(len(listings), func(k int) bool {
			return listings[k].client > c || listings[k].client == c && listings[k].at >= from
		})
		hi := sort.Search(len(listings), func(k int) bool {
			return listings[k].client > c || listings[k].client == c && listings[k].at >= to
		})
		return max(0, hi-lo)
	}
	for i, take := range takes {
		if take.Result != OK {
			continue
		}
		st.Takes++
		from := take.Call
		if i > 0 && takes[i-1].Client == take.Client {
			from = takes[i-1].Call
		}
		if putDuring(from, take.Return) {
			continue // an item arrived meanwhile: a new listing may be needed to see it
		}
		st.Judged++
		// [Call, Return): the client's next call may send at the instant
		// this one returns.
		if n := listed(take.Client, take.Call, take.Return); n > 0 {
			st.Listings += n
			st.Relisted = append(st.Relisted, take)
		}
	}
	if st.Judged > 0 {
		st.PerTake = float64(st.Listings) / float64(st.Judged)
	}
	slices.SortStableFunc(st.Relisted, func(a, b Operation) int { return cmp.Compare(a.Call, b.Call) })
	return st
}

// herdMinTakes is how many takes that found items waiting the queue rule
// wants before it judges a queue: a few listings are the recipe's due (one
// per consumer and backlog).
const herdMinTakes = 10

// judgeListings is the queue rule (see checkHerd).
func judgeListings(in *Input, queue string) (Violation, bool) {
	for _, op := range in.Ops {
		if op.Path == queue && op.Kind == Put && op.Priority != 0 {
			return Violation{}, false // a priority queue
		}
	}
	st := QueueListings(in, queue)
	if st.Judged < herdMinTakes || st.Listings < st.Judged {
		return Violation{}, false
	}
	first := st.Relisted[0]
	msg := fmt.Sprintf("%d takes found items waiting (no put under way) and sent %d getChildren on the queue node: "+
		"%.1f listings per take, from c%d's take at %s on; the recipe lists once for a backlog and works through "+
		"its list, so listing at every take costs traffic quadratic in the backlog",
		st.Judged, st.Listings, st.PerTake, first.Client+1, in.Since(first.Call))
	ops := st.Relisted[:min(len(st.Relisted), 5)]
	return Violation{Check: "herd", Kind: Herd, Object: queue, At: first.Call, Message: msg, Ops: ops}, true
}
