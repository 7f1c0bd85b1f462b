package sim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
)

// states drains a subscription's queued events into their states.
func states(sub client.Subscription) []zk.State {
	var out []zk.State
	for {
		ev, ok := sub.Poll()
		if !ok {
			return out
		}
		out = append(out, ev.State)
	}
}

// Close asks the server to close the session: its ephemeral nodes go at
// once (another client sees them gone right after), its other watches fire
// NotWatching with ErrClosing, later calls fail with ErrConnectionClosed,
// and the clock still works.
func TestCloseEndsTheSession(t *testing.T) {
	var (
		watchEv   zk.Event
		ownEv     zk.Event
		afterErr  error
		seen      []zk.State
		sleepErr  error
		closedAt  time.Time
		goneAt    time.Time
		otherSeen bool
	)
	run(t, Config{Seed: 1},
		func(ctx context.Context, c client.Conn) error {
			sub := c.SessionEvents()
			mustDo(c.Create(ctx, "/e", nil, zk.FlagEphemeral, acl))
			_, _, own, err := c.GetW(ctx, "/e")
			must(err)
			_, _, w, err := c.ExistsW(ctx, "/other")
			must(err)
			states(sub)
			c.Close()
			closedAt = c.Now()
			watchEv, _ = w.Wait(ctx)
			ownEv, _ = own.Wait(ctx)
			_, afterErr = c.Create(ctx, "/f", nil, 0, acl)
			seen = states(sub)
			c.Close() // twice: nothing
			sleepErr = c.Sleep(ctx, time.Second)
			return nil
		},
		func(ctx context.Context, c client.Conn) error {
			for {
				ok, _, w, err := c.ExistsW(ctx, "/e")
				must(err)
				if ok {
					otherSeen = true
					ev, err := w.Wait(ctx)
					must(err)
					if ev.Type == zk.EventNodeDeleted {
						goneAt = c.Now()
						return nil
					}
					continue
				}
				if otherSeen {
					goneAt = c.Now()
					return nil
				}
				mustDo(w.Wait(ctx))
			}
		})
	if watchEv.Type != zk.EventNotWatching || !errors.Is(watchEv.Err, zk.ErrClosing) {
		t.Errorf("a watch of a closed session fired %+v; want NotWatching with ErrClosing", watchEv)
	}
	// The server deletes the ephemeral as it closes the session and tells
	// its watchers, the closing session's own among them, before it
	// answers the close (as ZooKeeper's final request processor does).
	if ownEv.Type != zk.EventNodeDeleted || ownEv.Path != "/e" {
		t.Errorf("a watch on the closing session's own ephemeral fired %+v; want its deletion", ownEv)
	}
	if !errors.Is(afterErr, zk.ErrConnectionClosed) {
		t.Errorf("a call after Close failed with %v; want ErrConnectionClosed", afterErr)
	}
	if !slices.Equal(seen, []zk.State{zk.StateDisconnected}) {
		t.Errorf("Close's session events %v; want [StateDisconnected]", seen)
	}
	if sleepErr != nil {
		t.Errorf("Sleep after Close: %v", sleepErr)
	}
	if goneAt.IsZero() || goneAt.Sub(closedAt) > 100*time.Millisecond {
		t.Errorf("ephemeral gone at %v, session closed at %v: want it gone at once", goneAt, closedAt)
	}
}

// NewSession opens a second session for the same process: a new id, its
// own ephemerals, while the first lives on with its own until closed.
func TestNewSessionIsAnotherSession(t *testing.T) {
	var first, second int64
	var both, afterClose []string
	var newWatch bool
	run(t, Config{Seed: 2}, func(ctx context.Context, c client.Conn) error {
		mustDo(c.Create(ctx, "/g", nil, 0, acl))
		mustDo(c.Create(ctx, "/g/a", nil, zk.FlagEphemeral, acl))
		n, err := c.NewSession(ctx)
		must(err)
		mustDo(n.Create(ctx, "/g/b", nil, zk.FlagEphemeral, acl))
		first, second = c.SessionID(), n.SessionID()
		both, _, err = n.Children(ctx, "/g")
		must(err)
		_, _, w, err := n.ChildrenW(ctx, "/g")
		must(err)
		c.Close()
		ev, err := w.Wait(ctx)
		must(err)
		newWatch = ev.Type == zk.EventNodeChildrenChanged
		afterClose, _, err = n.Children(ctx, "/g")
		return err
	})
	slices.Sort(both)
	if first == 0 || second == 0 || first == second {
		t.Fatalf("sessions %#x and %#x: want two different ones", first, second)
	}
	if !slices.Equal(both, []string{"a", "b"}) || !slices.Equal(afterClose, []string{"b"}) || !newWatch {
		t.Fatalf("children with both sessions %v, after closing the first %v (watch fired: %v); want [a b], [b], true",
			both, afterClose, newWatch)
	}
}

// A process pause stops every session of the process: paused past the
// session timeout, both sessions expire.
func TestPauseStopsEverySessionOfTheProcess(t *testing.T) {
	w := newWorld(t, Config{Seed: 3})
	var firstLeft, secondLeft bool
	c := w.Spawn("", func(ctx context.Context, c client.Conn) error {
		n, err := c.NewSession(ctx)
		must(err)
		mustDo(c.Create(ctx, "/a", nil, zk.FlagEphemeral, acl))
		mustDo(n.Create(ctx, "/b", nil, zk.FlagEphemeral, acl))
		must(c.Sleep(ctx, 40*time.Second))
		firstLeft, _, err = n.Exists(ctx, "/a")
		must(err)
		secondLeft, _, err = n.Exists(ctx, "/b")
		return err
	})
	w.At(time.Second, func() { c.Pause(20 * time.Second) })
	mustRun(t, w)
	if firstLeft || secondLeft {
		t.Fatalf("after a 20s pause: /a there %v, /b there %v; want both sessions expired", firstLeft, secondLeft)
	}
}

// Select returns the first ready waitable, the lowest index when several
// are, and the context's error when it ends first.
func TestSelect(t *testing.T) {
	var got []int
	var evs []zk.Event
	var ctxErr error
	run(t, Config{Seed: 4},
		func(ctx context.Context, c client.Conn) error {
			sub := c.SessionEvents()
			_, _, w, err := c.ExistsW(ctx, "/x")
			must(err)
			states(sub)
			late := c.NewTimer(time.Hour)
			i, ev, err := c.Select(ctx, late, w, sub) // the watch: /x is created at 1s
			must(err)
			got, evs = append(got, i), append(evs, ev)
			soon := c.NewTimer(100 * time.Millisecond)
			_, _, w2, err := c.ExistsW(ctx, "/never")
			must(err)
			i, ev, err = c.Select(ctx, w2, soon) // the timer
			must(err)
			got, evs = append(got, i), append(evs, ev)
			i, _, err = c.Select(ctx, soon, w) // both ready: the lowest index
			must(err)
			got = append(got, i)
			if !late.Stop() || soon.Stop() {
				t.Errorf("Stop: want true for the armed timer, false for the fired one")
			}
			short, cancel := c.WithTimeout(ctx, time.Second)
			defer cancel()
			i, _, ctxErr = c.Select(short, w2)
			got = append(got, i)
			return nil
		},
		func(ctx context.Context, c client.Conn) error {
			must(c.Sleep(ctx, time.Second))
			return must3(c.Create(ctx, "/x", nil, 0, acl))
		})
	if !slices.Equal(got, []int{1, 1, 0, -1}) {
		t.Fatalf("Select returned %v; want [1 1 0 -1]", got)
	}
	if evs[0].Type != zk.EventNodeCreated || evs[0].Path != "/x" || evs[1] != (zk.Event{}) {
		t.Fatalf("events %+v; want /x's creation, then the timer's zero event", evs)
	}
	if !errors.Is(ctxErr, context.DeadlineExceeded) {
		t.Fatalf("Select past its context: %v", ctxErr)
	}
}

func must3[T any](_ T, err error) error { return err }

func mustDo[T any](_ T, err error) { must(err) }

// Select wakes on a session event: a process waiting on its watch and
// its session hears that the session expired, although the watch never
// fires with a node event.
func TestSelectWakesOnASessionEvent(t *testing.T) {
	w := newWorld(t, Config{Seed: 5})
	var first zk.Event
	var idx int
	c := w.Spawn("", func(ctx context.Context, c client.Conn) error {
		sub := c.SessionEvents()
		_, _, wt, err := c.ExistsW(ctx, "/nothing")
		must(err)
		states(sub)
		idx, first, err = c.Select(ctx, wt, sub)
		return err
	})
	w.At(time.Second, func() {
		for s := range 3 {
			w.setCut(fault.Target{Kind: fault.ClientT}, fault.Target{Kind: fault.ServerT, Index: s}, true)
		}
	})
	_ = c
	mustRun(t, w)
	if idx != 1 || first.Type != zk.EventSession || first.State != zk.StateDisconnected {
		t.Fatalf("Select returned %d, %+v; want the subscription's Disconnected", idx, first)
	}
}

// A deadlock report says what a Select waited for.
func TestDeadlockReportNamesASelectsWaitables(t *testing.T) {
	_, res := runAllowingFailure(t, Config{Seed: 6}, func(ctx context.Context, c client.Conn) error {
		_, _, w, err := c.ExistsW(ctx, "/never")
		must(err)
		_, _, err = c.Select(ctx, w, c.SessionEvents())
		return err
	})
	var dead *DeadlockError
	if !errors.As(res.Err, &dead) {
		t.Fatalf("run ended with %v; want a deadlock", res.Err)
	}
	if msg := dead.Error(); !strings.Contains(msg, "first of: a watch (set by exists) on /never or a session event") {
		t.Fatalf("deadlock report %q does not say what the Select waited for", msg)
	}
	if dead.Waits[0].OnItsProcess {
		t.Errorf("%s is counted as a wait on its own process, though a watch is the servers'", dead.Waits[0])
	}
}

// Select refuses a waitable of another process, rather than never waking.
func TestSelectRefusesAnotherProcesssWatch(t *testing.T) {
	var shared client.Watch
	_, res := runAllowingFailure(t, Config{Seed: 7},
		func(ctx context.Context, c client.Conn) error {
			var err error
			_, _, shared, err = c.ExistsW(ctx, "/x")
			return err
		},
		func(ctx context.Context, c client.Conn) error {
			must(c.Sleep(ctx, time.Second))
			_, _, err := c.Select(ctx, shared)
			return err
		})
	var failed *ClientError
	if !errors.As(res.Err, &failed) || !strings.Contains(failed.Error(), "waitable of process c1") {
		t.Fatalf("run ended with %v; want c2 failing on c1's watch", res.Err)
	}
}

// localLossRun cuts c1 off from every server at 1s and heals at 18s, with
// a leader failover at 10s that restarts the servers' session timers;
// c2 watches c1's ephemeral node. It returns when c1 saw its session
// expire (zero if it did not), when c2 saw the node go, and c1's session
// ids before and after.
func localLossRun(t *testing.T, local bool) (expiredAt, deletedAt time.Duration, before, after int64) {
	t.Helper()
	w := newWorld(t, Config{Seed: 8, LocalSessionLoss: local})
	w.Spawn("", func(ctx context.Context, c client.Conn) error {
		sub := c.SessionEvents()
		mustDo(c.Create(ctx, "/e", nil, zk.FlagEphemeral, acl))
		before = c.SessionID()
		for {
			ev, err := sub.Next(ctx)
			must(err)
			if ev.State == zk.StateExpired && expiredAt == 0 {
				expiredAt = time.Duration(w.Now())
			}
			if ev.State == zk.StateHasSession && c.SessionID() != before {
				after = c.SessionID()
				return nil
			}
			if ev.State == zk.StateHasSession && w.Now() > Time(18*time.Second) {
				return nil // the old session survived
			}
		}
	})
	w.Spawn("", func(ctx context.Context, c client.Conn) error {
		must(c.Sleep(ctx, 500*time.Millisecond))
		for {
			ok, _, wt, err := c.ExistsW(ctx, "/e")
			must(err)
			if !ok {
				deletedAt = time.Duration(w.Now())
				return nil
			}
			mustDo(wt.Wait(ctx))
		}
	})
	sched, err := fault.ParseSchedule("at 1s partition c1 s1; at 1s partition c1 s2; at 1s partition c1 s3; " +
		"at 10s crash leader for 1s; at 18s heal")
	must(err)
	must(w.Inject(sched))
	mustRun(t, w)
	return
}

// With Config.LocalSessionLoss, a client cut off from the ensemble gives
// its session up by its own clock (StateExpired, then a new session) while
// the servers, whose session timers the failover restarted, still hold the
// old session and its ephemeral node: the window in which two sessions of
// one process both look alive, where real recipes break.
func TestLocalSessionLossDeclaresTheSessionLostBeforeTheServers(t *testing.T) {
	expiredAt, deletedAt, before, after := localLossRun(t, true)
	if expiredAt == 0 {
		t.Fatal("the client never declared its session lost")
	}
	// It notices the silence after 2/3 of the timeout, then waits one
	// whole timeout by its own clock.
	if expiredAt < 15*time.Second || expiredAt > 18*time.Second {
		t.Errorf("declared lost at %v; want 2/3 + 1 session timeouts (10s) after its last word from a server, before the heal at 18s", expiredAt)
	}
	if deletedAt <= expiredAt {
		t.Errorf("the servers deleted the old session's ephemeral at %v, before the client gave the session up at %v; "+
			"want the failover to keep it alive longer", deletedAt, expiredAt)
	}
	if after == 0 || after == before {
		t.Errorf("sessions %#x then %#x: want a new one after the loss", before, after)
	}
}

// Without it (go-zookeeper/zk's behaviour, the default) the client hears
// nothing until it reaches a server again, and learns the servers' verdict
// there.
func TestWithoutLocalSessionLossTheClientWaitsForTheServers(t *testing.T) {
	expiredAt, deletedAt, _, _ := localLossRun(t, false)
	if expiredAt != 0 && expiredAt < 18*time.Second {
		t.Fatalf("the client saw its session expire at %v, while cut off from every server", expiredAt)
	}
	if deletedAt == 0 {
		t.Fatal("the servers never expired the abandoned session")
	}
}

// lifecycleWorkload is a seeded workload of sessions living as libraries
// live them: each client waits with Select on a watch, its session and a
// timer, sometimes replaces its session (NewSession, then Close), under
// random faults, with client-side session loss on every other seed.
func lifecycleWorkload(seed uint64) *World {
	w, err := New(Config{Seed: seed, KeepTrace: true, LocalSessionLoss: seed%2 == 0})
	if err != nil {
		panic(err)
	}
	for i := range 3 {
		w.Spawn("", func(ctx context.Context, conn client.Conn) error {
			c := conn
			if _, err := c.Create(ctx, "/l", nil, 0, acl); !expected(err) {
				return err
			}
			for k := range 12 {
				sub := c.SessionEvents()
				_, err := c.Create(ctx, "/l/e", nil, zk.FlagEphemeral, acl)
				if !expected(err) {
					return err
				}
				_, _, wt, err := c.ExistsW(ctx, "/l/e")
				if !expected(err) {
					return err
				}
				tm := c.NewTimer(time.Duration(1+(k*7+i*3)%5) * time.Second)
				if wt != nil {
					_, _, err = c.Select(ctx, wt, sub, tm)
				} else {
					_, _, err = c.Select(ctx, sub, tm)
				}
				tm.Stop()
				sub.Close()
				if err != nil {
					return err
				}
				if (k+i)%4 == 3 {
					n, err := c.NewSession(ctx)
					if err != nil {
						return err
					}
					c.Close()
					c = n
				}
			}
			return nil
		})
	}
	if err := w.Inject(fault.RandomSchedule(NewSeeded(seed^0x5e55), everyFault, 20*time.Second, 3, 3)); err != nil {
		panic(err)
	}
	return w
}

// Sessions opened, closed, given up by the client and waited on with
// Select replay exactly: the same seed gives the same trace hash.
func TestSessionLifecycleIsDeterministic(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		var hashes [2]uint64
		for i := range hashes {
			w := lifecycleWorkload(seed)
			res := w.Run()
			if res.Err != nil || len(res.Violations) > 0 {
				var buf strings.Builder
				w.Trace().WriteTo(&buf)
				t.Fatalf("seed %d: %v %v\n%s", seed, res.Err, res.Violations, buf.String())
			}
			hashes[i] = res.Hash
		}
		if hashes[0] != hashes[1] {
			t.Fatalf("seed %d: trace hashes %#x and %#x differ", seed, hashes[0], hashes[1])
		}
	}
}

// A client that gives its session up by its own clock while the ensemble
// has no quorum (every server refusing it, the client backing off between
// rounds of dials) gets a new session once a quorum is back, whenever in
// its rounds of dials the loss falls; the run ends cleanly. (The pinned
// run that once made two rounds of dials at once is
// scenarios.TestLocalSessionLossWhileBackingOff.)
func TestLocalSessionLossDuringBackOff(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		down := time.Duration(2000+100*(seed%20)) * time.Millisecond
		w, err := New(Config{Seed: seed, KeepTrace: true, LocalSessionLoss: true,
			TickTime: 250 * time.Millisecond, SessionTimeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		var before, after int64
		w.Spawn("", func(ctx context.Context, c client.Conn) error {
			before = c.SessionID()
			for c.Now().Sub(client.Epoch) < 12*time.Second {
				_, _, err := c.Exists(ctx, "/x")
				if !expected(err) {
					return err
				}
				if err := c.Sleep(ctx, 100*time.Millisecond); err != nil {
					return err
				}
			}
			after = c.SessionID()
			return nil
		})
		sched, err := fault.ParseSchedule(fmt.Sprintf("at 1s crash s3 for %s; at 1.5s crash leader for %s", down, down))
		if err != nil {
			t.Fatal(err)
		}
		must(w.Inject(sched))
		res := w.Run()
		if res.Err != nil || len(res.Violations) > 0 {
			t.Fatalf("seed %d: %v %v", seed, res.Err, res.Violations)
		}
		if after == 0 || after == before {
			t.Errorf("seed %d: sessions %#x then %#x; want a new one after the loss", seed, before, after)
		}
	}
}
