package workload

import (
	"context"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/models"
)

// The stale-read kind: the read guarantee of the znode store. c1 writes on
// the leader s3: it creates /store/k ("v0"), then at 1s sets it to "v1";
// c2, on the follower s1, reads /store/k at 2s, after the write completed
// (with sync() first when Workload.Sync). Cut s1 from s3 meanwhile (the
// library's stale-read scenario does) and the read without sync sees "v0":
// the "store" check (reads included) finds the history not linearizable,
// which is ZooKeeper's documented guarantee (reads may be stale; writes are
// linearizable), not a bug.
func init() {
	registerKind(&Kind{
		name: "stale-read", situations: []situation{syncedReads}, doc: "a write on the leader, then a read on a follower (the znode store's read guarantee)",
		clients: 2, minClients: 2,
		defaults: func(w *Shape, clients int) {},
		checks:   func(p Plan) []string { return []string{"store", "store-writes"} },
		spawn: func(r *runner) {
			h := &models.History{}
			r.stores = append(r.stores, h)
			r.spawnOn(0, []int{2}, func(ctx context.Context, conn client.Conn) error {
				// Errors a client must expect under faults are recorded (an
				// unknown outcome, or a failure, with the error), not fatal.
				rec := &models.Recorder{Conn: conn, Client: 0, H: h, Origin: client.Epoch}
				if err := Ensure(ctx, conn, "/store"); err != nil {
					return err
				}
				if _, err := rec.Create(ctx, "/store/k", []byte("v0"), 0, OpenACL); !expected(err) {
					return err
				}
				if err := conn.Sleep(ctx, max(0, time.Second-conn.Now().Sub(client.Epoch))); err != nil {
					return err
				}
				if _, err := rec.Set(ctx, "/store/k", []byte("v1"), -1); !expected(err) {
					return err
				}
				return nil
			})
			r.spawnOn(1, []int{0}, func(ctx context.Context, conn client.Conn) error {
				rec := &models.Recorder{Conn: conn, Client: 1, H: h, SyncReads: r.plan.Shape.Sync, Origin: client.Epoch}
				if err := conn.Sleep(ctx, 2*time.Second); err != nil {
					return err
				}
				if _, _, err := rec.Get(ctx, "/store/k"); !expected(err) {
					return err
				}
				return nil
			})
		},
	})
}
