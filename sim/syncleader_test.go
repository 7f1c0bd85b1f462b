package sim

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// syncMisses runs n rounds of: a client of server writer creates a node;
// once the create has returned, a client of server reader brings its
// server up to date (fence) and looks for the node. It counts the looks
// that missed it. s3 leads (the highest id, at the start).
func syncMisses(t *testing.T, writer, reader, n int, fence func(context.Context, client.Conn) error) int {
	t.Helper()
	w, err := New(Config{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	created, looked, misses := -1, -1, 0
	w.SpawnOn("", []int{writer}, func(ctx context.Context, c client.Conn) error {
		if _, err := c.Create(ctx, "/x", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			return err
		}
		for i := range n {
			if _, err := c.Create(ctx, fmt.Sprintf("/x/n%d", i), nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
				return err
			}
			created = i
			for looked < i {
				if err := c.Sleep(ctx, 10*time.Microsecond); err != nil {
					return err
				}
			}
		}
		return nil
	})
	w.SpawnOn("", []int{reader}, func(ctx context.Context, c client.Conn) error {
		for i := range n {
			for created < i {
				if err := c.Sleep(ctx, 10*time.Microsecond); err != nil {
					return err
				}
			}
			if err := fence(ctx, c); err != nil {
				return err
			}
			ok, _, err := c.Exists(ctx, fmt.Sprintf("/x/n%d", i))
			if err != nil {
				return err
			}
			if !ok {
				misses++
			}
			looked = i
		}
		return nil
	})
	if res := w.Run(); res.Err != nil {
		t.Fatal(res.Err)
	}
	return misses
}

// ZooKeeper's leader answers a sync as a read, and may apply a write
// after a follower has answered it: a client of the leader that syncs may
// still miss a write another client has seen return (as the real server
// does: live.TestSyncOnTheLeaderLive). On a follower a sync waits for the
// leader's commits; and a write of the reader's own (a multi of one
// check) orders it after every earlier write on either.
func TestSyncOnTheLeader(t *testing.T) {
	sync := func(ctx context.Context, c client.Conn) error { _, err := c.Sync(ctx, "/x"); return err }
	check := func(ctx context.Context, c client.Conn) error {
		_, err := c.Multi(ctx, &zk.CheckVersionRequest{Path: "/", Version: -1})
		return err
	}
	const n = 400
	m := syncMisses(t, 0, 2, n, sync)
	if m == 0 {
		t.Errorf("a client of the leader synced and read every write of a follower's client (%d rounds)", n)
	}
	t.Logf("a client of the leader synced and missed %d of %d writes", m, n)
	if m := syncMisses(t, 0, 1, n, sync); m != 0 {
		t.Errorf("a client of a follower synced and missed %d of %d writes", m, n)
	}
	for _, reader := range []int{1, 2} {
		if m := syncMisses(t, 0, reader, n, check); m != 0 {
			t.Errorf("a client of s%d wrote a check and missed %d of %d writes", reader+1, m, n)
		}
	}
}
