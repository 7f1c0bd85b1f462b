package workload

import (
	"context"
	"time"

	"github.com/zksim/zksim/client"
)

// stopForGood stops the calling client's process as a crash does, for the
// workloads whose processes fail (a 2PC site, a group member, a double barrier's process): it neither
// closes its session nor sends another heartbeat, so the session expires
// and its ephemeral nodes go with it, as the recipes expect of a failed
// process. In the simulator the process is paused for three session timeouts
// (its session has expired well before: a timeout, plus at most a tick,
// after its last heartbeat), then ends without a word; live, the same pause
// stops the process for real. A session that is no client.Pauser (a
// user's own) just ends its body.
func stopForGood(ctx context.Context, conn client.Conn, p Plan) error {
	pauser, ok := conn.(client.Pauser)
	if !ok {
		return nil
	}
	pauser.Pause(3 * p.SessionTimeout)
	// The pause takes hold when the process next hands control back: it
	// sleeps, and runs again only once the pause is over, to end.
	return conn.Sleep(ctx, time.Millisecond)
}
