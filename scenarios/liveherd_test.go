package scenarios

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/live"
	"github.com/zksim/zksim/models"
)

// A live run's notifications become the herd check's traffic: those of
// one event on one node to distinct clients, close together, are one
// transaction; a client notified again, or a gap, starts the next; a
// deletion or a change of children is a release (an Applied delete), a
// data change a write of its node.
func TestLiveNotesBecomeTransactions(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	note := func(at time.Duration, client int, typ zk.EventType, path string) liveNote {
		return liveNote{at: at, client: client, n: live.Notification{Type: typ, Path: path}}
	}
	ns := &liveNotes{notes: []liveNote{
		note(ms(1), 1, zk.EventNodeChildrenChanged, "/l"),
		note(ms(3), 2, zk.EventNodeChildrenChanged, "/l"),
		note(ms(2), 3, zk.EventNodeChildrenChanged, "/l"),   // out of order: sorted by time
		note(ms(5), 1, zk.EventNodeChildrenChanged, "/l"),   // c1 again: the next change
		note(ms(200), 2, zk.EventNodeChildrenChanged, "/l"), // after a gap
		note(ms(210), 4, zk.EventNodeDeleted, "/l/a"),
		note(ms(211), 5, zk.EventNodeDeleted, "/l/b"), // another node
		note(ms(300), 4, zk.EventNodeDataChanged, "/c"),
	}}
	zxids := map[int64][]int{}
	applied := map[int64]string{}
	for _, tr := range ns.traffic() {
		switch tr.Kind {
		case models.Notified:
			zxids[tr.Zxid] = append(zxids[tr.Zxid], tr.Client)
		case models.Applied:
			applied[tr.Zxid] = tr.Path
		}
	}
	want := map[int64][]int{1: {1, 3, 2}, 2: {1}, 3: {2}, 4: {4}, 5: {5}, 6: {4}}
	for z, clients := range want {
		if got := zxids[z]; len(got) != len(clients) {
			t.Errorf("transaction %d notified %v, want %v (all: %v)", z, got, clients, zxids)
		}
	}
	if len(zxids) != len(want) {
		t.Errorf("%d transactions, want %d: %v", len(zxids), len(want), zxids)
	}
	wantApplied := map[int64]string{1: "/l/(a child)", 2: "/l/(a child)", 3: "/l/(a child)", 4: "/l/a", 5: "/l/b"}
	for z, p := range wantApplied {
		if applied[z] != p {
			t.Errorf("transaction %d: applied %q, want %q", z, applied[z], p)
		}
	}
	if applied[6] != "/c" {
		t.Errorf("transaction 6: applied %q, want the data change of /c", applied[6])
	}
}

// A notification that answers the watches a client set again on
// reconnecting is no transaction's (as the simulator's setWatches
// events), not another deletion of its node: as live, the lowest process
// of a double barrier leaves (its node's deletion wakes the four others,
// the last process out), and one of them, cut off as it was told, is told
// again eleven seconds later. Were that a release of its own, the herd
// check would take it for the last one out and judge the real last one a
// herd.
func TestLiveRewatchedNoteIsNoTransaction(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	const c01 = "/zksim/double-barrier/r2/c01"
	deleted := func(at time.Duration, client int, rewatched bool) liveNote {
		return liveNote{at: at, client: client, n: live.Notification{Type: zk.EventNodeDeleted, Path: c01, Rewatched: rewatched}}
	}
	notes := []liveNote{deleted(ms(312), 1, false), deleted(ms(312), 2, false), deleted(ms(313), 3, false),
		deleted(ms(314), 4, false), deleted(ms(11357), 3, true)}
	ops := []models.Operation{}
	for c := range 5 {
		ops = append(ops, models.Operation{Client: c, Kind: models.Enter, Path: "/zksim/double-barrier/r2", Result: models.OK,
			Call: int64(ms(100)), Return: int64(ms(200))},
			models.Operation{Client: c, Kind: models.Leave, Path: "/zksim/double-barrier/r2", Result: models.OK,
				Call: int64(ms(250)), Return: int64(ms(320))})
	}
	// zxidsOf are the transactions the traffic's notifications name.
	zxidsOf := func(traffic []models.Traffic) map[int64]bool {
		zxids := map[int64]bool{}
		for _, tr := range traffic {
			if tr.Kind == models.Notified {
				zxids[tr.Zxid] = true
			}
		}
		return zxids
	}
	traffic := (&liveNotes{notes: notes}).traffic()
	if zxids := zxidsOf(traffic); len(zxids) != 2 || !zxids[0] {
		t.Errorf("the notifications tell of %v, want one transaction and the told-again one none (0): %+v", zxids, traffic)
	}
	in := &models.Input{Ops: ops, End: int64(ms(12000)), Traffic: traffic}
	vs, err := models.Run(in, "herd")
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 0 {
		t.Errorf("the last process out woke everyone and was judged a herd: %v", vs)
	}
	// Not told again, but a second deletion (its node made anew): two
	// transactions.
	notes[4].n.Rewatched = false
	if zxids := zxidsOf((&liveNotes{notes: notes}).traffic()); len(zxids) != 2 || zxids[0] {
		t.Errorf("a notification not told again, after a gap, tells of %v, want two transactions (none zero)", zxids)
	}
}

// The requests the clients sent join the traffic as Sent, in order of
// time with the rest, for the queue's rule (listings per take).
func TestLiveRequestsJoinTheTraffic(t *testing.T) {
	ns := &liveNotes{
		notes: []liveNote{{at: 2 * time.Millisecond, client: 0, n: live.Notification{Type: zk.EventNodeChildrenChanged, Path: "/q"}}},
		sent: []liveSent{
			{at: 1 * time.Millisecond, client: 1, r: live.Request{Op: "getChildren", Path: "/q"}},
			{at: 3 * time.Millisecond, client: 0, r: live.Request{Op: "delete", Path: "/q/x"}},
		},
	}
	var got []string
	for _, tr := range ns.traffic() {
		got = append(got, string(tr.Kind)+" "+tr.Op+" "+tr.Path)
	}
	want := []string{"sent getChildren /q", "applied delete /q/(a child)", "notified  /q", "sent delete /q/x"}
	if len(got) != len(want) {
		t.Fatalf("traffic %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("traffic[%d] = %q, want %q", i, got[i], want[i])
		}
	}
}

// A live run is weak when a fault its scenario names never struck, but
// not for a heal or a restart that came after the workload: those only
// undo a fault that did strike.
func TestLiveWeaknessIgnoresUndoing(t *testing.T) {
	sched, err := fault.ParseSchedule("at 1s partition s1 s3\nat 4s heal s1 s3")
	if err != nil {
		t.Fatal(err)
	}
	out := &LiveOutcome{Outcome: Outcome{Spec: Spec{Faults: sched}}}
	out.Injected = []live.StruckFault{{Fault: sched[0], Text: sched[0].String()}}
	out.NeverStruck = fault.Schedule{sched[1]}
	if w := liveWeakness(out); w != "" {
		t.Errorf("weak %q for a heal that came after the workload", w)
	}
	out.Injected, out.NeverStruck = nil, fault.Schedule{sched[0], sched[1]}
	if w := liveWeakness(out); w == "" {
		t.Error("not weak though the partition never struck")
	}
}

// A change of children is a release when the last create or delete of a
// child its clients sent before it was a delete, and a creation when it
// was a create (a semaphore's waiter watches its lease directory, which
// every new lease changes); a request of the other sort between two
// notifications ends a burst.
func TestLiveChildrenChangeCreateOrDelete(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	note := func(at time.Duration, client int) liveNote {
		return liveNote{at: at, client: client, n: live.Notification{Type: zk.EventNodeChildrenChanged, Path: "/s/leases"}}
	}
	sent := func(at time.Duration, client int, op, path string) liveSent {
		return liveSent{at: at, client: client, r: live.Request{Op: op, Path: path}}
	}
	ns := &liveNotes{
		notes: []liveNote{note(ms(2), 1), note(ms(12), 2), note(ms(13), 3), note(ms(22), 4)},
		sent: []liveSent{
			sent(ms(1), 5, "create2", "/s/leases/g-lease-"), sent(ms(5), 5, "getChildren", "/s/leases"),
			sent(ms(11), 5, "delete", "/s/leases/g-lease-0000000001"), sent(ms(12), 6, "create", "/s/l-lock-"),
			sent(ms(14), 6, "create", "/s/leases/h-lease-")},
	}
	ops := map[int64]string{}
	woke := map[int64]int{}
	for _, tr := range ns.traffic() {
		switch tr.Kind {
		case models.Applied:
			ops[tr.Zxid] = tr.Op
		case models.Notified:
			woke[tr.Zxid]++
		}
	}
	want := map[int64]string{1: "create", 2: "delete", 3: "create"}
	for z, op := range want {
		if ops[z] != op {
			t.Errorf("transaction %d: %q, want %q (all: %v)", z, ops[z], op, ops)
		}
	}
	if woke[2] != 2 || len(ops) != 3 {
		t.Errorf("woken %v, transactions %v: want the delete's two together, and three transactions", woke, ops)
	}
}
