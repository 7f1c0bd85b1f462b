package sim

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/trace"
)

// poll reports whether w has fired, without waiting.
func poll(ctx context.Context, w client.Watch) (zk.Event, bool) {
	done, cancel := context.WithCancel(ctx)
	cancel()
	ev, err := w.Wait(done)
	return ev, err == nil
}

// ZooKeeper's watch table: which read sets which watch, and which write
// fires which event on it (Programmer's Guide, "Semantics of Watches";
// DataTree.createNode/deleteNode/setData and WatchManager.triggerWatch).
func TestWatchTriggerTable(t *testing.T) {
	type setter func(ctx context.Context, c client.Conn) (client.Watch, error)
	existsW := func(p string) setter {
		return func(ctx context.Context, c client.Conn) (client.Watch, error) {
			_, _, w, err := c.ExistsW(ctx, p)
			return w, err
		}
	}
	getW := func(p string) setter {
		return func(ctx context.Context, c client.Conn) (client.Watch, error) {
			_, _, w, err := c.GetW(ctx, p)
			return w, err
		}
	}
	childrenW := func(p string) setter {
		return func(ctx context.Context, c client.Conn) (client.Watch, error) {
			_, _, w, err := c.ChildrenW(ctx, p)
			return w, err
		}
	}
	type write func(ctx context.Context, c client.Conn) error
	create := func(p string) write {
		return func(ctx context.Context, c client.Conn) error { _, err := c.Create(ctx, p, nil, 0, acl); return err }
	}
	del := func(p string) write {
		return func(ctx context.Context, c client.Conn) error { return c.Delete(ctx, p, -1) }
	}
	set := func(p string) write {
		return func(ctx context.Context, c client.Conn) error { _, err := c.Set(ctx, p, []byte("v"), -1); return err }
	}
	none := zk.EventType(0)
	cases := []struct {
		name   string
		exists bool // whether /n exists before the watch is set
		watch  setter
		write  write
		want   zk.EventType // 0: the watch must not fire
		path   string
	}{
		{"exists on missing node, node created: NodeCreated", false, existsW("/n"), create("/n"), zk.EventNodeCreated, "/n"},
		{"exists on existing node, data set: NodeDataChanged", true, existsW("/n"), set("/n"), zk.EventNodeDataChanged, "/n"},
		{"exists on existing node, node deleted: NodeDeleted", true, existsW("/n"), del("/n"), zk.EventNodeDeleted, "/n"},
		{"exists on existing node, child created: nothing", true, existsW("/n"), create("/n/c"), none, ""},
		{"getData, data set: NodeDataChanged", true, getW("/n"), set("/n"), zk.EventNodeDataChanged, "/n"},
		{"getData, node deleted: NodeDeleted", true, getW("/n"), del("/n"), zk.EventNodeDeleted, "/n"},
		{"getData, child created: nothing", true, getW("/n"), create("/n/c"), none, ""},
		{"getChildren, child created: NodeChildrenChanged", true, childrenW("/n"), create("/n/c"), zk.EventNodeChildrenChanged, "/n"},
		{"getChildren, node deleted: NodeDeleted", true, childrenW("/n"), del("/n"), zk.EventNodeDeleted, "/n"},
		{"getChildren, data set: nothing", true, childrenW("/n"), set("/n"), none, ""},
		{"getChildren on the root, child created: NodeChildrenChanged on /", true, childrenW("/"), create("/m"), zk.EventNodeChildrenChanged, "/"},
		{"exists on a sibling, node created: nothing", true, existsW("/other"), create("/n/c"), none, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got zk.Event
			var fired bool
			run(t, Config{Seed: 1}, func(ctx context.Context, c client.Conn) error {
				if tc.exists {
					if _, err := c.Create(ctx, "/n", nil, 0, acl); err != nil {
						return err
					}
				}
				w, err := tc.watch(ctx, c)
				if err != nil {
					return err
				}
				if err := tc.write(ctx, c); err != nil {
					return err
				}
				// The event reaches the client before the write's reply.
				got, fired = poll(ctx, w)
				if !fired {
					if err := c.Sleep(ctx, time.Second); err != nil {
						return err
					}
					if _, late := poll(ctx, w); late {
						return errors.New("watch fired after the write's reply")
					}
				}
				return nil
			})
			if tc.want == none {
				if fired {
					t.Fatalf("watch fired with %+v, want no event", got)
				}
				return
			}
			if !fired || got.Type != tc.want || got.Path != tc.path || got.State != zk.StateSyncConnected {
				t.Fatalf("watch: fired %v with %+v, want %v on %s", fired, got, tc.want, tc.path)
			}
		})
	}
}

// Watches are one-shot: after firing, a second change is not reported.
func TestWatchesAreOneShot(t *testing.T) {
	run(t, Config{Seed: 1}, func(ctx context.Context, c client.Conn) error {
		if _, err := c.Create(ctx, "/n", nil, 0, acl); err != nil {
			return err
		}
		_, _, w, err := c.GetW(ctx, "/n")
		if err != nil {
			return err
		}
		if _, err := c.Set(ctx, "/n", []byte("1"), -1); err != nil {
			return err
		}
		if _, err := w.Wait(ctx); err != nil {
			return err
		}
		_, _, w2, err := c.GetW(ctx, "/n")
		if err != nil {
			return err
		}
		if _, err := c.Set(ctx, "/n", []byte("2"), -1); err != nil {
			return err
		}
		if _, err := c.Set(ctx, "/n", []byte("3"), -1); err != nil {
			return err
		}
		if _, ok := poll(ctx, w2); !ok {
			return errors.New("second watch did not fire")
		}
		return nil
	})
	w, _ := run(t, Config{Seed: 1}, func(ctx context.Context, c client.Conn) error {
		if _, err := c.Create(ctx, "/n", nil, 0, acl); err != nil {
			return err
		}
		if _, _, _, err := c.GetW(ctx, "/n"); err != nil {
			return err
		}
		for i := 0; i < 3; i++ {
			if _, err := c.Set(ctx, "/n", []byte{byte(i)}, -1); err != nil {
				return err
			}
		}
		return nil
	})
	if n := countNotify(w); n != 1 {
		t.Fatalf("%d notifications for one watch and three changes, want 1", n)
	}
}

func countNotify(w *World) int {
	n := 0
	for _, r := range w.Trace().Records() {
		if r.Kind == trace.KNotify {
			n++
		}
	}
	return n
}

// The server keys watches by connection: a session holding a data and a
// child watch on a deleted node is sent one NodeDeleted (the suppression in
// DataTree.deleteNode); the client library gives it to every local watcher
// (go-zookeeper/zk's notifyWatches: NodeDeleted goes to exists, data and
// child watchers alike). NodeDataChanged goes to exists and data watchers.
func TestOneNotificationFansOutToEveryLocalWatcher(t *testing.T) {
	var evs []zk.Event
	w, _ := run(t, Config{Seed: 1}, func(ctx context.Context, c client.Conn) error {
		if _, err := c.Create(ctx, "/n", nil, 0, acl); err != nil {
			return err
		}
		var ws []client.Watch
		_, _, w1, err := c.ExistsW(ctx, "/n")
		if err != nil {
			return err
		}
		_, _, w2, err := c.GetW(ctx, "/n")
		if err != nil {
			return err
		}
		_, _, w3, err := c.ChildrenW(ctx, "/n")
		if err != nil {
			return err
		}
		ws = append(ws, w1, w2, w3)
		if err := c.Delete(ctx, "/n", -1); err != nil {
			return err
		}
		for i, w := range ws {
			ev, ok := poll(ctx, w)
			if !ok {
				return fmt.Errorf("watcher %d did not fire", i)
			}
			evs = append(evs, ev)
		}
		return nil
	})
	for _, ev := range evs {
		if ev.Type != zk.EventNodeDeleted || ev.Path != "/n" {
			t.Errorf("watcher got %+v, want NodeDeleted /n", ev)
		}
	}
	if n := countNotify(w); n != 1 {
		t.Fatalf("%d notifications sent, want 1 for one session", n)
	}

	// NodeDataChanged: exists and data watchers fire; a child watcher on the
	// same path stays armed.
	run(t, Config{Seed: 1}, func(ctx context.Context, c client.Conn) error {
		if _, err := c.Create(ctx, "/n", nil, 0, acl); err != nil {
			return err
		}
		_, _, we, _ := c.ExistsW(ctx, "/n")
		_, _, wd, _ := c.GetW(ctx, "/n")
		_, _, wc, _ := c.ChildrenW(ctx, "/n")
		if _, err := c.Set(ctx, "/n", []byte("x"), -1); err != nil {
			return err
		}
		_, e := poll(ctx, we)
		_, d := poll(ctx, wd)
		_, ch := poll(ctx, wc)
		if !e || !d || ch {
			return fmt.Errorf("after setData: exists fired %v, data %v, child %v; want true true false", e, d, ch)
		}
		return nil
	})
}

// A watched change reaches a client before any later reply to it: a client
// that reads the new data has already seen the event (the Programmer's
// Guide's ordering guarantee).
func TestEventArrivesBeforeLaterData(t *testing.T) {
	for seed := uint64(1); seed <= 50; seed++ {
		var sawNewDataFirst bool
		written := false
		run(t, Config{Seed: seed},
			func(ctx context.Context, c client.Conn) error {
				if _, err := c.Create(ctx, "/n", []byte("old"), 0, acl); err != nil && !errors.Is(err, zk.ErrNodeExists) {
					return err
				}
				_, _, w, err := c.GetW(ctx, "/n")
				if err != nil {
					return err
				}
				for !written {
					if err := c.Sleep(ctx, 50*time.Microsecond); err != nil {
						return err
					}
				}
				data, _, err := c.Get(ctx, "/n")
				if err != nil {
					return err
				}
				if string(data) == "new" {
					if _, fired := poll(ctx, w); !fired {
						sawNewDataFirst = true
					}
				}
				return nil
			},
			func(ctx context.Context, c client.Conn) error {
				if err := c.Sleep(ctx, 5*time.Millisecond); err != nil {
					return err
				}
				_, err := c.Set(ctx, "/n", []byte("new"), -1)
				written = err == nil
				return err
			})
		if sawNewDataFirst {
			t.Fatalf("seed %d: the client read the new data before its watch fired", seed)
		}
	}
}
