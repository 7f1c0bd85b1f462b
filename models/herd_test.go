package models

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// herdTraffic builds hand-made traffic of a 3-server ensemble. Times are
// ms.
type herdTraffic struct{ recs []Traffic }

const herdMs = int64(1e6)

// apply records every server applying transaction zxid (s1 first, the
// others a little later).
func (h *herdTraffic) apply(ms, zxid int64, op, path string, session int64) *herdTraffic {
	for s := range 3 {
		h.recs = append(h.recs, Traffic{At: ms*herdMs + int64(s)*1000, Kind: Applied, Server: s, Client: -1,
			Zxid: zxid, Op: op, Path: path, Session: session})
	}
	return h
}

// notify records server s sending client c an event; zxid 0 is a
// re-registered watch firing.
func (h *herdTraffic) notify(ms int64, s, c int, event, path string, zxid int64) *herdTraffic {
	h.recs = append(h.recs, Traffic{At: ms*herdMs + int64(s)*1000, Kind: Notified, Server: s, Client: c,
		Zxid: zxid, Event: event, Path: path})
	return h
}

// send records client c sending server s a request.
func (h *herdTraffic) send(ms int64, c, s int, op, path string) *herdTraffic {
	h.recs = append(h.recs, Traffic{At: ms * herdMs, Kind: Sent, Server: s, Client: c, Op: op, Path: path})
	return h
}

// herdOp is an operation of client c on path from call to ret (ms).
func herdOp(c int, k OpKind, path string, call, ret int64) Operation {
	return Operation{Client: c, Kind: k, Path: path, Result: OK, Call: call * herdMs, Return: ret * herdMs}
}

// acquires is one Acquire of /app/lock per client, each under way from 0
// to its turn.
func acquires(n int) []Operation {
	var ops []Operation
	for c := range n {
		ops = append(ops, herdOp(c, Acquire, "/app/lock", 0, int64(100*c+5)))
	}
	return ops
}

// lockNode is client c's node in /app/lock.
func lockNode(c int) string { return fmt.Sprintf("/app/lock/x-%010d", c) }

// turns is 4 clients taking /app/lock in turn: c1 releases at 100ms, c2 at
// 200ms, c3 at 300ms. Each release wakes the next waiter (recipe) or every
// waiter still waiting (herd).
func turns(herd bool) *herdTraffic {
	h := &herdTraffic{}
	for c := range 4 {
		h.send(1, c, c%3, "create", "/app/lock/x-")
		h.apply(2, int64(1+c), "create", lockNode(c), int64(10+c))
	}
	for c := range 3 {
		at, zxid := int64(100*(c+1)), int64(10+c)
		h.apply(at, zxid, "delete", lockNode(c), int64(10+c))
		if !herd {
			h.notify(at, (c+1)%3, c+1, "NodeDeleted", lockNode(c), zxid)
			h.send(at+1, c+1, (c+1)%3, "getChildren", "/app/lock")
			continue
		}
		for w := c + 1; w < 4; w++ {
			h.notify(at, w%3, w, "NodeChildrenChanged", "/app/lock", zxid)
			h.send(at+1, w, w%3, "getChildren", "/app/lock")
		}
	}
	return h
}

func herdCheck(t *testing.T, in *Input) []Violation {
	t.Helper()
	vs, err := Run(in, "herd")
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

func TestHerdCheck(t *testing.T) {
	closeSession := (&herdTraffic{}).
		apply(2, 1, "create", lockNode(0), 0x10).
		apply(100, 5, "closeSession", "", 0x10).
		notify(100, 0, 1, "NodeDeleted", lockNode(0), 5).
		notify(100, 1, 2, "NodeDeleted", lockNode(0), 5).
		notify(100, 2, 3, "NodeDeleted", lockNode(0), 5)
	childWatchesOnly := (&herdTraffic{}).
		apply(100, 5, "closeSession", "", 0x10).
		notify(100, 0, 1, "NodeChildrenChanged", "/app/lock", 5).
		notify(100, 1, 2, "NodeChildrenChanged", "/app/lock", 5)
	// A session's end that deletes two nodes, each watched by the client
	// after it: each wake is its own node's.
	twoNodes := (&herdTraffic{}).
		apply(100, 5, "closeSession", "", 0x10).
		notify(100, 0, 1, "NodeDeleted", lockNode(0), 5).
		notify(100, 1, 2, "NodeDeleted", lockNode(1), 5)
	// The same end, the first node watched by two clients.
	twoNodesHerd := (&herdTraffic{}).
		apply(100, 5, "closeSession", "", 0x10).
		notify(100, 0, 1, "NodeDeleted", lockNode(0), 5).
		notify(100, 1, 2, "NodeDeleted", lockNode(1), 5).
		notify(100, 2, 3, "NodeDeleted", lockNode(0), 5).
		notify(100, 2, 4, "NodeDeleted", lockNode(0), 5)
	reRegistered := turns(false).
		notify(150, 1, 2, "NodeDeleted", lockNode(0), 0).
		notify(150, 1, 3, "NodeDeleted", lockNode(0), 0)
	otherObject := turns(false).
		apply(400, 20, "delete", "/app/lock-leader", 0x10).
		notify(400, 0, 1, "NodeDeleted", "/app/lock-leader", 20).
		notify(400, 1, 2, "NodeDeleted", "/app/lock-leader", 20).
		notify(400, 2, 3, "NodeDeleted", "/app/lock-leader", 20)
	// c4 had withdrawn from waiting behind c1's node: its one-shot watch
	// on it fires once more at c1's release.
	staleWatch := turns(false).notify(100, 0, 3, "NodeDeleted", lockNode(0), 10)
	// Client c withdrew (its Acquire called at call, given up, returned
	// at ret).
	withdrawn := func(c int, call, ret int64) []Operation {
		return append(acquires(4), herdOp(c, Withdraw, "/app/lock", call, ret))
	}
	shared := func(readers int) []Operation {
		ops := acquires(4)
		for c := 1; c <= readers; c++ {
			ops[c].Shared = true
		}
		return ops
	}
	cases := []struct {
		name    string
		ops     []Operation
		traffic *herdTraffic
		proceed int
		want    []string // fragments of the one violation's message; nil: none
	}{
		{"the recipe wakes the next waiter at each release", acquires(4), turns(false), 0, nil},
		{"the herd lock wakes every waiter", acquires(4), turns(true), 0,
			[]string{"the delete of /app/lock/x-0000000000 at 0.100000s woke 3 clients (c2, c3, c4); 1 can proceed",
				"2 of 3 releases woke more than could proceed"}},
		{"a threshold of 2 lets two waiters wake", acquires(4), turns(true), 2,
			[]string{"woke 3 clients (c2, c3, c4); 2 can proceed", "1 of 3 releases"}},
		{"a session's end that deletes a watched node is a release", acquires(4), closeSession, 0,
			[]string{"the end of session 0x10, which deleted /app/lock/x-0000000000, at 0.100000s woke 3 clients"}},
		{"a session's end that fires the child watches is a release", acquires(4), childWatchesOnly, 0,
			[]string{"the end of session 0x10 at 0.100000s woke 2 clients (c2, c3)"}},
		{"a session's end deleting two nodes, each waking its own waiter, is no herd", acquires(4), twoNodes, 0, nil},
		{"a session's end deleting two nodes, one waking three, is a herd that names both", acquires(5), twoNodesHerd, 0,
			[]string{"the end of session 0x10, which deleted /app/lock/x-0000000000, /app/lock/x-0000000001, at 0.100000s woke 4 clients (c2, c3, c4, c5); 2 can proceed"}},
		{"re-registered watches firing on reconnect count against no release", acquires(4), reRegistered, 0, nil},
		{"events on a sibling of the lock are not its releases", acquires(4), otherObject, 0, nil},
		{"readers woken together by a writer's release all proceed", shared(3), turns(true), 0, nil},
		{"a writer woken with the readers is one too many", shared(1), turns(true), 0,
			[]string{"woke 3 clients (c2, c3, c4); 2 can proceed"}},
		{"a stale watch firing with no withdrawal to explain it over-wakes", acquires(4), staleWatch, 0,
			[]string{"woke 2 clients (c2, c4); 1 can proceed", "1 of 3 releases"}},
		{"the stale watch of a waiter that withdrew before the release is no herd", withdrawn(3, 0, 50), staleWatch, 0, nil},
		// Its deadline passed and its node went, but a late reply held its
		// Acquire's return back past the release (seed 72 of election-faults
		// at 3 clients).
		{"the stale watch of a withdrawal under way at the release is no herd", withdrawn(3, 0, 150), staleWatch, 0, nil},
		{"a withdrawal begun after the release does not explain it", withdrawn(3, 150, 160), staleWatch, 0,
			[]string{"woke 2 clients (c2, c4); 1 can proceed"}},
		{"another client's withdrawal does not explain it", withdrawn(2, 0, 50), staleWatch, 0,
			[]string{"woke 2 clients (c2, c4); 1 can proceed"}},
		{"no traffic, nothing to judge", acquires(4), &herdTraffic{}, 0, nil},
		{"no operations, no object", nil, turns(true), 0, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := &Input{Ops: tc.ops, Traffic: tc.traffic.recs, Proceed: tc.proceed, End: 1000 * herdMs}
			vs := herdCheck(t, in)
			if tc.want == nil {
				if len(vs) > 0 {
					t.Fatalf("want no violation, got %v", vs)
				}
				return
			}
			if len(vs) != 1 {
				t.Fatalf("want one violation, got %v", vs)
			}
			v := vs[0]
			if v.Check != "herd" || v.Kind != Herd || v.Object != "/app/lock" || v.At != 100*herdMs {
				t.Fatalf("violation %+v: want herd, on /app/lock, at 100ms", v)
			}
			for _, w := range tc.want {
				if !strings.Contains(v.Message, w) {
					t.Errorf("message %q lacks %q", v.Message, w)
				}
			}
			if len(v.Ops) == 0 || slices.ContainsFunc(v.Ops, func(op Operation) bool { return op.Client == 0 }) {
				t.Errorf("ops %v: want the woken clients' acquisitions under way (c1's done)", v.Ops)
			}
		})
	}
}

// The releases' rows, the per-server totals and the means.
func TestHerdStats(t *testing.T) {
	h := turns(true).
		notify(150, 1, 2, "NodeDeleted", lockNode(0), 0). // re-registered
		send(50, 3, 0, "exists", "/app/lock/x-0000000002").
		send(60, 3, 0, "getData", "/elsewhere")
	st := HerdOf(&Input{Traffic: h.recs}, "/app/lock")
	if len(st.Releases) != 3 {
		t.Fatalf("%d releases, want 3: %+v", len(st.Releases), st.Releases)
	}
	want := []ReleaseTraffic{
		{Zxid: 10, At: 100 * herdMs, Op: "delete", Path: lockNode(0), Session: 10, Woken: 3, Clients: []int{1, 2, 3}, Notifications: 3, Requests: 3},
		{Zxid: 11, At: 200 * herdMs, Op: "delete", Path: lockNode(1), Session: 11, Woken: 2, Clients: []int{2, 3}, Notifications: 2, Requests: 2},
		{Zxid: 12, At: 300 * herdMs, Op: "delete", Path: lockNode(2), Session: 12, Woken: 1, Clients: []int{3}, Notifications: 1, Requests: 1},
	}
	for i, w := range want {
		if got := st.Releases[i]; fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("release %d: %+v, want %+v", i, got, w)
		}
	}
	// Requests: 4 creates and 6 getChildren, and the exists before the
	// first release (in no release's interval); the getData is elsewhere.
	// Notifications: 6, and the re-registered one. Client c sends to and
	// hears from server c%3.
	servers := []ServerTraffic{{0, 3, 6}, {1, 2, 2}, {2, 2, 3}}
	if fmt.Sprint(st.Servers) != fmt.Sprint(servers) {
		t.Errorf("servers %+v, want %+v", st.Servers, servers)
	}
	if st.Notifications != 7 || st.Requests != 11 || st.MostWoken != 3 {
		t.Errorf("totals: %d notifications, %d requests, most woken %d; want 7, 11, 3", st.Notifications, st.Requests, st.MostWoken)
	}
	if st.NotificationsPerRelease != 2 || st.RequestsPerRelease != 2 || st.WokenPerRelease != 2 {
		t.Errorf("means: %v notifications, %v requests, %v woken per release; want 2 each",
			st.NotificationsPerRelease, st.RequestsPerRelease, st.WokenPerRelease)
	}
	empty := HerdOf(&Input{}, "/app/lock")
	if empty.Releases == nil || empty.Servers == nil || empty.NotificationsPerRelease != 0 {
		t.Errorf("no traffic: %+v, want empty lists and zero means", empty)
	}
}

// A double barrier's last process out wakes everyone rightly; so does a
// failed process's session's end; any other deletion may wake one.
func TestHerdCheckDoubleBarrier(t *testing.T) {
	const db = "/app/db"
	ops := func() []Operation {
		var ops []Operation
		for c := range 4 {
			ops = append(ops, herdOp(c, Enter, db, 0, 10), herdOp(c, Leave, db, 50, 500))
		}
		return ops
	}
	leave := func(h *herdTraffic, ms, zxid int64, op, p string, woken ...int) *herdTraffic {
		h.apply(ms, zxid, op, p, zxid)
		for _, c := range woken {
			h.notify(ms, c%3, c, "NodeDeleted", p, zxid)
		}
		return h
	}
	recipe := &herdTraffic{}
	leave(recipe, 100, 10, "delete", db+"/p3", 0) // the lowest, waiting on the highest
	leave(recipe, 200, 11, "delete", db+"/p2")
	leave(recipe, 300, 12, "delete", db+"/p1", 0)
	leave(recipe, 400, 13, "delete", db+"/p0", 1, 2, 3) // the last out
	failed := &herdTraffic{}
	leave(failed, 100, 10, "closeSession", "", 1, 2, 3) // the lowest failed
	failed.notify(100, 0, 1, "NodeDeleted", db+"/p0", 10)
	leave(failed, 200, 11, "delete", db+"/p3", 1)
	leave(failed, 300, 12, "delete", db+"/p2", 1)
	leave(failed, 400, 13, "delete", db+"/p1", 1)
	// The sessions that end after the last process left delete what they
	// still own (the ready node), waking nobody: the last out is still
	// the last deletion that woke anyone.
	endings := &herdTraffic{}
	leave(endings, 100, 10, "delete", db+"/p3", 0)
	leave(endings, 200, 11, "delete", db+"/p2")
	leave(endings, 300, 12, "delete", db+"/p1", 0)
	leave(endings, 400, 13, "delete", db+"/p0", 1, 2, 3)
	leave(endings, 410, 14, "delete", db+"/ready")
	// The lowest's node goes with a session its owner (c1) had given up,
	// after c1 listed as the lowest and waited on the highest (p3): c2,
	// the lowest now, waits on p3 too, and p3's leaving wakes both. Not a
	// herd: a session's end made two lowest (seed 227 of the soak with
	// client-side session loss).
	lowestLost := &herdTraffic{}
	leave(lowestLost, 100, 10, "closeSession", db+"/p0", 2)
	leave(lowestLost, 200, 11, "multi", db+"/p3", 0, 1)
	leave(lowestLost, 300, 12, "delete", db+"/p2", 1)
	leave(lowestLost, 400, 13, "delete", db+"/p1", 0, 2, 3) // the last out
	// The same two woken with no session's end before: one too many.
	twoLowest := &herdTraffic{}
	leave(twoLowest, 100, 10, "delete", db+"/p2")
	leave(twoLowest, 200, 11, "multi", db+"/p3", 0, 1)
	leave(twoLowest, 400, 13, "delete", db+"/p0", 1, 2, 3)
	herd := &herdTraffic{}
	leave(herd, 100, 10, "delete", db+"/p3", 0, 1, 2)
	leave(herd, 200, 11, "delete", db+"/p2", 0, 1)
	leave(herd, 300, 12, "delete", db+"/p1", 0)
	for _, tc := range []struct {
		name    string
		traffic *herdTraffic
		want    string
	}{
		{"the recipe", recipe, ""},
		{"the lowest process failing", failed, ""},
		{"the ready node deleted after the last process left", endings, ""},
		{"the lowest's session ending as it waits", lowestLost, ""},
		{"two lowest with no session's end", twoLowest, "the multi of /app/db/p3 at 0.200000s woke 2 clients (c1, c2); 1 can proceed"},
		{"every deletion waking every process left", herd,
			"the delete of /app/db/p3 at 0.100000s woke 3 clients (c1, c2, c3); 1 can proceed. 2 of 3 processes leaving"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs := herdCheck(t, &Input{Ops: ops(), Traffic: tc.traffic.recs})
			switch {
			case tc.want == "" && len(vs) > 0:
				t.Fatalf("want no violation, got %v", vs)
			case tc.want != "" && (len(vs) != 1 || !strings.Contains(vs[0].Message, tc.want)):
				t.Fatalf("got %v, want one saying %q", vs, tc.want)
			}
		})
	}
	// The lowest gives up (the history says it failed) and deletes its
	// node itself: a failure, as its session's end would be, waking every
	// process waiting on it; a delete of another process's node waking
	// all of them is still a herd.
	gaveUp := append(ops(), Operation{Client: 0, Kind: Fail, Path: db, Data: "p0", Result: OK})
	own := &herdTraffic{}
	leave(own, 100, 10, "delete", db+"/p0", 1, 2, 3)
	leave(own, 200, 11, "delete", db+"/p3", 1)
	leave(own, 300, 12, "delete", db+"/p2", 1)
	leave(own, 400, 13, "delete", db+"/p1")
	if vs := herdCheck(t, &Input{Ops: gaveUp, Traffic: own.recs}); len(vs) > 0 {
		t.Errorf("the lowest giving up, its node deleted by itself: %v", vs)
	}
	if vs := herdCheck(t, &Input{Ops: ops(), Traffic: own.recs}); len(vs) != 1 {
		t.Errorf("the same deletion by a process that did not fail: %v, want a herd", vs)
	}
	// Membership's Leave alone does not make a group a double barrier: a
	// member leaving rightly tells every watcher.
	group := []Operation{herdOp(0, Leave, db, 50, 100)}
	if vs := herdCheck(t, &Input{Ops: group, Traffic: herd.recs}); len(vs) > 0 {
		t.Fatalf("a group judged as a double barrier: %v", vs)
	}
}

// In a two-phased commit a vote may wake the coordinator alone; the
// decision wakes every site.
func TestHerdCheckTwoPhaseCommit(t *testing.T) {
	const tx = "/app/tx1"
	ops := []Operation{herdOp(0, Propose, tx, 0, 500)}
	for c := 1; c <= 3; c++ {
		ops = append(ops, herdOp(c, Vote, tx, 10, 500))
	}
	recipe := &herdTraffic{}
	recipe.apply(1, 1, "create", tx, 1)
	for c := 1; c <= 3; c++ {
		recipe.notify(1, c%3, c, "NodeCreated", tx, 1) // every site waits for the transaction
		z := int64(10 + c)
		recipe.apply(20*int64(c), z, "multi", fmt.Sprintf("%s/s%d", tx, c), int64(c))
		recipe.notify(20*int64(c), 0, 0, "NodeChildrenChanged", tx, z)
	}
	recipe.apply(100, 20, "setData", tx, 1) // the decision
	for c := 1; c <= 3; c++ {
		recipe.notify(100, c%3, c, "NodeDataChanged", tx, 20)
	}
	plain := &herdTraffic{}
	for c := 1; c <= 3; c++ {
		z := int64(10 + c)
		p := fmt.Sprintf("%s/s%d", tx, c)
		plain.apply(20*int64(c), z, "setData", p, int64(c))
		for w := 0; w <= 3; w++ {
			if w != c {
				plain.notify(20*int64(c), w%3, w, "NodeDataChanged", p, z)
			}
		}
	}
	if vs := herdCheck(t, &Input{Ops: ops, Traffic: recipe.recs}); len(vs) > 0 {
		t.Fatalf("the recipe: %v", vs)
	}
	st := VoteHerdOf(&Input{Traffic: recipe.recs}, tx)
	if len(st.Releases) != 3 || st.WokenPerRelease != 1 {
		t.Fatalf("the recipe's votes: %+v, want 3 waking one client each", st.Releases)
	}
	vs := herdCheck(t, &Input{Ops: ops, Traffic: plain.recs})
	want := "the setData of /app/tx1/s1 at 0.020000s woke 3 clients (c1, c3, c4); 1 can proceed. 3 of 3 writes below the transaction node"
	if len(vs) != 1 || !strings.Contains(vs[0].Message, want) {
		t.Fatalf("the plain protocol: %v, want one saying %q", vs, want)
	}
}

// A FIFO queue's consumer that lists the queue at every take, while items
// wait, is judged; the recipe, listing once, is not.
func TestHerdCheckQueue(t *testing.T) {
	const q = "/app/queue"
	// 12 items put by c1 from 0 to 12ms, then taken by c2 from 20ms on,
	// one take every 10ms; listings says which takes list the queue.
	run := func(takes int, listings func(i int) int, priority int, putAt func(i int) int64) *Input {
		in := &Input{}
		h := &herdTraffic{}
		for i := range takes {
			p := herdOp(0, Put, q, putAt(i), putAt(i)+1)
			p.Data, p.Priority = fmt.Sprint("item-", i), priority
			in.Ops = append(in.Ops, p)
			at := int64(20 + 10*i)
			tk := herdOp(1, Take, q, at, at+10)
			tk.OutData = p.Data
			in.Ops = append(in.Ops, tk)
			for range listings(i) {
				h.send(at, 1, 0, "getChildren", q)
			}
			h.send(at+1, 1, 0, "getData", q+"/item")
		}
		in.Traffic = h.recs
		return in
	}
	backlog := func(i int) int64 { return int64(i) }
	everyTake := func(int) int { return 1 }
	for _, tc := range []struct {
		name string
		in   *Input
		want string
	}{
		{"the recipe lists a backlog once", run(12, func(i int) int { return min(1, 1-i) }, 0, backlog), ""},
		{"listing at every take", run(12, everyTake, 0, backlog),
			"12 takes found items waiting (no put under way) and sent 12 getChildren on the queue node: 1.0 listings per take, from c2's take at 0.020000s on"},
		{"too few takes to judge", run(9, everyTake, 0, backlog), ""},
		{"a put under way at each take: a new listing may be needed", run(12, everyTake, 0,
			func(i int) int64 { return int64(25 + 10*i) }), ""},
		{"a priority queue lists again whenever its watch fires", run(12, everyTake, 3, backlog), ""},
		{"ten takes listing are enough to judge", run(10, everyTake, 0, backlog), "10 takes found items waiting"},
		{"a take that failed is not judged", func() *Input {
			in := run(10, everyTake, 0, backlog)
			in.Ops[1].Result, in.Ops[1].Return = Unknown, 1<<63-1
			return in
		}(), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs := herdCheck(t, tc.in)
			switch {
			case tc.want == "" && len(vs) > 0:
				t.Fatalf("want no violation, got %v", vs)
			case tc.want != "" && (len(vs) != 1 || !strings.Contains(vs[0].Message, tc.want)):
				t.Fatalf("got %v, want one saying %q", vs, tc.want)
			case tc.want != "" && (vs[0].Object != q || len(vs[0].Ops) != 5):
				t.Fatalf("violation %+v: want it on %s, with the first 5 takes that listed", vs[0], q)
			}
		})
	}
	st := QueueListings(run(12, everyTake, 0, backlog), q)
	if st.Takes != 12 || st.Judged != 12 || st.Listings != 12 || st.PerTake != 1 || len(st.Relisted) != 12 {
		t.Fatalf("listings %+v: want 12 takes, all judged, each listing", st)
	}
}

// One release in twenty or more that wakes one client too many is the odd
// stale watch of a wait given up with its session, not the herd effect;
// more, or a release that wakes two too many, is.
func TestHerdIsSystematic(t *testing.T) {
	for _, c := range []struct {
		over, n, worst int
		want           bool
	}{
		{1, 27, 1, false}, {1, 20, 1, false}, {1, 19, 1, true}, {2, 27, 1, true},
		{1, 100, 2, true}, {10, 10, 1, true}, {0, 10, 0, false},
	} {
		if got := systematic(c.over, c.n, c.worst); got != c.want {
			t.Errorf("systematic(%d of %d, worst %d) = %v, want %v", c.over, c.n, c.worst, got, c.want)
		}
	}
}
