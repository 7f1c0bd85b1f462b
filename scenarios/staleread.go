package scenarios

import (
	"context"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/workload"
)

// StaleReadSchedule cuts follower s1 off from the leader s3 from 0.5s to
// 4s: s1 keeps serving reads from what it has (it gives its leader up only
// after syncLimit ticks, 10s), while s2 and s3 keep committing.
const StaleReadSchedule = "at 500ms partition s1 s3\nat 4s heal s1 s3"

// RunStaleRead runs the read-guarantee scenario. A writer on the leader
// (s3) sets /store/k to "v1" at 1s; a reader on the cut-off follower (s1)
// reads it at 2s, after the write completed. Without sync (staleread) the
// reader sees "v0": the history is not linearizable, which is ZooKeeper's
// documented behaviour, not a bug. With sync first (withSync) the read
// waits for the follower to catch up with the leader and sees "v1": the
// history is linearizable.
func RunStaleRead(seed uint64, withSync bool) (*StoreRun, error) {
	w, err := sim.New(sim.Config{Seed: seed, Servers: 3})
	if err != nil {
		return nil, err
	}
	h := &models.History{}
	w.SpawnOn("writer", []int{2}, func(ctx context.Context, conn client.Conn) error {
		rec := &models.Recorder{Conn: conn, Client: 0, H: h, Origin: client.Epoch}
		if err := workload.Ensure(ctx, conn, "/store"); err != nil {
			return err
		}
		if _, err := rec.Create(ctx, "/store/k", []byte("v0"), 0, workload.OpenACL); err != nil {
			return err
		}
		if err := conn.Sleep(ctx, time.Second-conn.Now().Sub(client.Epoch)); err != nil {
			return err
		}
		_, err := rec.Set(ctx, "/store/k", []byte("v1"), -1)
		return err
	})
	w.SpawnOn("reader", []int{0}, func(ctx context.Context, conn client.Conn) error {
		rec := &models.Recorder{Conn: conn, Client: 1, H: h, SyncReads: withSync, Origin: client.Epoch}
		if err := conn.Sleep(ctx, 2*time.Second); err != nil {
			return err
		}
		_, _, err := rec.Get(ctx, "/store/k")
		return err
	})
	sched, err := fault.ParseSchedule(StaleReadSchedule)
	if err != nil {
		return nil, err
	}
	if err := w.Inject(sched); err != nil {
		return nil, err
	}
	res := w.Run()
	return &StoreRun{World: w, Result: res, History: h.Operations()}, res.Err
}
