package sim

import (
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// The world keeps each ephemeral node deleted by another session than its
// owner's, once, with both sessions and their clients; a client's own
// deletes, deletes of persistent nodes and the deletes of a multi that
// failed are not kept.
func TestForeignDeletes(t *testing.T) {
	var owner, thief int64
	w, _ := run(t, Config{Seed: 1},
		func(ctx context.Context, c client.Conn) error {
			mustDo(c.Create(ctx, "/mine", nil, zk.FlagEphemeral, acl))
			owner = c.SessionID()
			mustDo(c.Create(ctx, "/taken", nil, zk.FlagEphemeral, acl))
			mustDo(c.Create(ctx, "/kept", nil, zk.FlagEphemeral, acl))
			mustDo(c.Create(ctx, "/shared", nil, 0, acl))
			must(c.Delete(ctx, "/mine", -1))
			return c.Sleep(ctx, 2*time.Second) // while c2 deletes
		},
		func(ctx context.Context, c client.Conn) error {
			must(c.Sleep(ctx, time.Second))
			thief = c.SessionID()
			must(c.Delete(ctx, "/taken", -1))
			must(c.Delete(ctx, "/shared", -1))
			// A multi that fails deletes nothing.
			_, err := c.Multi(ctx, &zk.DeleteRequest{Path: "/kept", Version: -1}, &zk.CheckVersionRequest{Path: "/none", Version: 0})
			if err == nil {
				t.Error("the multi succeeded")
			}
			return nil
		})
	got := w.ForeignDeletes()
	if len(got) != 1 {
		t.Fatalf("foreign deletes %+v, want one", got)
	}
	d := got[0]
	if d.Path != "/taken" || d.Owner != owner || d.By != thief || d.OwnerClient != 0 || d.ByClient != 1 || d.GivenUp || d.Zxid == 0 {
		t.Fatalf("foreign delete %+v; want /taken, owned by c1's session %#x, deleted by c2's %#x", d, owner, thief)
	}
}
