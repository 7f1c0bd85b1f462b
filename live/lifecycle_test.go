package live

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// The session's lifecycle against the real server, as the simulator's
// tests (sim/lifecycle_test.go) check it there: Close deletes the
// session's ephemeral nodes at once, fires its watches with ErrClosing and
// fails later calls with ErrConnectionClosed; NewSession opens a session
// of its own; Select returns the first ready waitable, the lowest index
// among several.
func TestSessionLifecycleLive(t *testing.T) {
	e := startEnsemble(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	acl := zk.WorldACL(zk.PermAll)
	c1 := c2(t, e)
	other := c2(t, e)
	if _, err := c1.Create(ctx, "/e", nil, zk.FlagEphemeral, acl); err != nil {
		t.Fatal(err)
	}
	_, _, w, err := c1.ExistsW(ctx, "/w")
	if err != nil {
		t.Fatal(err)
	}
	c1.Close()
	if ok, _, err := other.Exists(ctx, "/e"); err != nil || ok {
		t.Errorf("after Close the session's ephemeral node: exists=%v err=%v; want it gone at once", ok, err)
	}
	if ev, ok := w.Poll(); !ok || ev.Type != zk.EventNotWatching || !errors.Is(ev.Err, zk.ErrClosing) {
		t.Errorf("after Close a watch polls %+v, %v; want NotWatching with ErrClosing", ev, ok)
	}
	if _, err := c1.Create(ctx, "/x", nil, 0, acl); !errors.Is(err, zk.ErrConnectionClosed) {
		t.Errorf("a call after Close: %v; want ErrConnectionClosed", err)
	}

	n, err := other.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if _, err := n.Create(ctx, "/n", nil, zk.FlagEphemeral, acl); err != nil {
		t.Fatal(err)
	}
	if n.SessionID() == other.SessionID() {
		t.Errorf("NewSession kept session %#x", n.SessionID())
	}

	_, _, w, err = other.ExistsW(ctx, "/later")
	if err != nil {
		t.Fatal(err)
	}
	sub := other.SessionEvents()
	defer sub.Close()
	i, _, err := other.Select(ctx, w, sub, other.NewTimer(100*time.Millisecond))
	if i != 2 || err != nil {
		t.Errorf("Select with only the timer due: %d, %v; want 2 (the timer)", i, err)
	}
	go func() { _, _ = n.Create(ctx, "/later", nil, 0, acl) }()
	i, ev, err := other.Select(ctx, w, sub, other.NewTimer(20*time.Second))
	if i != 0 || err != nil || ev.Type != zk.EventNodeCreated {
		t.Errorf("Select with the watch due: %d %+v %v; want 0, NodeCreated", i, ev, err)
	}
	tm := other.NewTimer(0)
	for {
		if _, ok := tm.Poll(); ok {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if i, _, _ := other.Select(ctx, tm, w); i != 0 {
		t.Errorf("Select with two ready: %d; want the lowest index, 0", i)
	}
	ended, stop := context.WithCancel(ctx)
	stop()
	if i, _, err := other.Select(ended, other.NewTimer(time.Hour)); i != -1 || !errors.Is(err, context.Canceled) {
		t.Errorf("Select on an ended context: %d, %v; want -1 and its error", i, err)
	}
}

// With LocalSessionLoss, a client cut off from the ensemble gives its
// session up by its own clock, as in the simulator: its subscribers see
// StateExpired while it still cannot reach a server, a watch it had fails
// with ErrSessionExpired, and once it gets through it works in a new
// session.
func TestLocalSessionLossLive(t *testing.T) {
	e := startEnsemble(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	f := NewClientFaults()
	c, err := Dial(e.ConnectString(), Options{SessionTimeout: 4 * time.Second, Dialer: f.Dialer(), LocalSessionLoss: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Create(ctx, "/mine", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	before := c.SessionID()
	_, _, w, err := c.ExistsW(ctx, "/nothing")
	if err != nil {
		t.Fatal(err)
	}
	sub := c.SessionEvents()
	defer sub.Close()
	cut := time.Now()
	f.BlackHole(12 * time.Second)
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			t.Fatalf("no local expiry seen: %v", err)
		}
		if ev.State == zk.StateExpired {
			break
		}
	}
	if at := time.Since(cut); at > 12*time.Second {
		t.Errorf("expired at %v, after the black hole ended: want the client's own clock, not the servers' word", at)
	}
	ev, err := w.Wait(ctx)
	if err != nil || ev.Type != zk.EventNotWatching || !errors.Is(ev.Err, zk.ErrSessionExpired) {
		t.Errorf("the watch of the lost session: %+v %v; want NotWatching with ErrSessionExpired", ev, err)
	}
	for { // calls fail with ErrNoServer until the black hole ends
		_, err := c.Create(ctx, "/after", nil, 0, zk.WorldACL(zk.PermAll))
		if err == nil {
			break
		}
		if !errors.Is(err, zk.ErrNoServer) && !errors.Is(err, zk.ErrConnectionClosed) {
			t.Fatalf("a call in the new session: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if c.SessionID() == before || c.SessionID() == 0 {
		t.Errorf("session %#x after the loss; want a new one (was %#x)", c.SessionID(), before)
	}
}
