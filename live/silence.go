package live

import (
	"net"
	"os"
	"time"
)

// Silence pulls the client's cable for d: nothing passes either way and no
// new connection can be made, but the connections stay open, as TCP keeps
// them across a pulled cable. What either end sends meanwhile waits and
// arrives in order when d has passed, unless the connection was closed
// first: the library notices the silence as a real client does, when its
// read deadline (two thirds of the session timeout) passes without a
// frame, and then closes the connection and tries the servers again. It
// is the simulator's disconnect, whose cut links hold their messages
// until they heal; BlackHole, which closes the connections at once, is
// the live pause's.
func (f *ClientFaults) Silence(d time.Duration) {
	f.mu.Lock()
	if until := time.Now().Add(d); until.After(f.silentUntil) {
		f.silentUntil = until
	}
	f.mu.Unlock()
}

// silent reports whether the client's cable is pulled now (Silence); f.mu
// is held.
func (f *ClientFaults) silent() bool { return time.Now().Before(f.silentUntil) }

// send writes p on the connection, or, while what the client sends this
// server is held (OneWay, Silence) or bytes held before still wait, keeps
// it for later and reports it written at once, as a socket's send buffer
// does: the library's sending goroutine never blocks on a held link
// (the library waits for it before it reports the connection lost).
func (c *faultConn) send(p []byte) (int, error) {
	c.pmu.Lock()
	if c.flushing || c.f.isHeld(c.addr, true) {
		c.pending = append(c.pending, p...)
		if !c.flushing {
			c.flushing = true
			go c.flush()
		}
		c.pmu.Unlock()
		return len(p), nil
	}
	c.pmu.Unlock()
	return c.Conn.Write(p)
}

// flush sends the held bytes, in order, once the link lets them through;
// a closed connection drops them.
func (c *faultConn) flush() {
	for {
		c.waitHeldUntil(true, time.Time{})
		c.pmu.Lock()
		data := c.pending
		c.pending = nil
		if len(data) == 0 {
			c.flushing = false
			c.pmu.Unlock()
			return
		}
		c.pmu.Unlock()
		if _, err := c.Conn.Write(data); err != nil {
			c.pmu.Lock()
			c.pending, c.flushing = nil, false
			c.pmu.Unlock()
			return
		}
	}
}

// SetReadDeadline keeps the deadline, which a read held by a fault
// honours (waitHeldUntil), and sets it on the connection.
func (c *faultConn) SetReadDeadline(t time.Time) error {
	c.pmu.Lock()
	c.readDeadline = t
	c.pmu.Unlock()
	return c.Conn.SetReadDeadline(t)
}

// SetDeadline is SetReadDeadline and the write deadline.
func (c *faultConn) SetDeadline(t time.Time) error {
	c.pmu.Lock()
	c.readDeadline = t
	c.pmu.Unlock()
	return c.Conn.SetDeadline(t)
}

// deadline is the read deadline the library set last.
func (c *faultConn) deadline() time.Time {
	c.pmu.Lock()
	defer c.pmu.Unlock()
	return c.readDeadline
}

// waitHeldUntil waits while that direction of c's link is held, until the
// deadline at most (zero: none); it reports whether the link let go
// first.
func (c *faultConn) waitHeldUntil(toServer bool, deadline time.Time) bool {
	for c.f.isHeld(c.addr, toServer) {
		if !deadline.IsZero() && !time.Now().Before(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// errHeldTimeout is a read that waited out its deadline on a held link.
var errHeldTimeout = &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}
