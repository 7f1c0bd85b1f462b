package sim

import (
	"context"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// The nodes a client made and left when it closed its session are its
// leftovers, each with the session that made it; a node it deleted, its
// ephemeral nodes (gone with the session) and the nodes of a client still
// running are not.
func TestLeftovers(t *testing.T) {
	var made int64
	w, _ := run(t, Config{Seed: 1},
		func(ctx context.Context, c client.Conn) error {
			mustDo(c.Create(ctx, "/dir", nil, 0, acl))
			made = c.SessionID()
			mustDo(c.Create(ctx, "/dir/left", nil, 0, acl))
			mustDo(c.Create(ctx, "/dir/gone", nil, 0, acl))
			mustDo(c.Create(ctx, "/dir/eph", nil, zk.FlagEphemeral, acl))
			must(c.Delete(ctx, "/dir/gone", -1))
			return nil // the session closes as the process returns
		})
	got := w.Leftovers()
	if len(got) != 2 || got[0].Path != "/dir" || got[1].Path != "/dir/left" {
		t.Fatalf("leftovers %+v, want /dir and /dir/left", got)
	}
	for _, l := range got {
		if l.Creator != made || l.Client != 0 || l.Closed == 0 {
			t.Errorf("leftover %+v: want made by c1's session %#x, closed at some time", l, made)
		}
	}
}
