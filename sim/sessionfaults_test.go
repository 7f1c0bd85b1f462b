package sim

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// disconnectRun cuts c1 from every server for d, while it holds an
// ephemeral node, and reports whether its session survived and when it
// was next usable.
func disconnectRun(t *testing.T, d string) (survived bool, sawExpired bool) {
	w := newWorld(t, Config{Seed: 3})
	w.Spawn("", func(ctx context.Context, c client.Conn) error {
		sub := c.SessionEvents()
		mustDo(c.Create(ctx, "/e", nil, zk.FlagEphemeral, acl))
		before := c.SessionID()
		must(c.Sleep(ctx, 40*time.Second))
		for {
			ev, ok := sub.Poll()
			if !ok {
				break
			}
			sawExpired = sawExpired || ev.State == zk.StateExpired
		}
		ok, _, err := c.Exists(ctx, "/e")
		must(err)
		survived = ok && c.SessionID() == before
		return nil
	})
	inject(t, w, "at 1s disconnect c1 for "+d)
	mustRun(t, w)
	return survived, sawExpired
}

// A disconnect just under the session timeout keeps the session; one well
// over it loses it: the servers expire it, and the client hears so when it
// gets through again.
func TestDisconnectAroundTheSessionTimeout(t *testing.T) {
	if survived, expired := disconnectRun(t, "5s"); !survived || expired {
		t.Errorf("disconnect of half the timeout: session survived %v, expired seen %v; want it kept", survived, expired)
	}
	if survived, expired := disconnectRun(t, "25s"); survived || !expired {
		t.Errorf("disconnect of 2.5 timeouts: session survived %v, expired seen %v; want it expired", survived, expired)
	}
}

// expire has the leader expire a client's session at once: its ephemeral
// node goes, and the client learns of it (StateExpired) and gets a new
// session.
func TestExpireFault(t *testing.T) {
	w := newWorld(t, Config{Seed: 4})
	var gone time.Duration
	var states []zk.State
	var before, after int64
	w.Spawn("", func(ctx context.Context, c client.Conn) error {
		sub := c.SessionEvents()
		mustDo(c.Create(ctx, "/e", nil, zk.FlagEphemeral, acl))
		before = c.SessionID()
		for c.Now().Sub(client.Epoch) < 5*time.Second {
			_, _, _ = c.Exists(ctx, "/e")
			must(c.Sleep(ctx, 100*time.Millisecond))
		}
		for {
			ev, ok := sub.Poll()
			if !ok {
				break
			}
			states = append(states, ev.State)
		}
		after = c.SessionID()
		return nil
	})
	w.Spawn("", func(ctx context.Context, c client.Conn) error {
		must(c.Sleep(ctx, 500*time.Millisecond))
		for {
			ok, _, wt, err := c.ExistsW(ctx, "/e")
			must(err)
			if !ok {
				gone = time.Duration(w.Now())
				return nil
			}
			mustDo(wt.Wait(ctx))
		}
	})
	inject(t, w, "at 2s expire c1")
	mustRun(t, w)
	if gone < 2*time.Second || gone > 2100*time.Millisecond {
		t.Errorf("the expired session's ephemeral went at %v; want at once after 2s", gone)
	}
	if !containsState(states, zk.StateExpired) || after == before || after == 0 {
		t.Errorf("client saw %v, sessions %#x then %#x; want StateExpired and a new session", states, before, after)
	}
}

func containsState(states []zk.State, st zk.State) bool {
	for _, s := range states {
		if s == st {
			return true
		}
	}
	return false
}

// A lagging server serves reads from what it had: a client on it reads a
// node another client has set as it was, a sync waits for the lag to end,
// and after it the read is fresh.
func TestLagServesStaleReadsUntilItCatchesUp(t *testing.T) {
	w := newWorld(t, Config{Seed: 5})
	var stale, fresh string
	var syncedAt time.Duration
	w.SpawnOn("", []int{1}, func(ctx context.Context, c client.Conn) error {
		mustDo(c.Create(ctx, "/v", []byte("old"), 0, acl))
		must(c.Sleep(ctx, 2*time.Second))
		data, _, err := c.Get(ctx, "/v")
		must(err)
		stale = string(data)
		mustDo(c.Sync(ctx, "/v"))
		syncedAt = time.Duration(w.Now())
		data, _, err = c.Get(ctx, "/v")
		must(err)
		fresh = string(data)
		return nil
	})
	w.SpawnOn("", []int{0, 2}, func(ctx context.Context, c client.Conn) error {
		must(c.Sleep(ctx, time.Second))
		mustDo(c.Set(ctx, "/v", []byte("new"), -1))
		return nil
	})
	inject(t, w, "at 500ms lag s2 for 3s")
	mustRun(t, w)
	if stale != "old" || fresh != "new" {
		t.Errorf("reads on the lagging server: %q during the lag, %q after a sync; want old, then new", stale, fresh)
	}
	if syncedAt < 3500*time.Millisecond {
		t.Errorf("sync answered at %v; want after the lag ends (3.5s)", syncedAt)
	}
}

// A session on a lagging server that sent a sync and then writes, giving
// up waiting on each (an impatient recipe), hears the sync answered first
// when the lag ends, then its writes, their zxids never going back (the
// simulator's self-check fails the run otherwise).
func TestLagAnswersASyncBeforeTheWritesAfterIt(t *testing.T) {
	w := newWorld(t, Config{Seed: 5})
	var errs []error
	w.SpawnOn("", []int{1}, func(ctx context.Context, c client.Conn) error {
		mustDo(c.Create(ctx, "/d", nil, 0, acl))
		must(c.Sleep(ctx, time.Second))
		impatient := func(call func(ctx context.Context) error) {
			short, cancel := c.WithTimeout(ctx, 100*time.Millisecond)
			defer cancel()
			errs = append(errs, call(short))
		}
		impatient(func(ctx context.Context) error { _, err := c.Sync(ctx, "/d"); return err })
		impatient(func(ctx context.Context) error { _, err := c.Create(ctx, "/d/a", nil, 0, acl); return err })
		_, err := c.Create(ctx, "/d/b", nil, 0, acl)
		errs = append(errs, err)
		kids, _, err := c.Children(ctx, "/d")
		must(err)
		if len(kids) != 2 {
			t.Errorf("children of /d after the lag: %v; want a and b", kids)
		}
		return nil
	})
	w.SpawnOn("", []int{0, 2}, func(ctx context.Context, c client.Conn) error {
		must(c.Sleep(ctx, 700*time.Millisecond))
		mustDo(c.Create(ctx, "/other", nil, 0, acl)) // the lagging server has not applied it
		return nil
	})
	inject(t, w, "at 500ms lag s2 for 3s")
	mustRun(t, w)
	if len(errs) != 3 || !errors.Is(errs[0], context.DeadlineExceeded) || errs[2] != nil {
		t.Errorf("the sync and writes on the lagging server: %v; want the first two to time out, the last to succeed", errs)
	}
}

// A delete whose request is lost before any server applies it fails with
// ConnectionLoss and leaves the node; one whose reply is lost after it was
// applied fails the same way and the node is gone. The client cannot tell
// them apart, which is why a recipe's release must check.
func TestLostDeleteBeforeAndAfterItIsApplied(t *testing.T) {
	for _, tc := range []struct {
		fault  string
		exists bool
	}{
		{"when c1 delete#1 received: lose-request", true},
		{"when c1 delete#1 applied: lose-reply", false},
	} {
		w := newWorld(t, Config{Seed: 6})
		var delErr error
		var exists bool
		w.Spawn("", func(ctx context.Context, c client.Conn) error {
			mustDo(c.Create(ctx, "/d", nil, 0, acl))
			delErr = c.Delete(ctx, "/d", -1)
			ok, _, err := c.Exists(ctx, "/d")
			must(err)
			exists = ok
			return nil
		})
		inject(t, w, tc.fault)
		mustRun(t, w)
		if !errors.Is(delErr, zk.ErrConnectionClosed) || exists != tc.exists {
			t.Errorf("%s: delete failed with %v, node exists %v; want ErrConnectionClosed and exists=%v", tc.fault, delErr, exists, tc.exists)
		}
	}
}

// notifyRun has c2 watch a node c1 deletes at 1s, under fault, and
// returns when c2's watch fired and with what.
func notifyRun(t *testing.T, fault string) (time.Duration, zk.Event) {
	w := newWorld(t, Config{Seed: 7})
	var at time.Duration
	var ev zk.Event
	w.Spawn("", func(ctx context.Context, c client.Conn) error {
		mustDo(c.Create(ctx, "/n", nil, 0, acl))
		must(c.Sleep(ctx, time.Second))
		return c.Delete(ctx, "/n", -1)
	})
	w.Spawn("", func(ctx context.Context, c client.Conn) error {
		must(c.Sleep(ctx, 200*time.Millisecond))
		_, _, wt, err := c.ExistsW(ctx, "/n")
		must(err)
		ev, err = wt.Wait(ctx)
		at = time.Duration(w.Now())
		return err
	})
	inject(t, w, fault)
	mustRun(t, w)
	return at, ev
}

// A notification can be delayed, or lost with its connection: then the
// client reconnects, sets its watches again, and the server fires the
// watch for what changed meanwhile. Either way the watch fires, later.
func TestNotificationFaults(t *testing.T) {
	plain, _ := notifyRun(t, "")
	delayed, ev := notifyRun(t, "when c2 notified#1: delay 2s")
	if delayed-plain < 2*time.Second || ev.Type != zk.EventNodeDeleted {
		t.Errorf("delayed notification: fired %+v at %v, undelayed at %v; want NodeDeleted 2s later", ev, delayed, plain)
	}
	lost, ev := notifyRun(t, "when c2 notified#1: lose-reply")
	if lost <= plain || ev.Type != zk.EventNodeDeleted {
		t.Errorf("lost notification: fired %+v at %v (undelayed %v); want NodeDeleted again after the reconnection", ev, lost, plain)
	}
}

// A fault tied to a read strikes between that read and the client's next
// call: here c1's session expires right after its getChildren listed its
// own ephemeral node (the expiry lands a commit later), so by its next call the node is gone and the client
// is in another session: what a recipe that lists, then watches, must
// survive.
func TestFaultTiedToARead(t *testing.T) {
	w := newWorld(t, Config{Seed: 8})
	var listed []string
	var exists bool
	var existsErr error
	var before, after int64
	w.Spawn("", func(ctx context.Context, c client.Conn) error {
		mustDo(c.Create(ctx, "/r", nil, 0, acl))
		mustDo(c.Create(ctx, "/r/a", nil, zk.FlagEphemeral, acl))
		before = c.SessionID()
		var err error
		listed, _, err = c.Children(ctx, "/r")
		must(err)
		must(c.Sleep(ctx, 50*time.Millisecond)) // the expiry takes a commit to land
		for {
			exists, _, _, existsErr = c.ExistsW(ctx, "/r/a")
			if !errors.Is(existsErr, zk.ErrSessionExpired) && !errors.Is(existsErr, zk.ErrConnectionClosed) {
				break
			}
		}
		after = c.SessionID()
		return nil
	})
	inject(t, w, "when c1 getChildren#1 applied: expire c1")
	mustRun(t, w)
	if len(listed) != 1 || exists || existsErr != nil || after == before {
		t.Errorf("listed %v, then exists=%v (%v) in session %#x (was %#x); want the node listed, then gone in a new session",
			listed, exists, existsErr, after, before)
	}
}
