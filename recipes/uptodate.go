package recipes

import (
	"context"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// UpToDate has the session's server apply every write that returned to
// any client before the call, so that the session's next reads see them:
// what a recipe needs before a read that must not miss a write another
// process has already seen succeed (a barrier raised, a configuration
// written, its own create whose reply was lost).
//
// The Programmer's Guide's answer is sync(), and on a follower sync() is
// enough: the leader answers it after every commit it made before. But
// ZooKeeper's leader lets a sync through like a read, without waiting for
// the transactions it has committed and not yet applied, and a follower
// may have applied one, and answered its client, first: a client of the
// leader that syncs can still read the state before that write (a few
// rounds in a hundred on a local ensemble; live.TestSyncOnTheLeaderLive,
// sim.Config.LeaderApplyJitter). A write is ordered after every earlier
// commit on every server, and the session's next reads wait for it: a
// multi of one check of the root (any version) is the smallest, and
// changes nothing.
//
// Calls whose outcome is unknown, or that were not sent, are tried again
// (a check is idempotent); other errors, a session's expiry among them,
// are the caller's. The recipes use it wherever they read what must not be
// stale; a recipe of one's own may too.
func UpToDate(ctx context.Context, conn client.Conn) error {
	for {
		_, err := conn.Multi(ctx, &zk.CheckVersionRequest{Path: "/", Version: -1})
		switch {
		case err == nil:
			return nil
		case transient(err):
			continue
		}
		return err
	}
}
