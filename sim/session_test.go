package sim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/trace"
)

// newWorld builds a world keeping its trace; the test spawns and runs.
func newWorld(t *testing.T, cfg Config) *World {
	t.Helper()
	cfg.KeepTrace = true
	w, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func mustRun(t *testing.T, w *World) Result {
	t.Helper()
	res := w.Run()
	if res.Err != nil || len(res.Violations) > 0 {
		t.Fatalf("run failed: %v %v", res.Err, res.Violations)
	}
	return res
}

// ZooKeeper negotiates the session timeout into [2, 20] × tickTime
// (ZooKeeperServer.processConnectRequest with the default min/max).
func TestSessionTimeoutNegotiation(t *testing.T) {
	cases := []struct {
		tick, ask, want time.Duration
	}{
		{2 * time.Second, 10 * time.Second, 10 * time.Second},
		{2 * time.Second, time.Second, 4 * time.Second},        // raised to 2 ticks
		{2 * time.Second, 100 * time.Second, 40 * time.Second}, // lowered to 20 ticks
		{500 * time.Millisecond, 3 * time.Second, 3 * time.Second},
	}
	for _, tc := range cases {
		w := newWorld(t, Config{Seed: 1, TickTime: tc.tick, SessionTimeout: tc.ask})
		c := w.Spawn("", func(ctx context.Context, c client.Conn) error {
			_, _, err := c.Exists(ctx, "/")
			return err
		})
		mustRun(t, w)
		if got := c.SessionTimeout(); got != tc.want {
			t.Errorf("tick %v, asked %v: negotiated %v, want %v", tc.tick, tc.ask, got, tc.want)
		}
	}
}

// An idle client keeps its session alive with pings every third of the
// timeout (go-zookeeper/zk's pingInterval = recvTimeout/2 = timeout/3).
func TestHeartbeatsKeepAnIdleSessionAlive(t *testing.T) {
	w := newWorld(t, Config{Seed: 2})
	var before, after int64
	var stillThere bool
	w.Spawn("", func(ctx context.Context, c client.Conn) error {
		if _, err := c.Create(ctx, "/e", nil, zk.FlagEphemeral, acl); err != nil {
			return err
		}
		before = c.SessionID()
		if err := c.Sleep(ctx, time.Minute); err != nil {
			return err
		}
		after = c.SessionID()
		var err error
		stillThere, _, err = c.Exists(ctx, "/e")
		return err
	})
	mustRun(t, w)
	if !stillThere || before != after || before == 0 {
		t.Fatalf("after a minute idle: node there %v, session %#x then %#x", stillThere, before, after)
	}
	pings := 0
	for _, r := range w.Trace().Records() {
		if r.Kind == trace.KPing {
			pings++
		}
	}
	// A minute at one ping per 10s/3: 18 pings, give or take the edges.
	if pings < 17 || pings > 19 {
		t.Fatalf("%d pings in a minute with a 10s session, want about 18", pings)
	}
}

// A client paused past its session timeout loses its session: the server
// expires it on a tick boundary after timeout without a packet, deletes its
// ephemerals and fires their watches; the client learns of it only when it
// reconnects, reports StateExpired, fails its watches with
// ErrSessionExpired, and gets a new session (go-zookeeper/zk's behaviour).
func TestPausePastTimeoutExpiresTheSession(t *testing.T) {
	w := newWorld(t, Config{Seed: 4})
	var (
		oldID, newID  int64
		ownWatchEv    zk.Event
		otherEv       zk.Event
		otherEvAt     time.Duration
		children      []string
		childrenEvent zk.Event
	)
	a := w.Spawn("holder", func(ctx context.Context, c client.Conn) error {
		sub := c.SessionEvents()
		if _, err := c.Create(ctx, "/app", nil, 0, acl); err != nil {
			return err
		}
		if _, err := c.Create(ctx, "/app/eph", []byte("x"), zk.FlagEphemeral, acl); err != nil {
			return err
		}
		oldID = c.SessionID()
		_, _, watch, err := c.GetW(ctx, "/app/eph")
		if err != nil {
			return err
		}
		// Paused at 100ms for 30s (see below): this wait outlasts the pause.
		if ownWatchEv, err = watch.Wait(ctx); err != nil {
			return err
		}
		for c.State() != zk.StateHasSession || c.SessionID() == oldID {
			if _, err := sub.Next(ctx); err != nil {
				return err
			}
		}
		newID = c.SessionID()
		return nil
	})
	states := a.SessionEvents() // subscribed before the run: sees every change
	w.Spawn("watcher", func(ctx context.Context, c client.Conn) error {
		if err := c.Sleep(ctx, 50*time.Millisecond); err != nil {
			return err
		}
		ok, _, watch, err := c.ExistsW(ctx, "/app/eph")
		if err != nil || !ok {
			return fmt.Errorf("exists /app/eph: %v %v", ok, err)
		}
		_, _, cw, err := c.ChildrenW(ctx, "/app")
		if err != nil {
			return err
		}
		if otherEv, err = watch.Wait(ctx); err != nil {
			return err
		}
		otherEvAt = c.Now().Sub(client.Epoch)
		if childrenEvent, err = cw.Wait(ctx); err != nil {
			return err
		}
		children, _, err = c.Children(ctx, "/app")
		return err
	})
	w.At(100*time.Millisecond, func() { a.Pause(30 * time.Second) })
	mustRun(t, w)

	if otherEv.Type != zk.EventNodeDeleted || otherEv.Path != "/app/eph" {
		t.Errorf("watcher saw %+v, want NodeDeleted /app/eph", otherEv)
	}
	// Last packet near 0.1s; expiry at the first 2s tick after +10s.
	if otherEvAt < 10*time.Second || otherEvAt > 12500*time.Millisecond {
		t.Errorf("ephemeral deleted at %v, want between 10s and 12.5s", otherEvAt)
	}
	if childrenEvent.Type != zk.EventNodeChildrenChanged || len(children) != 0 {
		t.Errorf("parent: event %+v, children %v; want NodeChildrenChanged and none left", childrenEvent, children)
	}
	if ownWatchEv.Type != zk.EventNotWatching || !errors.Is(ownWatchEv.Err, zk.ErrSessionExpired) ||
		ownWatchEv.State != zk.StateDisconnected || ownWatchEv.Path != "/app/eph" {
		t.Errorf("holder's own watch fired with %+v, want NotWatching/ErrSessionExpired", ownWatchEv)
	}
	if newID == 0 || newID == oldID {
		t.Errorf("session %#x after expiry, want a new one (was %#x)", newID, oldID)
	}
	want := []zk.State{
		zk.StateConnecting, zk.StateConnected, zk.StateHasSession, // first session
		zk.StateDisconnected, zk.StateConnecting, zk.StateConnected, zk.StateExpired, // resume: expired
		zk.StateDisconnected, zk.StateConnecting, zk.StateConnected, zk.StateHasSession, // a new session
		zk.StateDisconnected, // the process returned
	}
	if got := drainStates(states); !slices.Equal(got, want) {
		t.Errorf("holder's states\n got %v\nwant %v", got, want)
	}
}

// drainStates takes every state a subscription holds, outside any client.
func drainStates(s client.Subscription) []zk.State {
	var out []zk.State
	for _, ev := range s.(*subscription).queue {
		out = append(out, ev.State)
	}
	return out
}

// A connection silent for longer than the receive timeout (2/3 of the
// session timeout) is declared lost: a request in flight fails with
// ErrConnectionClosed although the server applied it (the recipes' lost
// create() reply); the session survives the reconnection, so the node is
// there, owned by the same session.
func TestConnectionLossFailsInFlightRequestButSessionSurvives(t *testing.T) {
	w := newWorld(t, Config{Seed: 5})
	var createErr error
	var owner, session int64
	var exists bool
	var a *Client
	a = w.Spawn("", func(ctx context.Context, c client.Conn) error {
		// Pause this process 8s (more than the 6.67s receive timeout, less
		// than the 10s session timeout) in the same instant, right after the
		// create below has gone out and before its reply can arrive.
		if _, _, err := c.Exists(ctx, "/"); err != nil { // connected now
			return err
		}
		w.s.after(0, func() { a.Pause(8 * time.Second) })
		_, createErr = c.Create(ctx, "/n", nil, zk.FlagEphemeral, acl)
		var st *zk.Stat
		var err error
		exists, st, err = c.Exists(ctx, "/n")
		if err != nil {
			return err
		}
		owner, session = st.EphemeralOwner, c.SessionID()
		return nil
	})
	mustRun(t, w)
	if !errors.Is(createErr, zk.ErrConnectionClosed) {
		t.Fatalf("create returned %v, want ErrConnectionClosed", createErr)
	}
	if !exists || owner != session || session == 0 {
		t.Fatalf("after reconnecting: node exists %v, owner %#x, session %#x; want it owned by the surviving session", exists, owner, session)
	}
}

// After a reconnection the client re-registers its watches with the last
// zxid it saw, and the server fires at once those whose node changed while
// it was away (DataTree.setWatches); a change made while the client is
// disconnected reaches it only after it reconnects.
func TestWatchesReRegisteredOnReconnect(t *testing.T) {
	w := newWorld(t, Config{Seed: 6, Servers: 1})
	var ev zk.Event
	var evAt, resumedAt time.Duration
	a := w.Spawn("", func(ctx context.Context, c client.Conn) error {
		if _, err := c.Create(ctx, "/cfg", []byte("v1"), 0, acl); err != nil {
			return err
		}
		_, _, watch, err := c.GetW(ctx, "/cfg")
		if err != nil {
			return err
		}
		if ev, err = watch.Wait(ctx); err != nil {
			return err
		}
		evAt = c.Now().Sub(client.Epoch)
		return nil
	})
	w.Spawn("", func(ctx context.Context, c client.Conn) error {
		if err := c.Sleep(ctx, time.Second); err != nil {
			return err
		}
		_, err := c.Set(ctx, "/cfg", []byte("v2"), -1)
		return err
	})
	w.At(100*time.Millisecond, func() { a.Pause(8 * time.Second) })
	resumedAt = 8100 * time.Millisecond
	mustRun(t, w)
	if ev.Type != zk.EventNodeDataChanged || ev.Path != "/cfg" {
		t.Fatalf("watch fired with %+v, want NodeDataChanged /cfg", ev)
	}
	// Resumed at 8.1s, found the connection dead, waited 1s before dialling
	// the only server again (the library's back-off): the event comes after.
	if evAt < resumedAt+time.Second {
		t.Fatalf("event at %v, want after the reconnection (after %v)", evAt, resumedAt+time.Second)
	}
	notifies := 0
	for _, r := range w.Trace().Records() {
		if r.Kind == trace.KNotify && r.To == a.actor {
			notifies++
		}
	}
	if notifies != 2 {
		t.Fatalf("%d notifications to the client, want 2: one lost with the old connection, one from setWatches", notifies)
	}
}

// A short pause (ending before the receive deadline) costs the client
// nothing: it keeps its connection and session, and its ping ticker goes on
// at the same pace; the tick that fell due while it was stopped is sent on
// resuming, as a time.Ticker's buffered tick would be.
func TestShortPauseKeepsConnectionAndPingPace(t *testing.T) {
	w := newWorld(t, Config{Seed: 8})
	var before, after int64
	a := w.Spawn("", func(ctx context.Context, c client.Conn) error {
		if _, _, err := c.Exists(ctx, "/"); err != nil {
			return err
		}
		before = c.SessionID()
		if err := c.Sleep(ctx, time.Minute); err != nil {
			return err
		}
		after = c.SessionID()
		return nil
	})
	// Pings at 3.33s and 6.67s; paused through the one due at 10s.
	w.At(10*time.Second, func() { a.Pause(3 * time.Second) })
	mustRun(t, w)
	pings, lost := 0, 0
	for _, r := range w.Trace().Records() {
		switch r.Kind {
		case trace.KPing:
			pings++
		case trace.KTimeout, trace.KExpire:
			lost++
		}
	}
	if before == 0 || before != after || lost != 0 {
		t.Fatalf("session %#x then %#x, %d losses: want the same session and none", before, after, lost)
	}
	// 18 pings in a minute at 10s/3; the one due in the pause is sent late.
	if pings < 17 || pings > 19 {
		t.Fatalf("%d pings in a minute with a 3s pause, want about 18", pings)
	}
}

// A client spawned by an event while the run goes on connects and works
// like the others.
func TestSpawnDuringTheRun(t *testing.T) {
	w := newWorld(t, Config{Seed: 9})
	var got []byte
	w.Spawn("first", func(ctx context.Context, c client.Conn) error {
		if _, err := c.Create(ctx, "/x", []byte("hello"), 0, acl); err != nil {
			return err
		}
		return c.Sleep(ctx, time.Second)
	})
	w.At(500*time.Millisecond, func() {
		w.Spawn("late", func(ctx context.Context, c client.Conn) error {
			var err error
			got, _, err = c.Get(ctx, "/x")
			return err
		})
	})
	mustRun(t, w)
	if string(got) != "hello" {
		t.Fatalf("the late client read %q, want hello", got)
	}
}

// A closed subscription is forgotten: a lease opens one per acquisition,
// and a client that took a lock a thousand times keeps none of them.
func TestClosedSubscriptionsAreForgotten(t *testing.T) {
	w := newWorld(t, Config{Seed: 3})
	var open, after int
	c := w.Spawn("", func(ctx context.Context, c client.Conn) error {
		keep := c.SessionEvents()
		for range 1000 {
			c.SessionEvents().Close()
		}
		open = len(w.clients[0].subs)
		keep.Close()
		keep.Close() // twice is harmless
		after = len(w.clients[0].subs)
		return nil
	})
	mustRun(t, w)
	if open != 1 || after != 0 {
		t.Errorf("%s keeps %d subscriptions with one open, %d with none; want 1 and 0", c.Name(), open, after)
	}
}
