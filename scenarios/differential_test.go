package scenarios

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/live"
)

// The same random operation sequences, by one client and by three in a
// fixed interleaving, answer the same in the simulator and on a live
// ensemble: results and errors, created paths with their sequence
// numbers, data, the Stat fields both worlds share, children, and every
// watch event.
func TestDifferentialSimAgainstLive(t *testing.T) {
	if testing.Short() {
		t.Log("-short: the differential runs are in the full test")
		return
	}
	e := liveEnsemble(t, 3)
	for _, tc := range []struct {
		seed    uint64
		clients int
	}{{1, 1}, {2, 1}, {3, 3}, {4, 3}, {5, 2}, {6, 2}, {7, 3}, {8, 1}, {9, 3}, {10, 2}} {
		root := fmt.Sprintf("/diff-%d", tc.seed)
		prog := DiffProgram(root, tc.seed, tc.clients, 200)
		simRes, err := RunDiffSim(root, prog, tc.clients, tc.seed)
		if err != nil {
			t.Fatalf("seed %d in the simulator: %v", tc.seed, err)
		}
		conns := make([]client.Conn, tc.clients)
		for i := range conns {
			c, err := live.Dial(e.ConnectString(), live.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			conns[i] = c
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		// A fresh root for each program (a run of the test before may have
		// left one).
		cleanTree(t, ctx, conns[0], root)
		if _, err := conns[0].Create(ctx, root, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		liveRes, err := RunDiffProgram(ctx, prog, conns)
		cancel()
		if err != nil {
			t.Fatalf("seed %d live: %v", tc.seed, err)
		}
		if diffs := CompareDiff(simRes, liveRes); len(diffs) > 0 {
			t.Errorf("seed %d, %d clients: %d steps differ; the first:\n%s", tc.seed, tc.clients, len(diffs),
				strings.Join(diffs[:min(len(diffs), 3)], "\n"))
		}
		for _, c := range conns {
			c.(*live.Conn).Close()
		}
	}
}

// cleanTree deletes path and everything below it.
func cleanTree(t *testing.T, ctx context.Context, c client.Conn, path string) {
	kids, _, err := c.Children(ctx, path)
	if err != nil {
		return
	}
	for _, k := range kids {
		cleanTree(t, ctx, c, path+"/"+k)
	}
	_ = c.Delete(ctx, path, -1)
}
