package sim

import (
	"fmt"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/trace"
)

// armLocalLoss starts, for Config.LocalSessionLoss, the client's own clock
// on a session that just became unusable: if it is still without a
// connection to a server one session timeout later, the client declares it
// lost (declareLost). A paused process looks at its clock when it resumes.
func (c *Client) armLocalLoss() {
	sess, since := c.sessionID, c.lostAt
	c.w.s.after(Time(c.localLossAfter()), func() {
		c.act(func() {
			if c.exited || c.sessionID != sess || c.state == zk.StateHasSession || c.lostAt != since {
				return
			}
			c.declareLost()
		})
	})
}

// declareLost gives the session up on the client's side, as Curator's
// connection-handling policy does after a disconnect as long as the
// session timeout: the client reports zk.StateExpired, fails its watches
// and calls with zk.ErrSessionExpired, forgets the session without telling
// the servers and opens a new one, which has seen nothing. The servers
// still hold the old session, and its ephemeral nodes, until they expire
// it themselves, which can be much later (a leader failover restarts
// their session timers).
func (c *Client) declareLost() {
	idle := c.w.s.now - c.lostAt
	c.w.s.record(trace.Record{Kind: trace.KNote, From: c.actor, Sess: c.sessionID,
		Path: fmt.Sprintf("declares its session lost after %s without a server (client-side policy); the servers still hold it",
			strings.TrimSpace(idle.String()))})
	c.hangUp()
	c.sessionID, c.lastZxid = 0, 0
	c.setState(zk.StateExpired)
	c.invalidateWatches(zk.ErrSessionExpired)
	c.failAll(zk.ErrSessionExpired)
	c.setState(zk.StateDisconnected)
	c.connectNext()
}

// localLossAfter is the session timeout the client's own clock counts
// against: the one the servers negotiated, as Curator uses.
func (c *Client) localLossAfter() time.Duration { return c.SessionTimeout() }
