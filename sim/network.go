package sim

// conn is one client connection to one server: two FIFO directions whose
// messages take a latency drawn from the run's source, never overtaking
// each other. A message sent on a connection that has since closed is
// dropped at the receiving end.
type conn struct {
	srv    *server
	client *Client
	open   bool     // from the server's side
	sess   *session // the session attached to it, on the server
	upAt   Time     // when the last client→server message arrives
	downAt Time     // when the last server→client message arrives
}

// toServer sends req (nil: the client closed the connection). Heartbeats
// travel as background events.
func (c *conn) toServer(bg bool, req *request) {
	w := c.client.w
	at := max(w.s.now+w.linkLatency(), c.upAt)
	c.upAt = at
	if req == nil {
		w.s.schedule(at, funcHandler(func() { c.srv.detach(c) }), bg)
		return
	}
	req.cn, req.stage = c, toServer
	w.s.schedule(at, req, bg)
}

// toClient sends a message of the server's own.
func (c *conn) toClient(bg bool, rep *reply) {
	w := c.client.w
	at := max(w.s.now+w.linkLatency(), c.downAt)
	c.downAt = at
	rep.cn = c
	w.s.schedule(at, rep, bg)
}

// answer sends req's reply back.
func (c *conn) answer(req *request) {
	w := c.client.w
	at := max(w.s.now+w.linkLatency(), c.downAt)
	c.downAt = at
	req.rep.cn, req.stage = c, toClient
	w.s.schedule(at, req, false)
}

// detach handles a connection the client closed: its session stays, without
// a connection, until it reconnects or expires.
func (s *server) detach(c *conn) {
	if !c.open {
		return
	}
	c.open = false
	if c.sess != nil && c.sess.conn == c {
		c.sess.conn = nil
	}
}
