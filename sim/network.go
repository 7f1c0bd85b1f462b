package sim

// link is one direction of the network between two actors. Messages on it
// arrive in the order they were sent, each after a latency drawn from the
// run's source plus any latency spike in force. While the link is cut,
// messages wait, as TCP would keep retransmitting them, and go out in order
// when it heals; a message for a connection that has closed meanwhile is
// dropped by its receiver.
type link struct {
	lastAt     Time // when the last message sent on it arrives
	cut        bool
	held       []heldMsg
	spike      Time // extra latency
	spikeUntil Time
}

type heldMsg struct {
	h  handler
	bg bool
}

// send puts h on link l.
func (w *World) send(l *link, h handler, bg bool) { w.sendAfter(l, h, bg, 0) }

// sendAfter puts h on link l to leave after the given delay (its sender is
// still at work on it): it arrives that much later, and so does whatever is
// sent on l after it. A message held on a cut link leaves when it heals,
// without what was left of its delay; a cut made while it waits to leave
// does not hold it. Both are within the delay (a read's ReadDelay: tens of
// microseconds), far below any cut's length.
func (w *World) sendAfter(l *link, h handler, bg bool, delay Time) {
	if l.cut {
		l.held = append(l.held, heldMsg{h, bg})
		return
	}
	d := delay + w.linkLatency()
	if w.s.now < l.spikeUntil {
		d += l.spike
	}
	at := max(w.s.now+d, l.lastAt)
	l.lastAt = at
	w.s.schedule(at, h, bg)
}

// heal reopens l and sends what waited on it, in order.
func (w *World) heal(l *link) {
	if !l.cut {
		return
	}
	l.cut = false
	held := l.held
	l.held = nil
	for _, m := range held {
		w.send(l, m.h, m.bg)
	}
}

// conn is one client connection to one server, over the links between them.
type conn struct {
	srv    *server
	client *Client
	open   bool     // from the server's side
	sess   *session // the session attached to it, on the server
	up     *link    // client → server
	down   *link    // server → client
	// auth are the ids the connection has authenticated as, on the
	// server: its address, and the digests the client added (go-zk sends
	// its credentials again on each new connection). A request is checked
	// against the ids its connection had when the server received it.
	auth []authID
	// wire is, for a connection of a client outside the simulator, the
	// front end's handle on it (outside.go); nil for a simulated client's.
	wire *Wire
}

// toServer sends req (nil: the client closed the connection). Heartbeats
// travel as background events.
func (c *conn) toServer(bg bool, req *request) {
	w := c.client.w
	if req == nil {
		w.send(c.up, funcHandler(func() { c.srv.detach(c) }), bg)
		return
	}
	req.cn, req.stage = c, toServer
	w.send(c.up, req, bg)
}

// toClient sends a message of the server's own.
func (c *conn) toClient(bg bool, rep *reply) {
	rep.cn = c
	c.client.w.send(c.down, rep, bg)
}

// answer sends req's reply back, to leave after delay.
func (c *conn) answer(req *request, delay Time) {
	req.rep.cn, req.stage = c, toClient
	c.client.w.sendAfter(c.down, req, false, delay)
}

// close closes a connection from the server's side (the server shut down,
// refused the client, or expired its session); the client learns of it when
// the close reaches it, after whatever was sent before.
func (c *conn) close() {
	if !c.open {
		return
	}
	c.toClient(false, &reply{eof: true})
	c.open = false
	if c.sess != nil && c.sess.conn == c {
		c.sess.conn = nil
	}
}
