package live

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// drainLive takes every event a subscription holds, as "Type path", once
// the session has caught up (a sync: the events come before its answer).
func drainLive(t *testing.T, ctx context.Context, c *Conn, sub client.Subscription) []string {
	t.Helper()
	if _, err := c.Sync(ctx, "/"); err != nil {
		t.Fatal(err)
	}
	var out []string
	for {
		ev, ok := sub.Poll()
		if !ok {
			return out
		}
		out = append(out, fmt.Sprintf("%s %s", ev.Type, ev.Path))
	}
}

// Persistent and recursive watches on the real server, sent by the wire:
// they hear what the simulator's do, stay after firing and after their
// node's deletion, are set again on a new connection of the session, and
// end on RemoveWatches (a second one: NoWatcher, "unknown error: -121"),
// a one-shot watch on the path ending with them; and on Close.
func TestPersistentWatchesLive(t *testing.T) {
	e := startEnsemble(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := c2(t, e)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// The session first: on a loaded machine the first connection can
	// take a while, and a call queued meanwhile fails with ErrNoServer.
	for c.State() != zk.StateHasSession {
		if ctx.Err() != nil {
			t.Fatalf("no session: state %v", c.State())
		}
		time.Sleep(10 * time.Millisecond)
	}
	per, err := c.AddWatch(ctx, "/p", false)
	must(err)
	rec, err := c.AddWatch(ctx, "/r", true)
	must(err)
	create := func(p string) { _, err := c.Create(ctx, p, nil, 0, zk.WorldACL(zk.PermAll)); must(err) }
	set := func(p string) { _, err := c.Set(ctx, p, []byte("x"), -1); must(err) }
	del := func(p string) { must(c.Delete(ctx, p, -1)) }
	create("/p")
	set("/p")
	create("/p/c")
	set("/p/c")
	del("/p/c")
	del("/p")
	create("/p")
	create("/r")
	create("/r/a")
	create("/r/a/b")
	set("/r/a/b")
	del("/r/a/b")
	create("/rr")
	want := []string{"EventNodeCreated /p", "EventNodeDataChanged /p", "EventNodeChildrenChanged /p",
		"EventNodeChildrenChanged /p", "EventNodeDeleted /p", "EventNodeCreated /p"}
	if got := drainLive(t, ctx, c, per); !slices.Equal(got, want) {
		t.Errorf("persistent watch on /p heard %q, want %q", got, want)
	}
	want = []string{"EventNodeCreated /r", "EventNodeCreated /r/a", "EventNodeCreated /r/a/b",
		"EventNodeDataChanged /r/a/b", "EventNodeDeleted /r/a/b"}
	if got := drainLive(t, ctx, c, rec); !slices.Equal(got, want) {
		t.Errorf("recursive watch on /r heard %q, want %q", got, want)
	}
	// A new connection of the session: the wire sets them again.
	sid := c.SessionID()
	states := c.SessionEvents()
	c.handle().wire.last.Close()
	for _, want := range []zk.State{zk.StateDisconnected, zk.StateHasSession} { // the loss, then the session back
		for {
			ev, err := states.Next(ctx)
			must(err)
			if ev.State == want {
				break
			}
		}
	}
	states.Close()
	if c.SessionID() != sid {
		t.Fatalf("session %#x after the new connection, was %#x", c.SessionID(), sid)
	}
	set("/r/a")
	if got := drainLive(t, ctx, c, rec); !slices.Equal(got, []string{"EventNodeDataChanged /r/a"}) {
		t.Errorf("after a new connection the recursive watch heard %q", got)
	}
	_, _, w, err := c.GetW(ctx, "/p")
	must(err)
	must(c.RemoveWatches(ctx, "/p"))
	if got := drainLive(t, ctx, c, per); !slices.Equal(got, []string{"EventNotWatching /p"}) {
		t.Errorf("after RemoveWatches: %q, want NotWatching", got)
	}
	if ev, ok := w.Poll(); !ok || ev.Type != zk.EventNotWatching {
		t.Errorf("the one-shot watch on /p after RemoveWatches: %v %v, want NotWatching", ev, ok)
	}
	set("/p")
	if got := drainLive(t, ctx, c, per); len(got) != 0 {
		t.Errorf("a removed watch heard %q", got)
	}
	if err := c.RemoveWatches(ctx, "/p"); err == nil || err.Error() != "unknown error: -121" {
		t.Errorf("removing it again: %v, want unknown error: -121", err)
	}
	c.Close()
	if ev, ok := rec.Poll(); !ok || ev.Type != zk.EventNotWatching {
		t.Errorf("after Close: %v %v, want NotWatching", ev, ok)
	}
}
