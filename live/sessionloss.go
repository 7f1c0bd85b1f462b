package live

import (
	"slices"
	"time"

	"github.com/go-zookeeper/zk"
)

// followForLoss follows the session's state for Options.LocalSessionLoss:
// leaving zk.StateHasSession starts the client's own clock, getting a
// session back stops it. c.mu is held.
func (c *Conn) followForLoss(h *handle, st zk.State) {
	was := c.lastState
	c.lastState = st
	if !c.opt.LocalSessionLoss || c.closed {
		return
	}
	switch {
	case st == zk.StateHasSession:
		if c.lossTimer != nil {
			c.lossTimer.Stop()
			c.lossTimer = nil
		}
	case was == zk.StateHasSession && c.lossTimer == nil:
		c.lossTimer = time.AfterFunc(c.opt.SessionTimeout, func() { c.declareLost(h) })
	}
}

// declareLost gives the session of h up on the client's side, as
// Curator's connection-handling policy does after a disconnect as long as
// the session timeout: subscribers see zk.StateExpired, the handle's
// watches and calls fail with zk.ErrSessionExpired, and a new handle (a
// new session) replaces it. The old handle is closed without reaching any
// server, so the servers hold the old session, and its ephemeral nodes,
// until they expire it themselves.
func (c *Conn) declareLost(h *handle) {
	c.mu.Lock()
	if c.closed || c.h != h || h.zk.State() == zk.StateHasSession {
		c.lossTimer = nil
		c.mu.Unlock()
		return
	}
	h.lost.Store(true)
	c.lossTimer = nil
	c.publish(zk.Event{Type: zk.EventSession, State: zk.StateExpired, Err: zk.ErrSessionExpired})
	next, err := c.connect()
	if err == nil {
		c.h = next
		c.lastState = zk.StateDisconnected
		go next.authenticate(slices.Clone(c.creds))
	}
	c.mu.Unlock()
	go h.zk.Close()
}
