package live

import (
	"context"
	"fmt"
	"testing"

	"github.com/go-zookeeper/zk"
)

// The real server's sync, as the simulator models it (sim.Config.
// LeaderApplyJitter, sim.TestSyncOnTheLeader): a client of the leader that
// syncs after another client's create returned from a follower may still
// not see the node (the leader answers a sync as a read, and may not have
// applied the create yet); a multi of one check, a write, orders the
// reader after the create on the leader and on a follower alike.
func TestSyncOnTheLeaderLive(t *testing.T) {
	if testing.Short() {
		t.Log("-short: the live sync test runs in the full test")
		return
	}
	e := startEnsemble(t, 3)
	addrs := e.ConnectString()
	leader := e.Leader()
	var followers []int
	for i := range addrs {
		if i != leader {
			followers = append(followers, i)
		}
	}
	ctx := context.Background()
	sync := func(c *Conn, p string) error { _, err := c.Sync(ctx, p); return err }
	check := func(c *Conn, p string) error {
		_, err := c.Multi(ctx, &zk.CheckVersionRequest{Path: "/", Version: -1})
		return err
	}
	misses := func(name string, reader, n int, fence func(*Conn, string) error) int {
		w, err := Dial([]string{addrs[followers[0]]}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		r, err := Dial([]string{addrs[reader]}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		dir := "/" + name
		if _, err := w.Create(ctx, dir, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		missed := 0
		for i := range n {
			p := fmt.Sprintf("%s/n%d", dir, i)
			if _, err := w.Create(ctx, p, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
				t.Fatal(err)
			}
			if err := fence(r, p); err != nil {
				t.Fatal(err)
			}
			ok, _, err := r.Exists(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				missed++
			}
		}
		t.Logf("%s: %d of %d reads missed the create", name, missed, n)
		return missed
	}
	missed := 0
	for try := 0; try < 3 && missed == 0; try++ {
		missed = misses(fmt.Sprintf("sync-on-leader-%d", try), leader, 2000, sync)
	}
	if missed == 0 {
		t.Errorf("a client of the leader synced and always saw the create (6000 rounds): the simulator's leader may answer before it applies (sim.Config.LeaderApplyJitter), the server's did not here")
	}
	if m := misses("check-on-leader", leader, 2000, check); m != 0 {
		t.Errorf("a client of the leader wrote a check and still missed %d creates", m)
	}
	if m := misses("sync-on-follower", followers[1], 2000, sync); m != 0 {
		t.Errorf("a client of a follower synced and still missed %d creates", m)
	}
}
