package models

import (
	"cmp"
	"fmt"
	"math"
	"path"
	"slices"
	"strings"
)

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
//     waiter, the next candidate) for each node it deleted that woke
//     anyone (a session's end deleting several nodes, each watched by its
//     own waiter, is no herd), plus every woken client waiting for a
//     shared lock (readers queued behind a writer all proceed when it
//     goes).
//     Each withdrawal (a waiter that gave up waiting: Withdraw) allows one
//     release after it began one wake more of the client that withdrew:
//     the one-shot watch it left on the node ahead of it fires once more
//     (go-zookeeper/zk cannot take it back).
//     For a semaphore (Input.Permits above one), a woken client that held
//     a lease at the release is no waiter: the watch of a listing that
//     found room, set to wait on had there been none, fired once more
//     (ZooKeeper 3.5's removeWatches takes it back, go-zookeeper/zk
//     cannot); it wakes a holder that does nothing with it.
//   - A double barrier (the Paths of Enter operations; Leave is also
//     membership's): a process leaving may wake Proceed (the lowest
//     process, waiting on the highest) for each node it deleted, except the last deletion of the
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
		stale := newStaleWatches(in.Ops, obj)
		var holders leaseHolders
		if in.Permits > 1 {
			holders = semaphoreHolders(in.Ops, obj)
		}
		out = append(out, judgeReleases(in, sc, func(_ int, r scannedRelease) int {
			woken := sc.clients[r.from:r.to]
			base := proceed*r.nodes() + shared.waiters(r.at, woken) + holders.woken(r.at, woken)
			return base + stale.take(r.at, woken, len(woken)-base)
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
			return proceed*r.nodes() + ended[i]
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
	case r.Op == "closeSession" && len(r.Deleted) > 1:
		return fmt.Sprintf("the end of session %#x, which deleted %s,", r.Session, strings.Join(r.Deleted, ", "))
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

// staleWatches are the withdrawals on one lock, by client, each of which
// may leave a one-shot watch that fires once more at a later release and
// wakes the client that withdrew.
//
// A withdrawal counts from its call, not its return: the watch goes stale
// when the waiter stops waiting, which is before its Acquire returns. Its
// deadline may pass while a reply is late (a read that set the watch, say)
// and, replies coming back in order, the call returns only after it, while
// the node it watched is released meanwhile.
type staleWatches map[int][]int64 // the withdrawals' calls by client, in order

func newStaleWatches(ops []Operation, obj string) staleWatches {
	s := staleWatches{}
	for _, op := range ops {
		if op.Kind == Withdraw && op.Path == obj {
			s[op.Client] = append(s[op.Client], op.Call)
		}
	}
	for _, at := range s {
		slices.Sort(at)
	}
	return s
}

// take is the wakes more a release at t may have, up to over (how many
// clients it woke beyond what it allows otherwise): one for each client it
// woke that had begun a withdrawal before t not yet counted (each is then
// counted). Releases are asked in order.
func (s staleWatches) take(t int64, woken []int, over int) int {
	n := 0
	for _, c := range woken {
		if n >= over {
			break
		}
		if at := s[c]; len(at) > 0 && at[0] <= t {
			s[c] = at[1:]
			n++
		}
	}
	return n
}

// leaseHolders are the holdings of a semaphore's leases by client (nil
// for another object: none).
type leaseHolders map[int][]timeSpan

// semaphoreHolders are the holdings of obj in ops: from an acquire's OK
// return to the return of its client's next release, or for ever.
func semaphoreHolders(ops []Operation, obj string) leaseHolders {
	var mine []Operation
	for _, op := range ops {
		if op.Path == obj && (op.Kind == Acquire && op.Result == OK || op.Kind == Release) {
			mine = append(mine, op)
		}
	}
	sortOps(mine)
	out := leaseHolders{}
	open := map[int]int64{}
	for _, op := range mine {
		switch from, held := open[op.Client]; {
		case op.Kind == Acquire && !held:
			open[op.Client] = op.Return
		case op.Kind == Release && held:
			out[op.Client] = append(out[op.Client], timeSpan{from, op.Return})
			delete(open, op.Client)
		}
	}
	for c, from := range open {
		out[c] = append(out[c], timeSpan{from, math.MaxInt64})
	}
	return out
}

// woken is how many of the clients a release at woke held a lease then.
func (h leaseHolders) woken(at int64, woken []int) int {
	n := 0
	for _, c := range woken {
		if slices.ContainsFunc(h[c], func(s timeSpan) bool { return s.from <= at && at <= s.to }) {
			n++
		}
	}
	return n
}
