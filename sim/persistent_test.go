package sim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
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

// One session's watches on one path have one mode in each half (data,
// children), the last set winning, as the 3.8 server keeps them: the events
// the session is sent for the steps set P, set P, create P/c, set P/c,
// delete P/c, delete P, create P, after each pair of watches set on P, are
// those the real server sent (docs/fidelity.md).
func TestWatchModesLastWins(t *testing.T) {
	const (
		dc, cc, cr, dl = "NodeDataChanged", "NodeChildrenChanged", "NodeCreated", "NodeDeleted"
	)
	cases := []struct {
		name  string
		set   func(ctx context.Context, c client.Conn)
		heard []string
	}{
		{"persistent then recursive", func(ctx context.Context, c client.Conn) {
			_, err := c.AddWatch(ctx, "/P", false)
			must(err)
			_, err = c.AddWatch(ctx, "/P", true)
			must(err)
		}, []string{dc + " /P", dc + " /P", cr + " /P/c", dc + " /P/c", dl + " /P/c", dl + " /P", cr + " /P"}},
		{"recursive then persistent", func(ctx context.Context, c client.Conn) {
			_, err := c.AddWatch(ctx, "/P", true)
			must(err)
			_, err = c.AddWatch(ctx, "/P", false)
			must(err)
		}, []string{dc + " /P", dc + " /P", cc + " /P", cc + " /P", dl + " /P", cr + " /P"}},
		{"persistent then getData's", func(ctx context.Context, c client.Conn) {
			_, err := c.AddWatch(ctx, "/P", false)
			must(err)
			_, _, _, err = c.GetW(ctx, "/P")
			must(err)
		}, []string{dc + " /P", cc + " /P", cc + " /P", dl + " /P"}},
		{"recursive then getData's", func(ctx context.Context, c client.Conn) {
			_, err := c.AddWatch(ctx, "/P", true)
			must(err)
			_, _, _, err = c.GetW(ctx, "/P")
			must(err)
		}, []string{dc + " /P", dl + " /P/c", dl + " /P"}},
		{"persistent then getChildren's", func(ctx context.Context, c client.Conn) {
			_, err := c.AddWatch(ctx, "/P", false)
			must(err)
			_, _, _, err = c.ChildrenW(ctx, "/P")
			must(err)
		}, []string{dc + " /P", dc + " /P", cc + " /P", dl + " /P", cr + " /P"}},
		{"recursive then getChildren's", func(ctx context.Context, c client.Conn) {
			_, err := c.AddWatch(ctx, "/P", true)
			must(err)
			_, _, _, err = c.ChildrenW(ctx, "/P")
			must(err)
		}, []string{dc + " /P", dc + " /P", cr + " /P/c", cc + " /P", dc + " /P/c", dl + " /P/c", dl + " /P", cr + " /P"}},
		{"getData's then persistent", func(ctx context.Context, c client.Conn) {
			_, _, _, err := c.GetW(ctx, "/P")
			must(err)
			_, err = c.AddWatch(ctx, "/P", false)
			must(err)
		}, []string{dc + " /P", dc + " /P", cc + " /P", cc + " /P", dl + " /P", cr + " /P"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run(t, Config{}, func(ctx context.Context, c client.Conn) error {
				var heard []string
				c.(*Client).OnNotification(func(ev zk.Event) {
					heard = append(heard, strings.TrimPrefix(ev.Type.String(), "Event")+" "+ev.Path)
				})
				_, err := c.Create(ctx, "/P", nil, 0, acl)
				must(err)
				tc.set(ctx, c)
				steps := []func() error{
					func() error { _, err := c.Set(ctx, "/P", []byte("1"), -1); return err },
					func() error { _, err := c.Set(ctx, "/P", []byte("2"), -1); return err },
					func() error { _, err := c.Create(ctx, "/P/c", nil, 0, acl); return err },
					func() error { _, err := c.Set(ctx, "/P/c", []byte("3"), -1); return err },
					func() error { return c.Delete(ctx, "/P/c", -1) },
					func() error { return c.Delete(ctx, "/P", -1) },
					func() error { _, err := c.Create(ctx, "/P", nil, 0, acl); return err },
				}
				for _, step := range steps {
					must(step())
					_, err := c.Sync(ctx, "/") // the events come before the sync's answer
					must(err)
				}
				if !slices.Equal(heard, tc.heard) {
					t.Errorf("heard %q\nwant  %q", heard, tc.heard)
				}
				return nil
			})
		})
	}
}

// A closing session's ephemeral nodes are deleted in the order of the
// server's hash set of their paths, whose table is sized by the most the
// session had at once: the orders the real server deleted these in, seen
// through a recursive watch.
func TestClosingSessionDeletesInTheServersOrder(t *testing.T) {
	run(t, Config{}, func(ctx context.Context, c client.Conn) error {
		_, err := c.Create(ctx, "/x", nil, 0, acl)
		must(err)
		sub, err := c.AddWatch(ctx, "/x", true)
		must(err)
		for _, tc := range []struct {
			n       int
			deleted []int // deleted before the close
			want    string
		}{
			{5, nil, "e5-00 e5-03 e5-04 e5-01 e5-02"},
			{14, []int{3, 7}, "e14-04 e14-01 e14-12 e14-02 e14-13 e14-10 e14-00 e14-11 e14-09 e14-08 e14-05 e14-06"},
		} {
			s, err := c.NewSession(ctx)
			must(err)
			for i := range tc.n {
				_, err := s.Create(ctx, fmt.Sprintf("/x/e%d-%02d", tc.n, i), nil, zk.FlagEphemeral, acl)
				must(err)
			}
			for _, i := range tc.deleted {
				must(s.Delete(ctx, fmt.Sprintf("/x/e%d-%02d", tc.n, i), -1))
			}
			_, err = c.Sync(ctx, "/")
			must(err)
			drain(sub)
			s.Close()
			_, err = c.Sync(ctx, "/")
			must(err)
			var got []string
			for _, ev := range drain(sub) {
				got = append(got, strings.TrimPrefix(strings.TrimPrefix(ev, "EventNodeDeleted "), "/x/"))
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("%d ephemeral nodes deleted as %v, want %s", tc.n, got, tc.want)
			}
		}
		return nil
	})
}

// getEphemerals lists a session's ephemeral nodes in the real server's
// order, its HashSet's copy's (Tree.ephemeralOrder, the order a close
// deletes them in), a prefix keeping that order: each want is what
// ZooKeeper 3.8.0 answered to the same calls. A sorted answer would let a
// recipe that relies on sorted paths pass here and fail on the server.
func TestGetEphemeralsInTheServersOrder(t *testing.T) {
	run(t, Config{}, func(ctx context.Context, c client.Conn) error {
		_, err := c.Create(ctx, "/x", nil, 0, acl)
		must(err)
		for _, tc := range []struct {
			n                int
			deleted          []int // deleted before the call
			want, wantPrefix string
		}{
			{5, nil, "00 03 04 01 02", ""},
			{14, []int{3, 7}, "04 01 12 02 13 10 00 11 09 08 05 06", "12 13 10 11"},
			{30, []int{1, 2, 20}, "10 11 12 13 14 15 16 17 18 19 21 00 22 23 24 03 25 04 26 05 27 06 28 07 29 08 09",
				"10 11 12 13 14 15 16 17 18 19"},
		} {
			s, err := c.NewSession(ctx)
			must(err)
			for i := range tc.n {
				_, err := s.Create(ctx, fmt.Sprintf("/x/e%d-%02d", tc.n, i), nil, zk.FlagEphemeral, acl)
				must(err)
			}
			for _, i := range tc.deleted {
				must(s.Delete(ctx, fmt.Sprintf("/x/e%d-%02d", tc.n, i), -1))
			}
			short := func(paths []string) string {
				for i, p := range paths {
					paths[i] = strings.TrimPrefix(p, fmt.Sprintf("/x/e%d-", tc.n))
				}
				return strings.Join(paths, " ")
			}
			all, err := s.GetEphemerals(ctx, "/")
			must(err)
			some, err := s.GetEphemerals(ctx, fmt.Sprintf("/x/e%d-1", tc.n))
			must(err)
			if got := short(all); got != tc.want {
				t.Errorf("%d ephemeral nodes listed as %s, want %s", tc.n, got, tc.want)
			}
			if got := short(some); got != tc.wantPrefix {
				t.Errorf("%d ephemeral nodes, those under /x/e%d-1 listed as %q, want %q", tc.n, tc.n, got, tc.wantPrefix)
			}
			s.Close()
		}
		return nil
	})
}
