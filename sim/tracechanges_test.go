package sim

import (
	"context"
	"slices"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/trace"
)

// A kept trace keeps what each transaction changed, by zxid: a multi's
// creates and data (its KApply names only its first path), and the
// ephemeral node a closed session leaves deleted by the server. A trace
// kept without KeepChanges (to count a run's traffic) keeps no changes.
func TestTraceKeepsEachTransactionsChanges(t *testing.T) {
	for _, keep := range []bool{true, false} {
		w, err := New(Config{Seed: 1, KeepTrace: true, KeepChanges: keep})
		if err != nil {
			t.Fatal(err)
		}
		w.Spawn("", func(ctx context.Context, c client.Conn) error {
			if _, err := c.Multi(ctx,
				&zk.CreateRequest{Path: "/a", Data: []byte("x"), Acl: acl},
				&zk.CreateRequest{Path: "/a/e", Data: []byte("y"), Acl: acl, Flags: zk.FlagEphemeral},
				&zk.SetDataRequest{Path: "/a", Data: []byte("z"), Version: -1}); err != nil {
				return err
			}
			c.Close()
			return nil
		})
		if res := w.Run(); res.Err != nil {
			t.Fatal(res.Err)
		}
		var got []trace.NodeChange
		seen := map[int64]bool{}
		for r := range w.Trace().All() {
			if r.Kind == trace.KApply && !seen[r.Zxid] {
				seen[r.Zxid] = true
				got = append(got, w.Trace().Changes(r.Zxid)...)
			}
		}
		if !keep {
			if len(got) != 0 {
				t.Errorf("a trace kept without KeepChanges kept changes: %v", got)
			}
			continue
		}
		paths := func(cs []trace.NodeChange) (out []string) {
			for _, c := range cs {
				out = append(out, c.Event.String()+" "+c.Path+" "+string(c.Data))
			}
			return out
		}
		want := []string{"EventNodeCreated /a z", "EventNodeCreated /a/e y", "EventNodeDataChanged /a z", "EventNodeDeleted /a/e "}
		if !slices.Equal(paths(got), want) {
			t.Errorf("changes %q, want %q", paths(got), want)
		}
		if len(got) == 4 && (got[1].Owner == 0 || got[2].Version != 1) {
			t.Errorf("the ephemeral's owner %#x, /a's version after the set %d", got[1].Owner, got[2].Version)
		}
	}
}
