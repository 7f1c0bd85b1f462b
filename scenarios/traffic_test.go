package scenarios

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/sim"
)

// lockTurns runs clients that each take newLock's lock on /app/lock
// rounds times, holding it 5ms, and records one Acquire per acquisition.
func lockTurns(t *testing.T, clients, rounds int, newLock func(client.Conn) recipes.Locker) (*sim.World, []models.Operation) {
	t.Helper()
	w, err := sim.New(sim.Config{Seed: 1, Servers: 3, KeepTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recording{}
	for i := range clients {
		w.Spawn("", func(ctx context.Context, conn client.Conn) error {
			l := newLock(conn)
			for range rounds {
				a := rec.begin(conn, i, models.Acquire, "/app/lock")
				if _, err := l.Lock(ctx); err != nil {
					return err
				}
				rec.end(conn, a, models.OK)
				if err := conn.Sleep(ctx, 5*time.Millisecond); err != nil {
					return err
				}
				if err := l.Unlock(ctx); err != nil {
					return err
				}
			}
			return nil
		})
	}
	res := w.Run()
	if res.Err != nil || len(res.Violations) > 0 {
		t.Fatalf("run failed: %v %v", res.Err, res.Violations)
	}
	return w, rec.history(int64(res.End))
}

// Each release of the lock is applied on every server under one zxid, and
// the waiter it wakes is told with that zxid; sends, applies and events
// name their server and client 0-based, on the histories' clock.
func TestTrafficOfALock(t *testing.T) {
	w, ops := lockTurns(t, 3, 2, func(c client.Conn) recipes.Locker { return recipes.NewLock(c, "/app/lock") })
	traffic := Traffic(w.Trace())
	if len(traffic) == 0 {
		t.Fatal("no traffic")
	}
	applied := map[int64][]models.Traffic{} // deletes of lock nodes, by zxid
	var sent, notified int
	for _, tr := range traffic {
		switch tr.Kind {
		case models.Applied:
			if tr.Op == "delete" && strings.HasPrefix(tr.Path, "/app/lock/") {
				applied[tr.Zxid] = append(applied[tr.Zxid], tr)
			}
			if tr.Server < 0 || tr.Server > 2 || tr.Client != -1 || tr.Session == 0 && tr.Op != "createSession" {
				t.Errorf("applied record %+v: want a server 0-2, no client, a session", tr)
			}
		case models.Sent:
			sent++
			if tr.Op == "ping" || tr.Client < 0 || tr.Client > 2 || tr.Server < 0 || tr.Server > 2 {
				t.Errorf("sent record %+v: want no ping, a client 0-2 and a server 0-2", tr)
			}
		case models.Notified:
			notified++
			if tr.Event != "NodeDeleted" || tr.Zxid == 0 {
				t.Errorf("notified record %+v: want NodeDeleted of a release, with its zxid", tr)
			}
		}
	}
	// 3 clients, 2 rounds: 6 releases, each waking the next waiter unless
	// nobody waits.
	if len(applied) != 6 {
		t.Fatalf("%d deletes of lock nodes, want 6", len(applied))
	}
	if sent == 0 || notified == 0 || notified > 5 {
		t.Fatalf("%d requests, %d notifications; want some, and at most one per release but the last", sent, notified)
	}
	for z, as := range applied {
		servers := map[int]bool{}
		for _, a := range as {
			servers[a.Server] = true
			if a.Path != as[0].Path {
				t.Errorf("zxid %#x applied as %s and %s", z, as[0].Path, a.Path)
			}
		}
		if len(servers) != 3 {
			t.Errorf("the delete of %s (zxid %#x) applied on servers %v, want all 3", as[0].Path, z, servers)
		}
	}
	for _, tr := range traffic {
		if tr.Kind != models.Notified {
			continue
		}
		as, ok := applied[tr.Zxid]
		if !ok || tr.Path != as[0].Path {
			t.Errorf("c%d notified of %s with zxid %#x, which deleted %v", tr.Client+1, tr.Path, tr.Zxid, as)
			continue
		}
		// The woken waiter acquires next: its Acquire was under way.
		if !slices.ContainsFunc(ops, func(op models.Operation) bool {
			return op.Client == tr.Client && op.Call <= tr.At && tr.At <= op.Return
		}) {
			t.Errorf("c%d notified at %s while not acquiring", tr.Client+1, client.FormatTime(tr.At))
		}
	}
	// The clock: the end of the run, in ns since the start, is after
	// every record, and the last record is near it.
	end := int64(w.Now())
	if last := traffic[len(traffic)-1].At; last > end || last < end-int64(time.Minute) {
		t.Fatalf("last record at %d, run ended at %d: not the same clock", last, end)
	}
}

// The herd check passes the recipe's lock and fails the herd lock, on 6
// clients taking turns.
func TestHerdCheckOnLocks(t *testing.T) {
	for _, tc := range []struct {
		name    string
		newLock func(client.Conn) recipes.Locker
		herd    bool
	}{
		{"recipe", func(c client.Conn) recipes.Locker { return recipes.NewLock(c, "/app/lock") }, false},
		{"lock-herd", func(c client.Conn) recipes.Locker { return recipes.NewHerdLock(c, "/app/lock") }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, ops := lockTurns(t, 6, 3, tc.newLock)
			in := &models.Input{Ops: ops, End: int64(w.Now()), Traffic: Traffic(w.Trace())}
			vs, err := models.Run(in, "herd")
			if err != nil {
				t.Fatal(err)
			}
			st := models.HerdOf(in, "/app/lock")
			t.Logf("%d releases, %.2f woken, %.2f notifications, %.2f requests per release; servers %+v",
				len(st.Releases), st.WokenPerRelease, st.NotificationsPerRelease, st.RequestsPerRelease, st.Servers)
			for _, v := range vs {
				t.Log(v)
			}
			if len(st.Releases) != 18 {
				t.Errorf("%d releases, want 18 (6 clients, 3 rounds)", len(st.Releases))
			}
			if got := len(vs) > 0; got != tc.herd {
				t.Fatalf("herd violations: %v, want %v", vs, tc.herd)
			}
			if tc.herd && (vs[0].Object != "/app/lock" || !strings.Contains(vs[0].Message, "can proceed")) {
				t.Fatalf("violation %v: want it on /app/lock, saying how many can proceed", vs[0])
			}
		})
	}
}

// The herd check, run by the scenarios themselves, passes the lock and the
// election and fails their herd variants.
func TestHerdCheckOnSpecs(t *testing.T) {
	for _, tc := range []struct {
		kind, variant string
		herd          bool
	}{
		{"lock", "", false},
		{"lock", "lock-herd", true},
		{"election", "", false},
		{"election", "election-herd", true},
	} {
		t.Run(fmt.Sprintf("%s %s", tc.kind, tc.variant), func(t *testing.T) {
			out, err := Run(Spec{Kind: tc.kind, Variant: tc.variant, Clients: 6, Checks: []string{"herd"}}, 1, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range out.Violations {
				t.Log(v)
			}
			if out.Failed() != tc.herd {
				t.Fatalf("violations %v, want some: %v", out.Violations, tc.herd)
			}
		})
	}
}

// herdRun runs the clients spawn starts (recording into rec) on a fresh
// 3-server world, and returns what the herd check judges.
func herdRun(t *testing.T, seed uint64, spawn func(w *sim.World, rec *recording)) *models.Input {
	t.Helper()
	w, err := sim.New(sim.Config{Seed: seed, Servers: 3, KeepTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recording{}
	spawn(w, rec)
	res := w.Run()
	if res.Err != nil || len(res.Violations) > 0 {
		t.Fatalf("run failed: %v %v", res.Err, res.Violations)
	}
	return &models.Input{Ops: rec.history(int64(res.End)), End: int64(res.End), Traffic: Traffic(w.Trace())}
}

// call records one call of kind on path by client c around fn.
func call(rec *recording, conn client.Conn, c int, k models.OpKind, path string, fn func() error) error {
	op := rec.begin(conn, c, k, path)
	if err := fn(); err != nil {
		return fmt.Errorf("%s: %w", k, err)
	}
	rec.end(conn, op, models.OK)
	return nil
}

// herdVerdict runs the herd check and says whether it found a violation.
func herdVerdict(t *testing.T, in *models.Input) bool {
	t.Helper()
	vs, err := models.Run(in, "herd")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		t.Log(v)
	}
	return len(vs) > 0
}

// The double barrier's exit wakes one process per deletion but the last;
// the herd variant wakes every process still there at each deletion.
func TestHerdCheckOnDoubleBarriers(t *testing.T) {
	const x = 8
	for _, tc := range []struct {
		name  string
		newDB func(conn client.Conn, path, name string, size int) *recipes.NodeDoubleBarrier
		herd  bool
	}{
		{"recipe", recipes.NewDoubleBarrier, false},
		{"double-barrier-herd", recipes.NewHerdDoubleBarrier, true},
	} {
		for seed := uint64(1); seed <= 5; seed++ {
			t.Run(fmt.Sprintf("%s seed %d", tc.name, seed), func(t *testing.T) {
				in := herdRun(t, seed, func(w *sim.World, rec *recording) {
					for i := range x {
						w.Spawn("", func(ctx context.Context, conn client.Conn) error {
							db := tc.newDB(conn, "/app/db", fmt.Sprintf("p%02d", i), x)
							if err := call(rec, conn, i, models.Enter, "/app/db", func() error { return db.Enter(ctx) }); err != nil {
								return err
							}
							compute := time.Duration(10*(1+(i*5+int(seed))%x)) * time.Millisecond
							if err := conn.Sleep(ctx, compute); err != nil {
								return err
							}
							return call(rec, conn, i, models.Leave, "/app/db", func() error { return db.Leave(ctx) })
						})
					}
				})
				st := models.HerdOf(in, "/app/db")
				t.Logf("%d deletions, %.2f woken each, most %d", len(st.Releases), st.WokenPerRelease, st.MostWoken)
				if got := herdVerdict(t, in); got != tc.herd {
					t.Fatalf("herd violation: %v, want %v", got, tc.herd)
				}
			})
		}
	}
}

// In the recipe's two-phased commit only the coordinator sees the votes;
// in the plain protocol every site sees every vote.
func TestHerdCheckOnTwoPhaseCommits(t *testing.T) {
	const sites = 5
	for _, tc := range []struct {
		name        string
		coordinator func(client.Conn) recipes.Coordinator
		site        func(client.Conn, string) recipes.Site
		herd        bool
	}{
		{"recipe", func(c client.Conn) recipes.Coordinator { return recipes.NewTwoPhaseCoordinator(c, "/app") },
			func(c client.Conn, n string) recipes.Site { return recipes.NewTwoPhaseSite(c, "/app", n) }, false},
		{"2pc-sites-watch-votes", func(c client.Conn) recipes.Coordinator { return recipes.NewPlainTwoPhaseCoordinator(c, "/app") },
			func(c client.Conn, n string) recipes.Site { return recipes.NewPlainTwoPhaseSite(c, "/app", n) }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var names []string
			for i := range sites {
				names = append(names, fmt.Sprintf("s%d", i+1))
			}
			in := herdRun(t, 1, func(w *sim.World, rec *recording) {
				w.Spawn("", func(ctx context.Context, conn client.Conn) error {
					return call(rec, conn, 0, models.Propose, "/app/tx1", func() error {
						_, err := tc.coordinator(conn).Propose(ctx, "tx1", names)
						return err
					})
				})
				for i, n := range names {
					w.Spawn("", func(ctx context.Context, conn client.Conn) error {
						if err := conn.Sleep(ctx, time.Duration(i+1)*7*time.Millisecond); err != nil {
							return err
						}
						return call(rec, conn, i+1, models.Vote, "/app/tx1", func() error {
							_, err := tc.site(conn, n).Vote(ctx, "tx1", true)
							return err
						})
					})
				}
			})
			st := models.VoteHerdOf(in, "/app/tx1")
			t.Logf("%d writes below, %.2f woken each, most %d", len(st.Releases), st.WokenPerRelease, st.MostWoken)
			if got := herdVerdict(t, in); got != tc.herd {
				t.Fatalf("herd violation: %v, want %v", got, tc.herd)
			}
		})
	}
}

// The recipe's consumers list a backlog once; the queue-relist variant
// lists it at every take. Items put while the consumers take (a trickle)
// are not judged: the recipe lists then too.
func TestHerdCheckOnQueues(t *testing.T) {
	for _, tc := range []struct {
		name      string
		newQ      func(client.Conn, string) *recipes.DistributedQueue
		consumers int
		trickle   bool
		herd      bool
	}{
		{"recipe, one consumer, a backlog", recipes.NewQueue, 1, false, false},
		{"recipe, three consumers, a backlog", recipes.NewQueue, 3, false, false},
		{"recipe, three consumers, a trickle", recipes.NewQueue, 3, true, false},
		{"queue-relist, one consumer, a backlog", recipes.NewRelistQueue, 1, false, true},
		{"queue-relist, three consumers, a backlog", recipes.NewRelistQueue, 3, false, true},
		{"queue-relist, three consumers, a trickle", recipes.NewRelistQueue, 3, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const items = 30
			in := herdRun(t, 1, func(w *sim.World, rec *recording) {
				produced := false
				w.Spawn("", func(ctx context.Context, conn client.Conn) error {
					q := tc.newQ(conn, "/app/queue")
					for i := range items {
						if err := call(rec, conn, 0, models.Put, "/app/queue", func() error {
							return q.Put(ctx, fmt.Appendf(nil, "item-%d", i))
						}); err != nil {
							return err
						}
						if tc.trickle {
							if err := conn.Sleep(ctx, 20*time.Millisecond); err != nil {
								return err
							}
						}
					}
					produced = true
					return nil
				})
				for c := 1; c <= tc.consumers; c++ {
					w.Spawn("", func(ctx context.Context, conn client.Conn) error {
						q := tc.newQ(conn, "/app/queue")
						for !tc.trickle && !produced {
							if err := conn.Sleep(ctx, 10*time.Millisecond); err != nil {
								return err
							}
						}
						for range items / tc.consumers {
							op := rec.begin(conn, c, models.Take, "/app/queue")
							data, err := q.Take(ctx)
							if err != nil {
								return fmt.Errorf("take: %w", err)
							}
							rec.end(conn, op, models.OK).OutData = string(data)
						}
						return nil
					})
				}
			})
			st := models.QueueListings(in, "/app/queue")
			t.Logf("%d takes, %d judged, %d listings (%.2f per take)", st.Takes, st.Judged, st.Listings, st.PerTake)
			if got := herdVerdict(t, in); got != tc.herd {
				t.Fatalf("herd violation: %v, want %v", got, tc.herd)
			}
		})
	}
}

// A watch re-registered on reconnect that fires at once is a notification
// of no transaction (zxid 0): c2, waiting on c1's node through s2, loses
// s2 while c1 releases, and learns of the release from s1 as it
// reconnects. The release woke nobody.
func TestTrafficOfAReRegisteredWatch(t *testing.T) {
	w, err := sim.New(sim.Config{Seed: 1, Servers: 3, KeepTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recording{}
	w.SpawnOn("", []int{2}, func(ctx context.Context, conn client.Conn) error {
		l := recipes.NewLock(conn, "/app/lock")
		if err := call(rec, conn, 0, models.Acquire, "/app/lock", func() error { _, err := l.Lock(ctx); return err }); err != nil {
			return err
		}
		if err := conn.Sleep(ctx, time.Second); err != nil {
			return err
		}
		return l.Unlock(ctx)
	})
	w.SpawnOn("", []int{0, 1}, func(ctx context.Context, conn client.Conn) error {
		if err := conn.Sleep(ctx, 100*time.Millisecond); err != nil {
			return err
		}
		l := recipes.NewLock(conn, "/app/lock")
		if err := call(rec, conn, 1, models.Acquire, "/app/lock", func() error { _, err := l.Lock(ctx); return err }); err != nil {
			return err
		}
		return l.Unlock(ctx)
	})
	sched, err := fault.ParseSchedule("at 900ms isolate s2 for 8s") // c2's server, with seed 1
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Inject(sched); err != nil {
		t.Fatal(err)
	}
	res := w.Run()
	if res.Err != nil || len(res.Violations) > 0 {
		t.Fatalf("run failed: %v %v", res.Err, res.Violations)
	}
	in := &models.Input{Ops: rec.history(int64(res.End)), End: int64(res.End), Traffic: Traffic(w.Trace())}
	if first := in.Traffic[slices.IndexFunc(in.Traffic, func(tr models.Traffic) bool {
		return tr.Kind == models.Sent && tr.Client == 1
	})]; first.Server != 1 {
		t.Fatalf("c2 first connected to s%d, not s2: the faults miss it", first.Server+1)
	}
	var reregistered []models.Traffic
	for _, tr := range in.Traffic {
		if tr.Kind == models.Notified && tr.Client == 1 {
			reregistered = append(reregistered, tr)
		}
	}
	if len(reregistered) != 1 || reregistered[0].Zxid != 0 || reregistered[0].Event != "NodeDeleted" {
		var b strings.Builder
		w.Trace().WriteTo(&b)
		t.Fatalf("c2's events: %+v; want one NodeDeleted of zxid 0\n%s", reregistered, b.String())
	}
	st := models.HerdOf(in, "/app/lock")
	if len(st.Releases) != 2 || st.Releases[0].Woken != 0 || st.Notifications != 1 {
		t.Fatalf("releases %+v, %d notifications: want c1's release waking nobody, and one notification in all", st.Releases, st.Notifications)
	}
}
