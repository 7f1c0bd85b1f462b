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
	fn := func() {
		if req == nil {
			c.srv.detach(c)
			return
		}
		c.srv.receive(c, req)
	}
	if bg {
		w.s.background(at, fn)
	} else {
		w.s.at(at, fn)
	}
}

// toClient sends rep (nil: the server closed the connection).
func (c *conn) toClient(bg bool, rep *reply) {
	w := c.client.w
	at := max(w.s.now+w.linkLatency(), c.downAt)
	c.downAt = at
	fn := func() { c.client.deliver(c, rep) }
	if bg {
		w.s.background(at, fn)
	} else {
		w.s.at(at, fn)
	}
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
