package sim

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/trace"
)

// The client's side of its session, as go-zookeeper/zk lives it: the
// connection's state machine (the next server, the handshake, pings and
// the receive deadline, a connection dropped or hung up), and the session
// events it tells its subscribers. The requests it carries are calls.go's,
// its watchers clientwatch.go's.

// setState moves the connection to st, records it, and queues the event
// for every open subscription.
func (c *Client) setState(st zk.State) {
	if c.state == zk.StateHasSession && st != zk.StateHasSession {
		c.lostAt = c.w.s.now
		if c.w.cfg.LocalSessionLoss && !c.exited {
			c.armLocalLoss()
		}
	}
	c.state = st
	c.w.s.record(trace.Record{Kind: trace.KState, From: c.actor, Arg: int64(st), Sess: c.sessionID})
	server := ""
	if c.curr >= 0 {
		server = c.w.trace.ActorName(trace.ServerActor(c.hosts[c.curr]))
	}
	ev := zk.Event{Type: zk.EventSession, State: st, Server: server}
	for _, s := range c.subs {
		if !s.closed {
			s.queue = append(s.queue, ev)
		}
	}
	if len(c.subs) > 0 {
		c.p.wake()
	}
}

// connectNext moves to the next server, as go-zookeeper/zk's host provider
// does, and dials it.
func (c *Client) connectNext() {
	if c.exited || c.closing {
		return
	}
	c.curr = (c.curr + 1) % len(c.hosts)
	retryStart := c.curr == c.last
	if c.last == -1 {
		c.last = 0
	}
	c.setState(zk.StateConnecting)
	if retryStart {
		c.flushQueued(zk.ErrNoServer)
		// The back-off belongs to this round of dials: one that began
		// meanwhile (the session given up, a new one started) stands.
		gen := c.connGen
		c.w.s.after(Time(time.Second), func() {
			c.act(func() {
				if c.connGen == gen {
					c.dial()
				}
			})
		})
		return
	}
	c.dial()
}

// linkPair is the network between a client and one server.
type linkPair struct{ up, down link }

// dial opens a TCP connection (one round trip) and sends the connect
// request. A crashed server refuses the connection; across a cut link the
// attempt gets no answer and is given up after the connect timeout. Either
// way the client moves on to the next server.
func (c *Client) dial() {
	if c.exited {
		return
	}
	si := c.hosts[c.curr]
	srv := c.w.servers[si]
	lp := &c.links[si]
	c.connGen++
	gen := c.connGen
	if lp.up.cut || lp.down.cut {
		c.w.s.after(Time(c.w.cfg.ConnectTimeout), func() {
			if c.exited || c.connGen != gen {
				return
			}
			c.w.s.record(trace.Record{Kind: trace.KNote, From: c.actor, To: srv.actor, Path: "connection attempt timed out"})
			c.act(func() {
				if c.connGen == gen {
					c.connectNext()
				}
			})
		})
		return
	}
	c.w.s.after(2*c.w.linkLatency(), func() {
		if c.exited || c.connGen != gen {
			return
		}
		if c.p.paused {
			c.p.buffered = append(c.p.buffered, c.dial) // a stopped process dials nothing
			return
		}
		cn := &conn{srv: srv, client: c, up: &lp.up, down: &lp.down, auth: c.connIDs()}
		if !srv.accept(cn) {
			c.w.s.record(trace.Record{Kind: trace.KNote, From: c.actor, To: srv.actor, Path: "connection refused"})
			c.connectNext()
			return
		}
		c.cn = cn
		c.setState(zk.StateConnected)
		c.cn.toServer(false, &request{op: client.OpCreateSession, requestExtra: &requestExtra{sessionID: c.sessionID,
			timeoutMs: c.timeoutMs, lastZxid: c.lastZxid}})
	})
}

// act runs fn now, or when the process resumes if it is paused.
func (c *Client) act(fn func()) {
	if c.p.paused {
		c.p.buffered = append(c.p.buffered, fn)
		return
	}
	fn()
}

func (c *Client) onConnect(rep *reply) {
	if rep.sessionID == 0 {
		// The session expired while we were away.
		c.sessionID, c.lastZxid = 0, 0
		c.setState(zk.StateExpired)
		c.invalidateWatches(zk.ErrSessionExpired)
		c.drop(zk.ErrSessionExpired)
		return
	}
	c.sessionID = rep.sessionID
	c.timeoutMs = rep.timeoutMs
	timeout := Time(rep.timeoutMs) * Time(time.Millisecond)
	c.recvTO = timeout * 2 / 3
	c.pingEvery = c.recvTO / 2
	c.setState(zk.StateHasSession)
	c.last = c.curr
	c.lastRecv = c.w.s.now
	c.startHeartbeat()
	queued := c.queued
	c.queued = nil
	for _, r := range queued {
		c.send(r)
	}
	c.sendSetWatches()
}

// startHeartbeat runs, for the current connection, the ping ticker and the
// receive deadline.
func (c *Client) startHeartbeat() {
	c.startPings()
	c.startReceiveDeadline()
}

// startPings sends a ping every third of the session timeout while the
// connection lasts, as the library's ticker does. A paused process sends
// none; like a time.Ticker's channel, it keeps one tick owed and sends that
// ping as soon as it resumes.
func (c *Client) startPings() {
	cn, gen := c.cn, c.connGen
	var tick func()
	tick = func() {
		if c.exited || c.cn != cn || c.connGen != gen {
			return
		}
		if c.p.paused {
			c.pingOwed = true
		} else {
			c.ping()
		}
		c.w.s.background(c.w.s.now+c.pingEvery, tick)
	}
	c.w.s.background(c.w.s.now+c.pingEvery, tick)
}

func (c *Client) ping() {
	c.w.s.record(trace.Record{Kind: trace.KPing, From: c.actor, To: c.cn.srv.actor})
	c.cn.toServer(true, &request{op: client.OpPing, xid: -2})
}

// startReceiveDeadline declares the connection lost once nothing has come
// from the server for the receive timeout. A paused process does not
// notice; it checks again when it resumes.
func (c *Client) startReceiveDeadline() {
	cn, gen := c.cn, c.connGen
	var check func()
	check = func() {
		if c.exited || c.cn != cn || c.connGen != gen || c.p.paused {
			return
		}
		if idle := c.w.s.now - c.lastRecv; idle >= c.recvTO {
			c.w.s.record(trace.Record{Kind: trace.KTimeout, From: c.actor, To: cn.srv.actor, Arg: int64(idle)})
			c.drop(zk.ErrConnectionClosed)
			return
		}
		c.w.s.background(c.lastRecv+c.recvTO, check)
	}
	c.w.s.background(c.lastRecv+c.recvTO, check)
}

// drop ends the current connection: in-flight requests fail with err
// (zk.ErrConnectionClosed, or zk.ErrSessionExpired after an expiry), the
// state goes to Disconnected, and the client connects again.
func (c *Client) drop(err error) {
	c.hangUp()
	c.setState(zk.StateDisconnected)
	c.failInflight(err)
	c.connectNext()
}

// hangUp closes the connection from the client's side, if it has one, and
// outdates every timer and dial of the connection it had.
func (c *Client) hangUp() {
	if c.cn != nil {
		c.cn.toServer(false, nil)
		c.cn = nil
	}
	c.connGen++
}

// failInflight fails every call in flight with err.
func (c *Client) failInflight(err error) {
	inflight := c.inflight
	c.inflight = nil
	for _, r := range inflight {
		c.complete(r, err)
	}
}

// failAll fails every call in flight or queued with err.
func (c *Client) failAll(err error) {
	c.failInflight(err)
	c.flushQueued(err)
}

func (c *Client) flushQueued(err error) {
	queued := c.queued
	c.queued = nil
	for _, r := range queued {
		c.complete(r, err)
	}
}

type subscription struct {
	c      *Client
	queue  []zk.Event
	closed bool
}

func (s *subscription) Next(ctx context.Context) (zk.Event, error) {
	for len(s.queue) == 0 {
		if s.closed {
			return zk.Event{}, fmt.Errorf("sim: subscription closed")
		}
		if err := s.c.p.current().park(ctx, waitSession, 0, ""); err != nil {
			return zk.Event{}, err
		}
	}
	ev := s.queue[0]
	s.queue = s.queue[1:]
	return ev, nil
}

func (s *subscription) Close() {
	if s.closed {
		return
	}
	s.closed = true
	s.queue = nil
	// The client forgets it: a lease opens one per acquisition, and
	// thousands closed would otherwise be walked on every state change.
	if i := slices.Index(s.c.subs, s); i >= 0 {
		s.c.subs = slices.Delete(s.c.subs, i, i+1)
	}
}

// SessionEvents implements client.Conn.
func (c *Client) SessionEvents() client.Subscription {
	s := &subscription{c: c}
	c.subs = append(c.subs, s)
	return s
}
