package models

// The herd and liveness checks as they were before they were made
// n·log n: the reference the differential tests (herdliveness_test.go)
// compare them with. Verbatim but for names, prefixed ref.

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// The herd effect: one change that wakes every waiter, when one of them
// (or a few) can proceed and the others go back to waiting, having cost a
// notification each and the requests they make to look again. The recipes
// avoid it by having each waiter watch only what it waits for: a lock's
// release wakes the next waiter, a leader's resignation the next
// candidate. This file counts what each release costs (refHerdOf, refVoteHerdOf,
// refQueueListings: the reports' figures) and judges it (the "herd" check).

// refHerdOf counts what each release of object cost. A release is a
// transaction that deleted a child of object: an Applied delete of
// object/child; a transaction that fired NodeDeleted on object/child (a
// multi, or a session's end deleting an ephemeral node someone watched);
// or a session's end (closeSession) that fired the object's child watches.
// Every server applies each transaction, so releases are told apart by
// zxid.
func refHerdOf(in *Input, object string) HerdStats {
	return refHerdStats(in, object, refDeletions(in.Traffic, object))
}

// refVoteHerdOf counts what each write below a two-phased commit's transaction
// node cost: a site joining, voting or failing. An Applied transaction on a
// path below object, or one that fired an event below object or the
// object's child watches, is one. The decision, written into the
// transaction node itself, is not: every site waits for it.
func refVoteHerdOf(in *Input, object string) HerdStats {
	return refHerdStats(in, object, refWritesBelow(in.Traffic, object))
}

// refUnder reports whether path is object or below it.
func refUnder(path, object string) bool {
	return path == object || strings.HasPrefix(path, object+"/")
}

// refChildOf reports whether path is a child of object.
func refChildOf(path, object string) bool {
	rest, ok := strings.CutPrefix(path, object+"/")
	return ok && rest != "" && !strings.Contains(rest, "/")
}

// refDeletions are the zxids of the transactions that deleted a child of
// object (see refHerdOf).
func refDeletions(traffic []Traffic, object string) map[int64]bool {
	closes := map[int64]bool{}
	out := map[int64]bool{}
	for _, t := range traffic {
		if t.Kind == Applied && t.Op == "closeSession" {
			closes[t.Zxid] = true
		}
	}
	for _, t := range traffic {
		switch {
		case t.Kind == Applied && t.Op == "delete" && refChildOf(t.Path, object):
			out[t.Zxid] = true
		case t.Kind != Notified || t.Zxid == 0:
		case t.Event == "NodeDeleted" && refChildOf(t.Path, object):
			out[t.Zxid] = true
		case t.Event == "NodeChildrenChanged" && t.Path == object && closes[t.Zxid]:
			out[t.Zxid] = true
		}
	}
	return out
}

// refWritesBelow are the zxids of the transactions that wrote below object
// (see refVoteHerdOf).
func refWritesBelow(traffic []Traffic, object string) map[int64]bool {
	out := map[int64]bool{}
	for _, t := range traffic {
		below := strings.HasPrefix(t.Path, object+"/")
		switch {
		case t.Kind == Applied && below:
			out[t.Zxid] = true
		case t.Kind != Notified || t.Zxid == 0:
		case below, t.Event == "NodeChildrenChanged" && t.Path == object:
			out[t.Zxid] = true
		}
	}
	return out
}

// refHerdStats counts the cost of the releases whose zxids are given.
func refHerdStats(in *Input, object string, zxids map[int64]bool) HerdStats {
	st := HerdStats{Object: object, Releases: []ReleaseTraffic{}, Servers: []ServerTraffic{}}
	byZxid := map[int64]*ReleaseTraffic{}
	woken := map[int64]map[int]bool{}
	applied := map[int64]bool{}
	servers := 0
	for _, t := range in.Traffic {
		servers = max(servers, t.Server+1)
		if t.Zxid == 0 || !zxids[t.Zxid] || t.Kind == Notified && !refUnder(t.Path, object) {
			continue
		}
		r := byZxid[t.Zxid]
		if r == nil {
			r = &ReleaseTraffic{Zxid: t.Zxid, At: t.At}
			byZxid[t.Zxid] = r
			woken[t.Zxid] = map[int]bool{}
		}
		switch t.Kind {
		case Applied:
			if !applied[t.Zxid] || t.At < r.At {
				r.At = t.At
			}
			applied[t.Zxid] = true
			r.Op, r.Session = t.Op, t.Session
			if t.Op != "closeSession" && r.Path == "" {
				r.Path = t.Path
			}
		case Notified:
			if !applied[t.Zxid] {
				r.At = min(r.At, t.At)
			}
			if t.Event == "NodeDeleted" && refChildOf(t.Path, object) && r.Op != "delete" {
				r.Path = t.Path // what a multi or a session's end deleted
			}
			if t.Event == "NodeDeleted" && refChildOf(t.Path, object) && !slices.Contains(r.Deleted, t.Path) {
				r.Deleted = append(r.Deleted, t.Path)
			}
			r.Notifications++
			woken[t.Zxid][t.Client] = true
		}
	}
	for _, z := range sortedKeys(byZxid) {
		r := byZxid[z]
		r.Clients = sortedKeys(woken[z])
		r.Woken = len(r.Clients)
		st.Releases = append(st.Releases, *r)
	}
	slices.SortStableFunc(st.Releases, func(a, b ReleaseTraffic) int { return cmp.Compare(a.At, b.At) })
	st.Servers = make([]ServerTraffic, servers)
	for i := range st.Servers {
		st.Servers[i].Server = i
	}
	for _, t := range in.Traffic {
		if !refUnder(t.Path, object) || t.Server < 0 {
			continue
		}
		switch t.Kind {
		case Notified:
			st.Servers[t.Server].Notifications++
			st.Notifications++
		case Sent:
			st.Servers[t.Server].Requests++
			st.Requests++
			// The release whose interval holds the request: the last
			// one applied at or before it.
			i, found := slices.BinarySearchFunc(st.Releases, t.At, func(r ReleaseTraffic, at int64) int {
				return cmp.Compare(r.At, at)
			})
			for found && i+1 < len(st.Releases) && st.Releases[i+1].At == t.At {
				i++
			}
			if !found {
				i--
			}
			if i >= 0 {
				st.Releases[i].Requests++
			}
		}
	}
	if n := len(st.Releases); n > 0 {
		var notes, reqs, woke int
		for _, r := range st.Releases {
			notes += r.Notifications
			reqs += r.Requests
			woke += r.Woken
			st.MostWoken = max(st.MostWoken, r.Woken)
		}
		st.NotificationsPerRelease = float64(notes) / float64(n)
		st.RequestsPerRelease = float64(reqs) / float64(n)
		st.WokenPerRelease = float64(woke) / float64(n)
	}
	return st
}

// refQueueListings counts the getChildren requests on queue that its takes
// sent while items were waiting (see Listings).
func refQueueListings(in *Input, queue string) Listings {
	st := Listings{Queue: queue}
	var puts, takes []Operation
	for _, op := range in.Ops {
		switch {
		case op.Path != queue:
		case op.Kind == Put:
			puts = append(puts, op)
		case op.Kind == Take:
			takes = append(takes, op)
		}
	}
	slices.SortStableFunc(takes, func(a, b Operation) int {
		return cmp.Or(cmp.Compare(a.Client, b.Client), cmp.Compare(a.Call, b.Call))
	})
	var listings []Traffic
	for _, t := range in.Traffic {
		if t.Kind == Sent && t.Op == "getChildren" && t.Path == queue {
			listings = append(listings, t)
		}
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
		if slices.ContainsFunc(puts, func(p Operation) bool { return p.Call <= take.Return && p.Return >= from }) {
			continue // an item arrived meanwhile: a new listing may be needed to see it
		}
		st.Judged++
		n := 0
		for _, l := range listings {
			// [Call, Return): the client's next call may send at the
			// instant this one returns.
			if l.Client == take.Client && l.At >= take.Call && l.At < take.Return {
				n++
			}
		}
		if n > 0 {
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

// refCheckHerd is the "herd" check. For each object it finds one violation
// at most, naming the worst release.
//
//   - A lock, shared lock or election (the Paths of Acquire operations):
//     a release may wake Input.Proceed clients (default 1: the next
//     waiter, the next candidate), plus every woken client waiting for a
//     shared lock (readers queued behind a writer all proceed when it
//     goes).
//   - A double barrier (the Paths of Enter operations; Leave is also
//     membership's): a process leaving may wake
//     Proceed (the lowest process, waiting on the highest), except the
//     last deletion of the round that woke anyone, which lets everyone
//     out, and a session's
//     end: a failed process's node going wakes whoever waited on it.
//   - A two-phased commit (Propose and Vote): a write below the
//     transaction node (a site joining, voting, failing) may wake Proceed
//     clients (the coordinator, which alone watches the votes); the
//     decision, written into the transaction node, rightly wakes every
//     site, and is not judged.
//   - A FIFO queue (Put and Take, every priority 0): once at least
//     herdMinTakes takes found items waiting (see Listings), they may not
//     have sent a getChildren each on average: that is listing at every
//     take, traffic quadratic in the backlog. A priority queue lists again
//     whenever its watch fires, by design, and is not judged.
func refCheckHerd(in *Input) []Violation {
	proceed := in.Proceed
	if proceed <= 0 {
		proceed = 1
	}
	var out []Violation
	for _, obj := range refObjectsOf(in.Ops, Acquire) {
		st := refHerdOf(in, obj)
		shared := refSharedAcquires(in.Ops, obj)
		out = append(out, refJudgeReleases(in, st, func(_ int, r ReleaseTraffic) int {
			return proceed*max(1, len(r.Deleted)) + refSharedWaiters(shared, r)
		}, "releases", "a release should wake only the next waiter")...)
	}
	for _, obj := range refObjectsOf(in.Ops, Enter) {
		st := refHerdOf(in, obj)
		// The last process out is the last deletion that woke anyone:
		// sessions ending afterwards (their ready node, say) wake nobody.
		last := -1
		for i, r := range st.Releases {
			if r.Woken > 0 {
				last = i
			}
		}
		out = append(out, refJudgeReleases(in, st, func(i int, r ReleaseTraffic) int {
			if i == last || r.Op == "closeSession" {
				return r.Woken // the last process out, or a failed one
			}
			return proceed * max(1, len(r.Deleted))
		}, "processes leaving", "a process leaving should wake at most the lowest process, until the last one leaves")...)
	}
	for _, obj := range refObjectsOf(in.Ops, Propose, Vote) {
		st := refVoteHerdOf(in, obj)
		out = append(out, refJudgeReleases(in, st, func(int, ReleaseTraffic) int { return proceed },
			"writes below the transaction node", "only the coordinator needs to see a vote; the sites wait for the decision")...)
	}
	for _, obj := range refObjectsOf(in.Ops, Put, Take) {
		if v, ok := refJudgeListings(in, obj); ok {
			out = append(out, v)
		}
	}
	return out
}

// refSharedAcquires are the acquisitions of a shared lock on obj in ops.
func refSharedAcquires(ops []Operation, obj string) []Operation {
	var out []Operation
	for _, op := range ops {
		if op.Kind == Acquire && op.Path == obj && op.Shared {
			out = append(out, op)
		}
	}
	return out
}

// refSharedWaiters is the number of clients r woke that were waiting for a
// shared lock: that called one of shared before r and had not had it yet.
func refSharedWaiters(shared []Operation, r ReleaseTraffic) int {
	if len(shared) == 0 {
		return 0
	}
	n := 0
	for _, c := range r.Clients {
		if slices.ContainsFunc(shared, func(op Operation) bool {
			return op.Client == c && op.Call <= r.At && r.At <= op.Return
		}) {
			n++
		}
	}
	return n
}

// refJudgeReleases reports the worst of st's releases (named by noun) that
// woke more clients than allowed says may proceed (given each release and
// its index), if any did; why says what the object's waiters should do
// instead. The worst wakes the most clients beyond those allowed; the
// earliest of equals.
func refJudgeReleases(in *Input, st HerdStats, allowed func(i int, r ReleaseTraffic) int, noun, why string) []Violation {
	worst, worstAllowed, over := -1, 0, 0
	for i, r := range st.Releases {
		a := allowed(i, r)
		if r.Woken <= a {
			continue
		}
		over++
		if worst < 0 || r.Woken-a > st.Releases[worst].Woken-worstAllowed {
			worst, worstAllowed = i, a
		}
	}
	if worst < 0 {
		return nil
	}
	r := st.Releases[worst]
	var names []string
	for _, c := range r.Clients {
		names = append(names, fmt.Sprintf("c%d", c+1))
	}
	msg := fmt.Sprintf("%s at %s woke %d clients (%s); %d can proceed. %d of %d %s woke more than could proceed, "+
		"%.1f clients each on average: %s (the herd effect)",
		refDescribeRelease(r), in.Since(r.At), r.Woken, strings.Join(names, ", "), worstAllowed,
		over, len(st.Releases), noun, st.WokenPerRelease, why)
	return []Violation{{Check: "herd", Kind: Herd, Object: st.Object, At: r.At, Message: msg,
		Ops: refOpsAt(in, st.Object, r)}}
}

// refDescribeRelease names a release's transaction as a person reads it.
func refDescribeRelease(r ReleaseTraffic) string {
	switch {
	case r.Op == "closeSession" && r.Path != "":
		return fmt.Sprintf("the end of session %#x, which deleted %s,", r.Session, r.Path)
	case r.Op == "closeSession":
		return fmt.Sprintf("the end of session %#x", r.Session)
	case r.Op == "":
		return fmt.Sprintf("transaction %#x (%s)", r.Zxid, r.Path)
	}
	return fmt.Sprintf("the %s of %s", r.Op, r.Path)
}

// refOpsAt is the woken clients' operations on obj refUnder way when r
// happened, by client.
func refOpsAt(in *Input, obj string, r ReleaseTraffic) []Operation {
	var out []Operation
	for _, op := range in.Ops {
		if op.Path == obj && op.Call <= r.At && r.At <= op.Return && slices.Contains(r.Clients, op.Client) {
			out = append(out, op)
		}
	}
	slices.SortStableFunc(out, func(a, b Operation) int {
		return cmp.Or(cmp.Compare(a.Client, b.Client), cmp.Compare(a.Call, b.Call))
	})
	return out
}

// refJudgeListings is the queue rule (see refCheckHerd).
func refJudgeListings(in *Input, queue string) (Violation, bool) {
	for _, op := range in.Ops {
		if op.Path == queue && op.Kind == Put && op.Priority != 0 {
			return Violation{}, false // a priority queue
		}
	}
	st := refQueueListings(in, queue)
	if st.Judged < herdMinTakes || st.Listings < st.Judged {
		return Violation{}, false
	}
	first := st.Relisted[0]
	msg := fmt.Sprintf("%d takes found items waiting (no put refUnder way) and sent %d getChildren on the queue node: "+
		"%.1f listings per take, from c%d's take at %s on; the recipe lists once for a backlog and works through "+
		"its list, so listing at every take costs traffic quadratic in the backlog",
		st.Judged, st.Listings, st.PerTake, first.Client+1, in.Since(first.Call))
	ops := st.Relisted[:min(len(st.Relisted), 5)]
	return Violation{Check: "herd", Kind: Herd, Object: queue, At: first.Call, Message: msg, Ops: ops}, true
}
