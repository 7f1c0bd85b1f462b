package models

import (
	"cmp"
	"slices"
	"sort"
	"strings"
)

// The herd effect: one change that wakes every waiter, when one of them
// (or a few) can proceed and the others go back to waiting, having cost a
// notification each and the requests they make to look again. The recipes
// avoid it by having each waiter watch only what it waits for: a lock's
// release wakes the next waiter, a leader's resignation the next
// candidate. This file counts what each release costs (HerdOf,
// VoteHerdOf: the reports' figures); queuelistings.go counts a queue's
// listings, and herdcheck.go judges them all (the "herd" check).

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
	// Deleted are the object's children whose deletion by this
	// transaction woke someone (a NodeDeleted event), in the order they
	// were told: a session's end can delete several, each waking its own
	// waiters.
	Deleted []string `json:"deleted,omitempty"`
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
	// deleted are the object's children whose NodeDeleted it sent: each
	// deleted node may wake its own waiters (nodes).
	deleted []string
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
			if t.Event == "NodeDeleted" && o.childOf(t.Path) && !slices.Contains(r.deleted, t.Path) {
				r.deleted = append(r.deleted, t.Path)
			}
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
	out := ReleaseTraffic{Zxid: r.zxid, At: r.at, Woken: len(cs), Clients: cs, Notifications: int(r.notifications),
		Deleted: r.deleted}
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

// nodes is how many deleted nodes r's wakes are attributed to: each of its
// deleted children woke its own waiters (at least one: a release that
// deleted none wakes through the object's child watches).
func (r scannedRelease) nodes() int { return max(1, len(r.deleted)) }

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
