package live

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/recipes"
)

// The recipes' lost create() reply, for real: the create is applied, the
// connection drops before its reply arrives, and the call fails with
// ErrConnectionClosed. The lock recipe finds its node by its guid and
// holds the lock with one node; the no-guid variant creates a second and
// waits on its own orphan until its deadline.
func TestLostCreateReplyLive(t *testing.T) {
	e := startEnsemble(t, 3)
	lockNodes := func(c *Conn, ctx context.Context) []string {
		kids, _, err := c.Children(ctx, "/zksim/lock")
		if err != nil {
			t.Fatal(err)
		}
		return kids
	}

	// The raw effect: create #1 applied, its reply lost.
	f := NewClientFaults()
	if err := f.LoseReply(client.OpCreate, 1); err != nil {
		t.Fatal(err)
	}
	c, err := Dial(e.ConnectString(), Options{SessionTimeout: 6 * time.Second, Dialer: f.Dialer()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Create(ctx, "/applied", nil, 0, zk.WorldACL(zk.PermAll)); !errors.Is(err, zk.ErrConnectionClosed) {
		t.Fatalf("create with its reply lost: %v, want ErrConnectionClosed", err)
	}
	if ok, _, err := c.Exists(ctx, "/applied"); err != nil || !ok {
		t.Fatalf("the create whose reply was lost was not applied: %v %v", ok, err)
	}

	// The recipe: create #1 /zksim, #2 /zksim/lock, #3 the lock node.
	for _, tc := range []struct {
		name    string
		newLock func(*Conn) recipes.Locker
		holds   bool
	}{
		{"recipe", func(c *Conn) recipes.Locker { return recipes.NewLock(c, "/zksim/lock") }, true},
		{"no-guid", func(c *Conn) recipes.Locker { return recipes.NewNoGUIDLock(c, "/zksim/lock") }, false},
	} {
		f := NewClientFaults()
		f.LoseReply(client.OpCreate, 3)
		c, err := Dial(e.ConnectString(), Options{SessionTimeout: 6 * time.Second, Dialer: f.Dialer()})
		if err != nil {
			t.Fatal(err)
		}
		lctx, lcancel := context.WithTimeout(ctx, 5*time.Second)
		lease, err := tc.newLock(c).Lock(lctx)
		lcancel()
		nodes := lockNodes(c, ctx)
		switch {
		case tc.holds && (err != nil || lease == nil || len(nodes) != 1):
			t.Fatalf("%s: lock %v with nodes %v, want it held with one node", tc.name, err, nodes)
		case !tc.holds && (!errors.Is(err, context.DeadlineExceeded) || len(nodes) != 1):
			// It waited on its own orphan until its deadline, then removed
			// the node it knew of: the orphan stays, owned by its session.
			t.Fatalf("%s: lock %v with nodes %v, want it to wait on its orphan, which stays", tc.name, err, nodes)
		case !tc.holds:
			if _, st, err := c.Exists(ctx, "/zksim/lock/"+nodes[0]); err != nil || st.EphemeralOwner != c.SessionID() {
				t.Fatalf("%s: the node left is not its own orphan: %v", tc.name, err)
			}
		}
		t.Logf("%s: %v, nodes %s", tc.name, err, strings.Join(nodes, " "))
		c.Close() // its session ends: its nodes go
		for deadline := time.Now().Add(10 * time.Second); len(lockNodes(c2(t, e), ctx)) > 0 && time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// c2 is a plain session for looking.
func c2(t *testing.T, e *Ensemble) *Conn {
	t.Helper()
	c, err := Dial(e.ConnectString(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// A fault tied to a failed request counts only the requests of its type
// the server answered with an error, as the simulator's does
// (sim.TestLostReplyOfAFailedRequest): the second delete that fails loses
// its reply, whatever succeeded between; the others answer as usual, and
// the fault says when it struck.
func TestLostReplyOfAFailedRequestLive(t *testing.T) {
	e := startEnsemble(t, 1)
	f := NewClientFaults()
	if err := f.LoseFailedReply(client.OpDelete, 2); err != nil {
		t.Fatal(err)
	}
	c, err := Dial(e.ConnectString(), Options{SessionTimeout: 6 * time.Second, Dialer: f.Dialer()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Create(ctx, "/a", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	var errs []error
	for _, p := range []string{"/none", "/a", "/none", "/none"} {
		errs = append(errs, c.Delete(ctx, p, -1))
	}
	want := []error{zk.ErrNoNode, nil, zk.ErrConnectionClosed, zk.ErrNoNode}
	for i := range want {
		if !errors.Is(errs[i], want[i]) && errs[i] != want[i] {
			t.Fatalf("deletes answered %v, want %v", errs, want)
		}
	}
	if _, ok := f.FailedStruckAt(client.OpDelete, 2); !ok {
		t.Error("the fault on the second failed delete is not said to have struck")
	}
	if _, ok := f.StruckAt(client.OpDelete, 2); ok {
		t.Error("the second delete, which succeeded, is said to have been struck")
	}
}

// A client black-holed past its session timeout loses its session: the
// ensemble expires it, deletes its ephemeral node, and the client learns
// of the expiry when it gets through again, as go-zookeeper/zk does and the
// simulator's client does (sim's TestPausePastTimeoutExpiresTheSession):
// it reports StateExpired on the connection that got through, fails its
// watches with ErrSessionExpired, and opens a new session on a new
// connection.
func TestBlackHoleExpiresTheSession(t *testing.T) {
	e := startEnsemble(t, 1)
	f := NewClientFaults()
	c, err := Dial(e.ConnectString(), Options{SessionTimeout: 4 * time.Second, Dialer: f.Dialer()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Create(ctx, "/mine", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	oldID := c.SessionID()
	_, _, watch, err := c.GetW(ctx, "/mine")
	if err != nil {
		t.Fatal(err)
	}
	sub := c.SessionEvents()
	f.BlackHole(7 * time.Second)
	var states []zk.State
	for c.State() != zk.StateHasSession || c.SessionID() == oldID {
		ev, err := sub.Next(ctx)
		if err != nil {
			t.Fatalf("no new session after the expiry (states %v): %v", states, err)
		}
		states = append(states, ev.State)
	}
	// While black-holed the client may try and fail many times; from the
	// connection that got through on, the states are the simulator's.
	i := slices.Index(states, zk.StateExpired)
	want := []zk.State{zk.StateConnecting, zk.StateConnected, zk.StateExpired,
		zk.StateDisconnected, zk.StateConnecting, zk.StateConnected, zk.StateHasSession}
	if i < 2 || !slices.Equal(states[i-2:], want) {
		t.Errorf("states %v; want them to end %v, as in the simulator", states, want)
	}
	ev, err := watch.Wait(ctx)
	if err != nil || ev.Type != zk.EventNotWatching || !errors.Is(ev.Err, zk.ErrSessionExpired) {
		t.Errorf("the watch set before the expiry fired with %+v, %v; want NotWatching with ErrSessionExpired", ev, err)
	}
	if ok, _, err := c2(t, e).Exists(ctx, "/mine"); err != nil || ok {
		t.Fatalf("the expired session's ephemeral node: %v %v", ok, err)
	}
}

// A disconnect tied to a read's answer or to a notification, as the
// simulator's "when cN OP#K applied: disconnect cN for D": the client's
// cable is pulled as the answer comes. Shorter than the library's read
// deadline (two thirds of the session timeout), the answer arrives late
// and the connection lives: no state change. Longer, the library notices
// the silence at its deadline, not at once, and the answer is lost with
// the connection; the session, cut for less than its timeout, survives,
// and a watch whose notification came with the disconnect fires all the
// same. A fault tied to getChildren strikes the library's listing.
func TestDisconnectTiedToEventsLive(t *testing.T) {
	e := startEnsemble(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	f := NewClientFaults()
	if err := f.Disconnect(client.OpExists, 1, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := f.Disconnect(client.OpExists, 2, 7*time.Second); err != nil {
		t.Fatal(err)
	}
	f.DisconnectOnNotification(1, 2*time.Second)
	c, err := Dial(e.ConnectString(), Options{SessionTimeout: 8 * time.Second, Dialer: f.Dialer()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sub := c.SessionEvents()
	if _, err := c.Sync(ctx, "/"); err != nil {
		t.Fatal(err)
	}
	drainEvents(sub)
	start := time.Now()
	if _, _, err := c.Exists(ctx, "/x"); err != nil {
		t.Fatalf("an exists whose answer came with a 2s disconnect: %v, want its answer, late", err)
	}
	if d := time.Since(start); d < 1500*time.Millisecond {
		t.Errorf("the answer came %v after the call, want after the 2s silence", d)
	}
	if evs := drainEvents(sub); len(evs) > 0 {
		t.Errorf("session events %v across a silence shorter than the read deadline, want none", evs)
	}
	if _, ok := f.StruckAt(client.OpExists, 1); !ok {
		t.Errorf("the disconnect tied to exists#1 is not reported as struck")
	}
	id := c.SessionID()
	start = time.Now()
	if _, _, err := c.Exists(ctx, "/x"); !errors.Is(err, zk.ErrConnectionClosed) {
		t.Fatalf("an exists whose answer came with a 7s disconnect: %v, want ErrConnectionClosed", err)
	}
	if d := time.Since(start); d < 4*time.Second || d > 6500*time.Millisecond {
		t.Errorf("the library gave the connection up %v after the silence began, want at its read deadline (5.3s)", d)
	}
	for { // meanwhile the library fails calls queued past a round of the servers (ErrNoServer)
		_, _, err := c.Exists(ctx, "/x")
		if err == nil {
			break
		}
		if !errors.Is(err, zk.ErrNoServer) && !errors.Is(err, zk.ErrConnectionClosed) || ctx.Err() != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d < 6500*time.Millisecond {
		t.Errorf("the next call went through %v after the disconnect, want after the 7s cut", d)
	}
	if c.SessionID() != id {
		t.Errorf("the session changed across a cut shorter than its timeout")
	}
	_, _, w, err := c.ExistsW(ctx, "/y")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c2(t, e).Create(ctx, "/y", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if ev, err := w.Wait(ctx); err != nil || ev.Type != zk.EventNodeCreated {
		t.Errorf("the watch whose notification came with a disconnect: %+v %v, want NodeCreated", ev, err)
	}
	if _, ok := f.NotificationStruckAt(1); !ok {
		t.Errorf("the disconnect tied to notification #1 is not reported as struck")
	}
	// getChildren, as the simulator names the listing the library sends
	// as getChildren2.
	if err := f.LoseReply(client.OpGetChildren, 1); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Children(ctx, "/"); !errors.Is(err, zk.ErrConnectionClosed) {
		t.Errorf("a listing whose reply was lost: %v, want ErrConnectionClosed", err)
	}
}

// drainEvents takes the events a subscription holds now.
func drainEvents(sub interface{ Poll() (zk.Event, bool) }) []zk.State {
	var out []zk.State
	for {
		ev, ok := sub.Poll()
		if !ok {
			return out
		}
		out = append(out, ev.State)
	}
}

// A request lost on its way (the connection drops as it goes out) fails
// with ErrConnectionClosed and is not applied: the release whose delete
// did nothing, beside the lost reply of one that did. A delayed reply and
// a delayed notification arrive no earlier than their delay; a lost
// notification drops the connection, and the watch fires after the
// reconnection all the same.
func TestLostRequestAndDelaysLive(t *testing.T) {
	e := startEnsemble(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	acl := zk.WorldACL(zk.PermAll)
	f := NewClientFaults()
	if err := f.LoseRequest(client.OpDelete, 1); err != nil {
		t.Fatal(err)
	}
	if err := f.DelayReply(client.OpGetData, 1, time.Second); err != nil {
		t.Fatal(err)
	}
	f.Notification(1, time.Second)
	f.Notification(2, 0)
	c, err := Dial(e.ConnectString(), Options{SessionTimeout: 6 * time.Second, Dialer: f.Dialer()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	other := c2(t, e)
	if _, err := c.Create(ctx, "/d", nil, 0, acl); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, "/d", -1); !errors.Is(err, zk.ErrConnectionClosed) {
		t.Fatalf("a delete whose request was lost: %v, want ErrConnectionClosed", err)
	}
	if ok, _, err := other.Exists(ctx, "/d"); err != nil || !ok {
		t.Fatalf("the delete whose request was lost was applied: exists=%v %v", ok, err)
	}

	start := time.Now()
	if _, _, err := c.Get(ctx, "/d"); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < time.Second {
		t.Errorf("a reply delayed 1s came after %v", d)
	}

	for i, path := range []string{"/n1", "/n2"} {
		_, _, w, err := c.ExistsW(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		start = time.Now()
		if _, err := other.Create(ctx, path, nil, 0, acl); err != nil {
			t.Fatal(err)
		}
		ev, err := w.Wait(ctx)
		if err != nil || ev.Type != zk.EventNodeCreated {
			t.Fatalf("notification %d: %+v %v; want NodeCreated", i+1, ev, err)
		}
		if d := time.Since(start); i == 0 && d < time.Second {
			t.Errorf("a notification delayed 1s came after %v", d)
		}
	}
}

// A latency spike on a client's links slows its round trips by the
// latency each way while it lasts, and no longer after.
func TestClientLinkSlowLive(t *testing.T) {
	_, f, roundTrip := timedClient(t, 6*time.Second)
	f.Slow(150*time.Millisecond, time.Now().Add(2*time.Second))
	if d := roundTrip(); d < 300*time.Millisecond {
		t.Errorf("a round trip took %v with 150ms added each way", d)
	}
	time.Sleep(2 * time.Second)
	if d := min(roundTrip(), roundTrip(), roundTrip()); d >= 300*time.Millisecond {
		t.Errorf("the fastest of three round trips took %v after the spike ended", d)
	}
}

// One direction of a client's link held (OneWay) holds up a round trip
// until it is let go, either way; Uncut lets it go at once.
func TestClientOneWayLive(t *testing.T) {
	e, f, roundTrip := timedClient(t, 10*time.Second)
	for _, toServer := range []bool{true, false} {
		f.OneWay(e.Servers[0].Addr(), toServer, 1500*time.Millisecond)
		if d := roundTrip(); d < time.Second {
			t.Errorf("held toward the server %v: a round trip took %v", toServer, d)
		}
	}
	f.OneWay(e.Servers[0].Addr(), true, 0) // until let go
	time.AfterFunc(500*time.Millisecond, func() { f.Uncut(e.Servers[0].Addr()) })
	if d := roundTrip(); d < 400*time.Millisecond {
		t.Errorf("held until Uncut (500ms): a round trip took %v", d)
	}
}

// timedClient is a client of a one-server ensemble of its own, dialled
// through f, and a function that times one of its round trips (one done
// already, so the session is up).
func timedClient(t *testing.T, session time.Duration) (*Ensemble, *ClientFaults, func() time.Duration) {
	t.Helper()
	e := startEnsemble(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	f := NewClientFaults()
	c, err := Dial(e.ConnectString(), Options{SessionTimeout: session, Dialer: f.Dialer()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	roundTrip := func() time.Duration {
		start := time.Now()
		if _, _, err := c.Exists(ctx, "/"); err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}
	roundTrip()
	return e, f, roundTrip
}

// A client cut from its server (a partition between them) hears nothing
// until the library's read deadline, two thirds of the session timeout,
// as a simulated client across cut links: it then reports Disconnected
// and moves to another server, its session intact.
func TestCutIsSilentLive(t *testing.T) {
	e := startEnsemble(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	f := NewClientFaults()
	c, err := Dial(e.ConnectString(), Options{SessionTimeout: 6 * time.Second, Dialer: f.Dialer(), InOrder: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Sync(ctx, "/"); err != nil {
		t.Fatal(err)
	}
	from, id := c.handle().zk.Server(), c.SessionID()
	sub := c.SessionEvents()
	start := time.Now()
	f.Cut(from, 0)
	defer f.Uncut("")
	ev, err := sub.Next(ctx)
	if err != nil || ev.State != zk.StateDisconnected {
		t.Fatalf("after the cut: %+v, %v; want Disconnected", ev, err)
	}
	if d := time.Since(start); d < 3*time.Second {
		t.Errorf("Disconnected %v after the cut, want at the read deadline (4s)", d)
	}
	for c.State() != zk.StateHasSession {
		if _, err := sub.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if c.SessionID() != id || c.handle().zk.Server() == from {
		t.Errorf("after the cut: session %#x on %s; want %#x on another server than %s", c.SessionID(), c.handle().zk.Server(), id, from)
	}
}

// A fault is armed only on a request the library sends, and a delay only
// when it is one.
func TestArmRefusesWhatNeverComes(t *testing.T) {
	f := NewClientFaults()
	if err := f.LoseReply(client.OpPing, 1); err == nil || !strings.Contains(err.Error(), `lose-reply: unknown request type "ping"`) {
		t.Errorf("a lost ping reply: %v", err)
	}
	if err := f.LoseRequest(client.OpSetWatches, 1); err == nil {
		t.Error("a lost setWatches request was armed")
	}
	if err := f.DelayReply(client.OpGetData, 1, 0); err == nil || !strings.Contains(err.Error(), "positive delay") {
		t.Errorf("a delay of 0: %v", err)
	}
	if err := f.Disconnect(client.OpCreate, 2, time.Second); err != nil {
		t.Errorf("a disconnect on create#2: %v", err)
	}
	if len(f.triggers) != 1 {
		t.Errorf("%d triggers armed, want 1", len(f.triggers))
	}
}
