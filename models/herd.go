package models

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
)

// The herd effect: one change that wakes every waiter, when one of them
// (or a few) can proceed and the others go back to waiting, having cost a
// notification each and the requests they make to look again. The recipes
// avoid it by having each waiter watch only what it waits for: a lock's
// release wakes the next waiter, a leader's resignation the next
// candidate. This file counts what each release costs (HerdOf, VoteHerdOf,
// QueueListings: the reports' figures) and judges it (the "herd" check).

// ReleaseTraffic is one transaction that let waiters go (a lock's release, a
// leader's resignation, a process leaving a double barrier, a vote in a
// two-phased commit), and what it cost.
type ReleaseTraffic struct {
	// Zxid is the transaction's.
	Zxid int64 `json:"zxid"`
	// At is when the first server applied it (or, with no Applied record,
	// sent its first event).
	At int64 `json:"at"`
	// Op is the transaction: delete, multi, closeSession (a session's end,
	// which deletes its ephemeral nodes), create, setData; "" when no
	// Applied record names it.
	Op string `json:"op,omitempty"`
	// Path is the node deleted or written. A session's end names no node:
	// it is the node a NodeDeleted event named, or "" when only the
	// object's child watches fired.
	Path string `json:"path,omitempty"`
	// Session is the session whose request it was (or which ended).
	Session int64 `json:"session,omitempty"`
	// Woken is the number of distinct clients notified because of it, on
	// the object or below, across every server; Clients are they, sorted.
	Woken   int   `json:"woken"`
	Clients []int `json:"clients,omitempty"`
	// Notifications is the number of events it fired on the object or
	// below.
	Notifications int `json:"notifications"`
	// Requests is the number of requests on the object or below sent from
	// its first apply until the next release's.
	Requests int `json:"requests"`
}

// ServerTraffic is one server's share of an object's traffic over the
// whole run, whatever caused it (re-registered watches included).
type ServerTraffic struct {
	Server        int `json:"server"` // 0-based
	Notifications int `json:"notifications"`
	Requests      int `json:"requests"`
}

// HerdStats is what an object's releases cost, for the reports' figures
// (notifications and requests per release against the number of clients,
// per server).
type HerdStats struct {
	Object   string           `json:"object"`
	Releases []ReleaseTraffic `json:"releases"`
	Servers  []ServerTraffic  `json:"servers"`
	// Notifications and Requests count the object's traffic over the whole
	// run (the sums of Servers).
	Notifications int `json:"notifications"`
	Requests      int `json:"requests"`
	// The means over Releases (0 when there is none), and the most
	// clients one release woke.
	NotificationsPerRelease float64 `json:"notifications_per_release"`
	RequestsPerRelease      float64 `json:"requests_per_release"`
	WokenPerRelease         float64 `json:"woken_per_release"`
	MostWoken               int     `json:"most_woken"`
}

// HerdOf counts what each release of object cost. A release is a
// transaction that deleted a child of object: an Applied delete of
// object/child; a transaction that fired NodeDeleted on object/child (a
// multi, or a session's end deleting an ephemeral node someone watched);
// or a session's end (closeSession) that fired the object's child watches.
// Every server applies each transaction, so releases are told apart by
// zxid.
func HerdOf(in *Input, object string) HerdStats {
	o := newHerdObject(object)
	return scanReleases(in, o, deletions(in.Traffic, o), true).stats(in)
}

// VoteHerdOf counts what each write below a two-phased commit's transaction
// node cost: a site joining, voting or failing. An Applied transaction on a
// path below object, or one that fired an event below object or the
// object's child watches, is one. The decision, written into the
// transaction node itself, is not: every site waits for it.
func VoteHerdOf(in *Input, object string) HerdStats {
	o := newHerdObject(object)
	return scanReleases(in, o, writesBelow(in.Traffic, o), true).stats(in)
}

// herdObject is an object whose traffic is counted, and the prefix of the
// paths below it.
type herdObject struct{ path, below string }

func newHerdObject(path string) herdObject { return herdObject{path, path + "/"} }

// under reports whether path is the object or below it.
func (o herdObject) under(path string) bool {
	return path == o.path || strings.HasPrefix(path, o.below)
}

// childOf reports whether path is a child of the object.
func (o herdObject) childOf(path string) bool {
	rest, ok := strings.CutPrefix(path, o.below)
	return ok && rest != "" && !strings.Contains(rest, "/")
}

// counts reports whether t is one of the records of a release (given its
// zxid is one): the object's own events, and any other record of the
// transaction.
func (o herdObject) counts(t *Traffic) bool {
	return t.Zxid != 0 && (t.Kind != Notified || o.under(t.Path))
}

// zxidSet is a set of transactions: their zxids, sorted.
type zxidSet struct {
	zxids []int64
	at    int // where the last zxid was found: the next is usually near
}

// newZxidSet is the set of the given zxids (reordered).
func newZxidSet(zxids []int64) *zxidSet {
	slices.Sort(zxids)
	return &zxidSet{zxids: slices.Compact(zxids)}
}

// place is z's place in the set, or -1. Traffic comes in order of time,
// and so, mostly, of zxid: the search starts where the last one ended.
func (s *zxidSet) place(z int64) int {
	zs := s.zxids
	k := s.at
	switch {
	case k < len(zs) && zs[k] == z:
		return k
	case k+1 < len(zs) && zs[k+1] == z:
		s.at = k + 1
		return k + 1
	case k < len(zs) && zs[k] < z && (k+1 == len(zs) || zs[k+1] > z):
		return -1 // between this one and the next
	}
	k, found := slices.BinarySearch(zs, z)
	if !found {
		return -1
	}
	s.at = k
	return k
}

// deletions are the zxids of the transactions that deleted a child of
// the object (see HerdOf).
func deletions(traffic []Traffic, o herdObject) *zxidSet {
	var closes, out []int64
	var children []int64 // the transactions that fired the object's child watches
	// found: the transaction is the last one found (every server applies
	// it, usually one after another).
	found := func(z int64) bool { return len(out) > 0 && out[len(out)-1] == z }
	for i := range traffic {
		t := &traffic[i]
		switch {
		case t.Zxid == 0: // no transaction's (a release's zxid is never 0)
		case t.Kind == Applied:
			if t.Op == "closeSession" {
				closes = append(closes, t.Zxid)
			}
			if t.Op == "delete" && !found(t.Zxid) && o.childOf(t.Path) {
				out = append(out, t.Zxid)
			}
		case t.Kind != Notified:
		case t.Event == "NodeDeleted" && !found(t.Zxid) && o.childOf(t.Path):
			out = append(out, t.Zxid)
		case t.Event == "NodeChildrenChanged" && t.Path == o.path:
			children = append(children, t.Zxid)
		}
	}
	// A session's end is a release when it fired the child watches.
	if len(children) > 0 {
		slices.Sort(closes)
		for _, z := range children {
			if _, found := slices.BinarySearch(closes, z); found {
				out = append(out, z)
			}
		}
	}
	return newZxidSet(out)
}

// writesBelow are the zxids of the transactions that wrote below the
// object (see VoteHerdOf).
func writesBelow(traffic []Traffic, o herdObject) *zxidSet {
	var out []int64
	for i := range traffic {
		t := &traffic[i]
		below := strings.HasPrefix(t.Path, o.below)
		switch {
		case t.Kind == Applied && below:
			out = append(out, t.Zxid)
		case t.Kind != Notified || t.Zxid == 0:
		case below, t.Event == "NodeChildrenChanged" && t.Path == o.path:
			out = append(out, t.Zxid)
		}
	}
	return newZxidSet(out)
}

// releaseScan is an object's releases as scanReleases found them, in
// order of time (then of zxid), without the requests they cost.
type releaseScan struct {
	o        herdObject
	releases []scannedRelease
	clients  []int // each release's woken clients, sorted: clients[r.from:r.to]
	servers  int   // the number of servers
}

// scannedRelease is one release, in short.
type scannedRelease struct {
	zxid, at      int64
	notifications int32
	from, to      int32 // its clients in releaseScan.clients
	// detail, when the scan was asked for it: what releaseDetail says.
	detail *releaseDetail
}

// releaseDetail is what a release's transaction was: see ReleaseTraffic.
type releaseDetail struct {
	op, path string
	session  int64
}

// add updates d with t, the next record of its release (applied is
// whether one before it was Applied).
func (d *releaseDetail) add(t *Traffic, o herdObject) {
	switch t.Kind {
	case Applied:
		d.op, d.session = t.Op, t.Session
		if t.Op != "closeSession" && d.path == "" {
			d.path = t.Path
		}
	case Notified:
		if t.Event == "NodeDeleted" && o.childOf(t.Path) && d.op != "delete" {
			d.path = t.Path // what a multi or a session's end deleted
		}
	}
}

// scanReleases finds the object's releases (the transactions in zxids),
// with what each transaction was when details is set.
func scanReleases(in *Input, o herdObject, zxids *zxidSet, details bool) *releaseScan {
	sc := &releaseScan{o: o}
	rs := make([]scannedRelease, len(zxids.zxids)) // by place in zxids
	var ds []releaseDetail
	if details {
		ds = make([]releaseDetail, len(rs))
	}
	const seen, applied = 1, 2
	flags := make([]uint8, len(rs))
	type wake struct{ release, client int32 }
	var woke []wake // who each release notified, in order
	for i := range in.Traffic {
		t := &in.Traffic[i]
		sc.servers = max(sc.servers, t.Server+1)
		if !o.counts(t) {
			continue
		}
		k := zxids.place(t.Zxid)
		if k < 0 {
			continue
		}
		r := &rs[k]
		if flags[k]&seen == 0 {
			flags[k] |= seen
			r.zxid, r.at = t.Zxid, t.At
		}
		switch t.Kind {
		case Applied:
			if flags[k]&applied == 0 || t.At < r.at {
				r.at = t.At
			}
			flags[k] |= applied
		case Notified:
			if flags[k]&applied == 0 {
				r.at = min(r.at, t.At)
			}
			r.notifications++
			woke = append(woke, wake{int32(k), int32(t.Client)})
		}
		if details {
			ds[k].add(t, o)
		}
	}
	// Each release's clients, sorted, in one array.
	from := make([]int32, len(rs)+1)
	for _, w := range woke {
		from[w.release+1]++
	}
	for k := 1; k < len(from); k++ {
		from[k] += from[k-1]
	}
	sc.clients = make([]int, len(woke))
	next := slices.Clone(from[:len(rs)])
	for _, w := range woke {
		sc.clients[next[w.release]] = int(w.client)
		next[w.release]++
	}
	n := 0
	for k := range rs {
		if flags[k]&seen == 0 {
			continue
		}
		cs := sc.clients[from[k]:from[k+1]]
		slices.Sort(cs)
		r := rs[k]
		r.from, r.to = from[k], from[k]+int32(len(slices.Compact(cs)))
		if details {
			r.detail = &ds[k]
		}
		rs[n] = r
		n++
	}
	sc.releases = rs[:n]
	slices.SortStableFunc(sc.releases, func(a, b scannedRelease) int { return cmp.Compare(a.at, b.at) })
	return sc
}

// release is the k-th release in full, its detail found again in the
// traffic if the scan did not keep it.
func (sc *releaseScan) release(in *Input, k int) ReleaseTraffic {
	r := sc.releases[k]
	cs := sc.clients[r.from:r.to:r.to]
	out := ReleaseTraffic{Zxid: r.zxid, At: r.at, Woken: len(cs), Clients: cs, Notifications: int(r.notifications)}
	d := r.detail
	if d == nil {
		d = &releaseDetail{}
		for i := range in.Traffic {
			if t := &in.Traffic[i]; t.Zxid == r.zxid && sc.o.counts(t) {
				d.add(t, sc.o)
			}
		}
	}
	out.Op, out.Path, out.Session = d.op, d.path, d.session
	return out
}

// wokenPerRelease is the mean number of clients a release woke.
func (sc *releaseScan) wokenPerRelease() float64 {
	if len(sc.releases) == 0 {
		return 0
	}
	woke := 0
	for _, r := range sc.releases {
		woke += int(r.to - r.from)
	}
	return float64(woke) / float64(len(sc.releases))
}

// stats is the scan as HerdStats, with the requests each release cost:
// those on the object or below sent from its time until the next
// release's.
func (sc *releaseScan) stats(in *Input) HerdStats {
	st := HerdStats{Object: sc.o.path, Releases: make([]ReleaseTraffic, len(sc.releases)),
		Servers: make([]ServerTraffic, sc.servers)}
	for k := range sc.releases {
		st.Releases[k] = sc.release(in, k)
	}
	for i := range st.Servers {
		st.Servers[i].Server = i
	}
	rs := st.Releases
	k := -1 // the last release at or before the previous request
	for i := range in.Traffic {
		t := &in.Traffic[i]
		if t.Server < 0 || !sc.o.under(t.Path) {
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
			// one at or before it (traffic comes in order of time, so
			// it is usually the one before, or the next).
			if k >= 0 && rs[k].At > t.At || k+1 < len(rs) && rs[k+1].At <= t.At {
				if k+2 < len(rs) && rs[k+1].At <= t.At && rs[k+2].At > t.At {
					k++
				} else {
					k = sort.Search(len(rs), func(j int) bool { return rs[j].At > t.At }) - 1
				}
			}
			if k >= 0 {
				rs[k].Requests++
			}
		}
	}
	if n := len(rs); n > 0 {
		var notes, reqs, woke int
		for _, r := range rs {
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
		case op.Kind == Take:
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

func init() {
	register(Checker{Name: "herd", Kind: Herd,
		Doc:   "no release wakes more clients than can proceed, and no queue consumer lists the queue at every take",
		Check: checkHerd})
}

// checkHerd is the "herd" check. For each object it finds one violation
// at most, naming the worst release.
//
//   - A lock, shared lock or election (the Paths of Acquire operations):
//     a release may wake Input.Proceed clients (default 1: the next
//     waiter, the next candidate), plus every woken client waiting for a
//     shared lock (readers queued behind a writer all proceed when it
//     goes).
//   - A double barrier (the Paths of Enter operations; Leave is also
//     membership's): a process leaving may wake Proceed (the lowest
//     process, waiting on the highest), except the last deletion of the
//     round that woke anyone, which lets everyone out, and a failed
//     process's node going (its session's end, or the process deleting it
//     on giving up: FailedNodes), which wakes whoever waited on it. Each
//     failure allows the releases after it one more: the failed process
//     may have been the lowest, and its owner, listing before its node
//     went, waits on the highest beside the process that is the lowest
//     now.
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
func checkHerd(in *Input) []Violation {
	proceed := in.Proceed
	if proceed <= 0 {
		proceed = 1
	}
	var out []Violation
	kinds := kindsOf(in.Ops)
	objects := func(of ...OpKind) []string {
		if !kinds.hasAny(of...) {
			return nil
		}
		return objectsOf(in.Ops, of...)
	}
	// The releases, without the requests they cost (the check does not
	// judge them), and what each transaction was only where it is judged.
	// None is judged where no transaction notified more than proceed
	// clients: every release may wake that many.
	releasesOf := func(obj string, zxids func([]Traffic, herdObject) *zxidSet, details bool) *releaseScan {
		o := newHerdObject(obj)
		if !notifiedMoreThan(in.Traffic, o, proceed) {
			return &releaseScan{o: o}
		}
		return scanReleases(in, o, zxids(in.Traffic, o), details)
	}
	for _, obj := range objects(Acquire) {
		sc := releasesOf(obj, deletions, false)
		shared := sharedAcquires(in.Ops, obj)
		out = append(out, judgeReleases(in, sc, func(_ int, r scannedRelease) int {
			return proceed + shared.waiters(r.at, sc.clients[r.from:r.to])
		}, "releases", "a release should wake only the next waiter")...)
	}
	failed := FailedNodes(in.Ops)
	for _, obj := range objects(Enter) {
		sc := releasesOf(obj, deletions, true)
		failure := func(r scannedRelease) bool { return r.detail.op == "closeSession" || failed[r.detail.path] }
		// The last process out is the last deletion that woke anyone:
		// sessions ending afterwards (their ready node, say) wake nobody.
		last := -1
		for i, r := range sc.releases {
			if r.to > r.from {
				last = i
			}
		}
		// Each failed process (its node gone with its session, or deleted
		// by the process on giving up: the history's Fail) wakes whoever
		// waited on it, and may leave the releases after it one more
		// waiter on the highest: it may have been the lowest, which its
		// owner, listing before it went, still believes, while the next
		// process is the lowest now.
		ended := make([]int, len(sc.releases)) // the failures before each release
		for i := 1; i < len(sc.releases); i++ {
			ended[i] = ended[i-1]
			if failure(sc.releases[i-1]) {
				ended[i]++
			}
		}
		out = append(out, judgeReleases(in, sc, func(i int, r scannedRelease) int {
			if i == last || failure(r) {
				return int(r.to - r.from) // the last process out, or a failed one
			}
			return proceed + ended[i]
		}, "processes leaving", "a process leaving should wake at most the lowest process, until the last one leaves")...)
	}
	for _, obj := range objects(Propose, Vote) {
		sc := releasesOf(obj, writesBelow, false)
		out = append(out, judgeReleases(in, sc, func(int, scannedRelease) int { return proceed },
			"writes below the transaction node", "only the coordinator needs to see a vote; the sites wait for the decision")...)
	}
	for _, obj := range objects(Put, Take) {
		if v, ok := judgeListings(in, obj); ok {
			out = append(out, v)
		}
	}
	return out
}

// FailedNodes are the nodes named for a process the history says failed
// (a Fail of its name, on the node's parent: a double barrier's process, a
// two-phased commit's site). Such a node going is the process failing,
// whether its session ended or the process deleted it on giving up.
func FailedNodes(ops []Operation) map[string]bool {
	out := map[string]bool{}
	for _, op := range ops {
		if op.Kind == Fail {
			out[path.Join(op.Path, op.Data)] = true
		}
	}
	return out
}

// notifiedMoreThan reports whether some transaction fired more than n
// events on the object or below: a release (herdStats) wakes at most as
// many clients as that.
func notifiedMoreThan(traffic []Traffic, o herdObject, n int) bool {
	var zxids []int64
	for i := range traffic {
		if t := &traffic[i]; t.Kind == Notified && t.Zxid != 0 && o.under(t.Path) {
			zxids = append(zxids, t.Zxid)
		}
	}
	if len(zxids) <= n {
		return false
	}
	slices.Sort(zxids)
	run := 0
	for k, z := range zxids {
		if k > 0 && z == zxids[k-1] {
			run++
		} else {
			run = 1
		}
		if run > n {
			return true
		}
	}
	return false
}

// sharedAcquisitions are the acquisitions of a shared lock on an object,
// [Call, Return] by client.
type sharedAcquisitions map[int][]timeSpan

// sharedAcquires are the acquisitions of a shared lock on obj in ops.
func sharedAcquires(ops []Operation, obj string) sharedAcquisitions {
	out := sharedAcquisitions{}
	for i := range ops {
		if op := &ops[i]; op.Kind == Acquire && op.Path == obj && op.Shared {
			out[op.Client] = append(out[op.Client], timeSpan{op.Call, op.Return})
		}
	}
	return out
}

// waiters is the number of the clients a release at woke that were
// waiting for a shared lock: that called one of shared before it and had
// not had it yet.
func (shared sharedAcquisitions) waiters(at int64, woken []int) int {
	if len(shared) == 0 {
		return 0
	}
	n := 0
	for _, c := range woken {
		if slices.ContainsFunc(shared[c], func(s timeSpan) bool { return s.from <= at && at <= s.to }) {
			n++
		}
	}
	return n
}

// judgeReleases reports the worst of sc's releases (named by noun) that
// woke more clients than allowed says may proceed (given each release and
// its index), if any did; why says what the object's waiters should do
// instead. The worst wakes the most clients beyond those allowed; the
// earliest of equals.
func judgeReleases(in *Input, sc *releaseScan, allowed func(i int, r scannedRelease) int, noun, why string) []Violation {
	worst, worstOver, worstAllowed, over := -1, 0, 0, 0
	for i, r := range sc.releases {
		a := allowed(i, r)
		woken := int(r.to - r.from)
		if woken <= a {
			continue
		}
		over++
		if worst < 0 || woken-a > worstOver {
			worst, worstOver, worstAllowed = i, woken-a, a
		}
	}
	if worst < 0 || !systematic(over, len(sc.releases), worstOver) {
		return nil
	}
	r := sc.release(in, worst)
	var names []string
	for _, c := range r.Clients {
		names = append(names, fmt.Sprintf("c%d", c+1))
	}
	msg := fmt.Sprintf("%s at %s woke %d clients (%s); %d can proceed. %d of %d %s woke more than could proceed, "+
		"%.1f clients each on average: %s (the herd effect)",
		describeRelease(r), in.Since(r.At), r.Woken, strings.Join(names, ", "), worstAllowed,
		over, len(sc.releases), noun, sc.wokenPerRelease(), why)
	return []Violation{{Check: "herd", Kind: Herd, Object: sc.o.path, At: r.At, Message: msg,
		Ops: opsAt(in, sc.o.path, r)}}
}

// systematic says whether over of n releases waking more clients than could
// proceed (the worst by worstOver) is the herd effect, the recipe's way of
// waiting, rather than the odd extra wake the session's faults cause: a
// one-shot watch that ZooKeeper cannot take back, left on a node by a wait
// the client gave up when its session was lost, fires once more. It is
// when more than one release in twenty over-wakes, or one release wakes
// two or more clients too many.
func systematic(over, n, worstOver int) bool {
	return worstOver >= 2 || over*20 > n
}

// describeRelease names a release's transaction as a person reads it.
func describeRelease(r ReleaseTraffic) string {
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

// opsAt is the woken clients' operations on obj under way when r
// happened, by client.
func opsAt(in *Input, obj string, r ReleaseTraffic) []Operation {
	var out []Operation
	for _, op := range in.Ops { // r.Clients are sorted
		if op.Path == obj && op.Call <= r.At && r.At <= op.Return {
			if _, woken := slices.BinarySearch(r.Clients, op.Client); woken {
				out = append(out, op)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Operation) int {
		return cmp.Or(cmp.Compare(a.Client, b.Client), cmp.Compare(a.Call, b.Call))
	})
	return out
}

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
