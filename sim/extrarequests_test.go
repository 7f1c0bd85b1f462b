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

// create2 answers the new node's Stat, the one Exists reads back (an
// ephemeral's owner the session), and no Stat when the create fails; the
// trace names it create2, so that a fault tied to create does not count
// it. live.TestWireLive checks the same on a real ensemble.
func TestCreate2(t *testing.T) {
	w, _ := run(t, Config{}, func(ctx context.Context, c client.Conn) error {
		p, st, err := c.Create2(ctx, "/c2", []byte("abc"), 0, acl)
		must(err)
		_, back, err := c.Exists(ctx, "/c2")
		must(err)
		if p != "/c2" || *st != *back {
			t.Errorf("create2: %q, Stat %+v; Exists reads %+v", p, st, back)
		}
		if st.Czxid != st.Mzxid || st.Pzxid != st.Czxid || st.DataLength != 3 || st.Version != 0 {
			t.Errorf("create2's Stat %+v: want czxid = mzxid = pzxid, 3 bytes, version 0", st)
		}
		p, st, err = c.Create2(ctx, "/c2/e-", nil, zk.FlagEphemeralSequential, acl)
		if err != nil || p != "/c2/e-0000000000" || st.EphemeralOwner != c.SessionID() {
			t.Errorf("an ephemeral sequential create2: %q, %+v, %v; want its owner %#x", p, st, err, c.SessionID())
		}
		if _, st, err := c.Create2(ctx, "/c2", nil, 0, acl); !errors.Is(err, zk.ErrNodeExists) || st != nil {
			t.Errorf("create2 of an existing node: %+v, %v; want ErrNodeExists and no Stat", st, err)
		}
		return nil
	})
	n := 0
	for r := range w.Trace().All() {
		if r.Kind == trace.KSend && r.Op == client.OpCreate2 {
			n++
		}
	}
	if n != 3 {
		t.Errorf("%d create2 requests in the trace, want 3", n)
	}
}

// World.Expire ends a client's session as the fault does: its ephemeral
// node goes (its own watch on it hears nothing: docs/fidelity.md), it
// learns of the expiry when it next reaches a server, and it opens
// another session. OnNotification hears the notifications in
// the order the server sent them.
func TestExpireAndNotificationOrder(t *testing.T) {
	w := newWorld(t, Config{Seed: 3})
	w.Spawn("", func(ctx context.Context, c client.Conn) error {
		var seen []string
		c.(*Client).OnNotification(func(ev zk.Event) { seen = append(seen, fmt.Sprintf("%s %s", ev.Type, ev.Path)) })
		mustDo(c.Create(ctx, "/n", nil, 0, acl))
		_, _, _, err := c.ChildrenW(ctx, "/n")
		must(err)
		_, _, _, err = c.GetW(ctx, "/n")
		must(err)
		mustDo(c.Create(ctx, "/n/k", nil, 0, acl))
		mustDo(c.Set(ctx, "/n", []byte("x"), -1))
		if want := []string{"EventNodeChildrenChanged /n", "EventNodeDataChanged /n"}; !slices.Equal(seen, want) {
			t.Errorf("notifications %v, want %v in that order", seen, want)
		}
		mustDo(c.Create(ctx, "/mine", nil, zk.FlagEphemeral, acl))
		_, _, own, err := c.GetW(ctx, "/mine")
		must(err)
		old := c.SessionID()
		events := c.SessionEvents()
		w.Expire(0)
		expired := false
		for {
			ev, err := events.Next(ctx)
			must(err)
			expired = expired || ev.State == zk.StateExpired
			if expired && ev.State == zk.StateHasSession {
				break
			}
		}
		if c.SessionID() == old {
			t.Errorf("session %#x after the expiry: want a new one", old)
		}
		// The servers dropped the session's connection before its node's
		// deletion notified: its watch on the node ends unheard.
		if ev, _ := own.Poll(); ev.Type != zk.EventNotWatching || !errors.Is(ev.Err, zk.ErrSessionExpired) {
			t.Errorf("the expired session's watch on its own node: %+v, want NotWatching (session expired)", ev)
		}
		if ok, _, err := c.Exists(ctx, "/mine"); ok || err != nil {
			t.Errorf("the expired session's ephemeral node: exists %v, %v", ok, err)
		}
		return nil
	})
	if res := w.Run(); res.Err != nil {
		t.Fatal(res.Err)
	}
}

// getEphemerals lists the session's own ephemeral nodes by a string
// prefix; getAllChildrenNumber counts every node below (below "/", all
// but the root, ZooKeeper's own included), checks READ and answers
// NoNode; both refuse a malformed path. live.TestWireLive checks the same
// on a real ensemble.
func TestGetEphemeralsAndAllChildrenNumber(t *testing.T) {
	ready := false
	run(t, Config{Seed: 4}, func(ctx context.Context, a client.Conn) error {
		for _, n := range []struct {
			path  string
			flags int32
			acl   []zk.ACL
		}{{"/g", 0, acl}, {"/g/a", 0, acl}, {"/g/a/b", 0, acl}, {"/g/c", zk.FlagEphemeral, acl},
			{"/gx", zk.FlagEphemeral, acl}, {"/hidden", 0, zk.WorldACL(zk.PermWrite)}} {
			mustDo(a.Create(ctx, n.path, nil, n.flags, n.acl))
		}
		for !ready {
			must(a.Sleep(ctx, time.Millisecond))
		}
		mustDo(a.Sync(ctx, "/"))
		for prefix, want := range map[string][]string{"/g": {"/g/c", "/gx"}, "/": {"/g/c", "/gx"}, "/g/a": {}, "/g/c": {"/g/c"}} {
			got, err := a.GetEphemerals(ctx, prefix)
			slices.Sort(got)
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("getEphemerals %s: %q, %v; want %q", prefix, got, err, want)
			}
		}
		// Below /: /zookeeper, its quota and config, /g and its four, /gx, /hidden.
		for path, want := range map[string]int{"/g": 4, "/g/a": 1, "/g/a/b": 0, "/zookeeper": 2, "/": 10} {
			if n, err := a.GetAllChildrenNumber(ctx, path); err != nil || n != want {
				t.Errorf("getAllChildrenNumber %s: %d, %v; want %d", path, n, err, want)
			}
		}
		if _, err := a.GetAllChildrenNumber(ctx, "/nothing"); !errors.Is(err, zk.ErrNoNode) {
			t.Errorf("getAllChildrenNumber of a missing node: %v, want ErrNoNode", err)
		}
		if _, err := a.GetAllChildrenNumber(ctx, "/hidden"); !errors.Is(err, zk.ErrNoAuth) {
			t.Errorf("getAllChildrenNumber without READ: %v, want ErrNoAuth", err)
		}
		if _, err := a.GetEphemerals(ctx, "/g/"); !errors.Is(err, zk.ErrInvalidPath) {
			t.Errorf("getEphemerals /g/: %v, want ErrInvalidPath", err)
		}
		return nil
	}, func(ctx context.Context, c client.Conn) error {
		for {
			if _, err := c.Create(ctx, "/g/d", nil, zk.FlagEphemeral, acl); err == nil {
				break
			}
			must(c.Sleep(ctx, time.Millisecond))
		}
		if got, err := c.GetEphemerals(ctx, "/"); err != nil || !slices.Equal(got, []string{"/g/d"}) {
			t.Errorf("the other session's getEphemerals /: %q, %v", got, err)
		}
		ready = true
		return c.Sleep(ctx, time.Second) // keeps its session while the other reads
	})
}
