package sim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// drain takes every event a subscription holds now, as "Type path".
func drain(sub client.Subscription) []string {
	var out []string
	for {
		ev, ok := sub.Poll()
		if !ok {
			return out
		}
		out = append(out, fmt.Sprintf("%s %s", ev.Type, ev.Path))
	}
}

// Persistent and recursive watches hear what ZooKeeper's do, stay after
// firing and after their node's deletion, are set again on a new
// connection, and end on RemoveWatches (a second one: NoWatcher) and on
// Close.
func TestPersistentWatches(t *testing.T) {
	run(t, Config{}, func(ctx context.Context, c client.Conn) error {
		per, err := c.AddWatch(ctx, "/p", false)
		must(err)
		rec, err := c.AddWatch(ctx, "/r", true)
		must(err)
		step := func(f func() error) {
			must(f())
			_, err := c.Sync(ctx, "/") // the events come before the sync's answer
			must(err)
		}
		create := func(p string) func() error {
			return func() error { _, err := c.Create(ctx, p, nil, 0, acl); return err }
		}
		set := func(p string) func() error {
			return func() error { _, err := c.Set(ctx, p, []byte("x"), -1); return err }
		}
		del := func(p string) func() error { return func() error { return c.Delete(ctx, p, -1) } }
		for _, f := range []func() error{create("/p"), set("/p"), create("/p/c"), set("/p/c"), del("/p/c"), del("/p"), create("/p"),
			create("/r"), create("/r/a"), create("/r/a/b"), set("/r/a/b"), del("/r/a/b"), create("/rr")} {
			step(f)
		}
		want := []string{"EventNodeCreated /p", "EventNodeDataChanged /p", "EventNodeChildrenChanged /p",
			"EventNodeChildrenChanged /p", "EventNodeDeleted /p", "EventNodeCreated /p"}
		if got := drain(per); !slices.Equal(got, want) {
			t.Errorf("persistent watch on /p heard %q, want %q", got, want)
		}
		want = []string{"EventNodeCreated /r", "EventNodeCreated /r/a", "EventNodeCreated /r/a/b",
			"EventNodeDataChanged /r/a/b", "EventNodeDeleted /r/a/b"}
		if got := drain(rec); !slices.Equal(got, want) {
			t.Errorf("recursive watch on /r heard %q, want %q", got, want)
		}
		// Set again on the next connection.
		c.(*Client).drop(zk.ErrConnectionClosed)
		_, err = c.Sync(ctx, "/") // reconnected, the watches set again
		must(err)
		step(set("/r/a"))
		if got := drain(rec); !slices.Equal(got, []string{"EventNodeDataChanged /r/a"}) {
			t.Errorf("after a reconnection the recursive watch heard %q", got)
		}
		must(c.RemoveWatches(ctx, "/p"))
		if got := drain(per); !slices.Equal(got, []string{"EventNotWatching /p"}) {
			t.Errorf("after RemoveWatches: %q, want NotWatching", got)
		}
		step(set("/p"))
		if got := drain(per); len(got) != 0 {
			t.Errorf("a removed watch heard %q", got)
		}
		if err := c.RemoveWatches(ctx, "/p"); err == nil || err.Error() != "unknown error: -121" {
			t.Errorf("removing it again: %v, want unknown error: -121", err)
		}
		c.Close()
		ev, err := rec.Next(ctx)
		if err != nil || ev.Type != zk.EventNotWatching || !errors.Is(ev.Err, zk.ErrClosing) {
			t.Errorf("after Close: %+v, %v; want NotWatching with ErrClosing", ev, err)
		}
		return nil
	})
}
