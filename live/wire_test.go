package live

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// What the wire adds to the library, on a real ensemble: create2 answers
// the new node's Stat (the one Exists reads back, an ephemeral's owner the
// session), and nothing when the create fails; the notifications come to
// OnNotification in the order the server sent them; Expire ends the
// session at once, its ephemeral node with it, and the library opens
// another.
func TestWireLive(t *testing.T) {
	e := startEnsemble(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	a, b := c2(t, e), c2(t, e)
	t.Run("create2", func(t *testing.T) { checkCreate2(ctx, t, a) })
	t.Run("notification order", func(t *testing.T) { checkNotificationOrder(ctx, t, a, b) })
	t.Run("ephemerals and counts", func(t *testing.T) { checkEphemeralsAndCounts(ctx, t, a, b) })
	t.Run("expire", func(t *testing.T) { checkExpire(ctx, t, a, b) })
}

// checkEphemeralsAndCounts: getEphemerals lists the session's own, by a
// string prefix; getAllChildrenNumber counts every node below, checks READ
// and answers NoNode; both answer ErrInvalidPath for a malformed path.
func checkEphemeralsAndCounts(ctx context.Context, t *testing.T, a, b *Conn) {
	open := zk.WorldACL(zk.PermAll)
	for _, n := range []struct {
		c     *Conn
		path  string
		flags int32
		acl   []zk.ACL
	}{{a, "/g", 0, open}, {a, "/g/a", 0, open}, {a, "/g/a/b", 0, open}, {a, "/g/c", zk.FlagEphemeral, open},
		{a, "/gx", zk.FlagEphemeral, open}, {b, "/g/d", zk.FlagEphemeral, open}, {a, "/hidden", 0, zk.WorldACL(zk.PermWrite)}} {
		if _, err := n.c.Create(ctx, n.path, nil, n.flags, n.acl); err != nil {
			t.Fatal(err)
		}
	}
	for prefix, want := range map[string][]string{"/g": {"/g/c", "/gx"}, "/": {"/c2/e-0000000000", "/g/c", "/gx"}, "/g/a": {}, "/g/c": {"/g/c"}} {
		got, err := a.GetEphemerals(ctx, prefix)
		slices.Sort(got)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("getEphemerals %s: %q, %v; want %q", prefix, got, err, want)
		}
	}
	if got, err := b.GetEphemerals(ctx, "/"); err != nil || !slices.Equal(got, []string{"/g/d"}) {
		t.Errorf("the other session's getEphemerals /: %q, %v", got, err)
	}
	all := 0
	var walk func(p string)
	walk = func(p string) {
		kids, _, err := a.Children(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range kids {
			all++
			if k != "hidden" { // unreadable, and childless
				walk(strings.TrimSuffix(p, "/") + "/" + k)
			}
		}
	}
	walk("/")
	for path, want := range map[string]int{"/g": 4, "/g/a": 1, "/g/a/b": 0, "/zookeeper": 2, "/": all} {
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
	// The Conn's own syncs are syncs again.
	if p, err := a.Sync(ctx, "/g"); err != nil || p != "/g" {
		t.Errorf("a sync after them: %q, %v", p, err)
	}
}

func checkCreate2(ctx context.Context, t *testing.T, c *Conn) {
	p, st, err := c.Create2(ctx, "/c2", []byte("abc"), 0, zk.WorldACL(zk.PermAll))
	if err != nil || p != "/c2" {
		t.Fatalf("create2: %q, %v", p, err)
	}
	_, back, err := c.Exists(ctx, "/c2")
	if err != nil || *st != *back {
		t.Errorf("create2's Stat %+v, Exists reads %+v (%v)", st, back, err)
	}
	if st.Czxid != st.Mzxid || st.Pzxid != st.Czxid || st.DataLength != 3 || st.Version != 0 {
		t.Errorf("create2's Stat %+v: want czxid = mzxid = pzxid, 3 bytes, version 0", st)
	}
	p, st, err = c.Create2(ctx, "/c2/e-", nil, zk.FlagEphemeralSequential, zk.WorldACL(zk.PermAll))
	if err != nil || p != "/c2/e-0000000000" || st.EphemeralOwner != c.SessionID() {
		t.Errorf("an ephemeral sequential create2: %q, %+v, %v; want its owner %#x", p, st, err, c.SessionID())
	}
	if _, st, err := c.Create2(ctx, "/c2", nil, 0, zk.WorldACL(zk.PermAll)); !errors.Is(err, zk.ErrNodeExists) || st != nil {
		t.Errorf("create2 of an existing node: %+v, %v; want ErrNodeExists and no Stat", st, err)
	}
	// A plain create after it is a create again: its answer is the path.
	if p, err := c.Create(ctx, "/c2/plain", nil, 0, zk.WorldACL(zk.PermAll)); err != nil || p != "/c2/plain" {
		t.Errorf("a create after create2: %q, %v", p, err)
	}
}

func checkNotificationOrder(ctx context.Context, t *testing.T, a, b *Conn) {
	got := make(chan string, 10)
	a.OnNotification(func(ev zk.Event) { got <- fmt.Sprintf("%s %s", ev.Type, ev.Path) })
	defer a.OnNotification(nil)
	if _, err := a.Create(ctx, "/n", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := a.ChildrenW(ctx, "/n"); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := a.GetW(ctx, "/n"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Create(ctx, "/n/k", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Set(ctx, "/n", []byte("x"), -1); err != nil {
		t.Fatal(err)
	}
	var seen []string
	for len(seen) < 2 {
		select {
		case s := <-got:
			seen = append(seen, s)
		case <-ctx.Done():
			t.Fatalf("notifications: %v, then nothing", seen)
		}
	}
	want := []string{"EventNodeChildrenChanged /n", "EventNodeDataChanged /n"}
	if !slices.Equal(seen, want) {
		t.Errorf("notifications %v, want %v in that order", seen, want)
	}
}

func checkExpire(ctx context.Context, t *testing.T, a, b *Conn) {
	if _, err := a.Create(ctx, "/mine", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	events := a.SessionEvents()
	defer events.Close()
	old := a.SessionID()
	start := time.Now()
	if err := a.Expire(ctx); err != nil {
		t.Fatal(err)
	}
	var states []string
	expired := false
	for !expired || states[len(states)-1] != zk.StateHasSession.String() {
		ev, err := events.Next(ctx)
		if err != nil {
			t.Fatalf("session events %v, then %v", states, err)
		}
		states = append(states, ev.State.String())
		expired = expired || ev.State == zk.StateExpired
	}
	t.Logf("expired and replaced in %s: %s", time.Since(start).Round(time.Millisecond), strings.Join(states, ", "))
	if a.SessionID() == old || a.SessionID() == 0 {
		t.Errorf("session %#x after the expiry of %#x: want a new one", a.SessionID(), old)
	}
	if _, err := b.Sync(ctx, "/"); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := b.Exists(ctx, "/mine"); ok || err != nil {
		t.Errorf("the expired session's ephemeral node: exists %v, %v", ok, err)
	}
	if err := ExpireSession(ctx, e0(a), old, nil); err != nil {
		t.Errorf("expiring a session already gone: %v, want nil", err)
	}
}

// e0 is the first server of c's ensemble.
func e0(c *Conn) string { return c.servers[0] }
