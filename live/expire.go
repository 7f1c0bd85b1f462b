package live

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/jute"
)

// Expire ends the Conn's session now, as its expiry would (ExpireSession),
// and returns once the ensemble has closed it; the Conn learns of it when
// it reconnects, and the library then opens a new session, as after any
// expiry. The Conn's connection is closed first, and it makes no other
// until the session is closed: so the session hears none of the watch
// events its expiry fires (its ephemeral nodes' deletion), as in the
// simulator, whose servers drop an expired session's connection before
// those events go out. (Left connected, or reconnecting meanwhile, a
// session may hear them or not, as the servers race to close its
// connection.)
func (c *Conn) Expire(ctx context.Context) error {
	h := c.handle()
	id, passwd := h.wire.credentials()
	if id == 0 {
		return errors.New("live: expire: the Conn has no session yet")
	}
	release := h.wire.holdOff()
	defer release()
	var errs []error
	for _, addr := range c.servers {
		err := ExpireSession(ctx, addr, id, passwd)
		if err == nil {
			return nil
		}
		errs = append(errs, err)
	}
	return fmt.Errorf("live: expire session %#x: %w", id, errors.Join(errs...))
}

// ExpireSession ends the session id, whose password is passwd, through the
// server at addr: a second connection resumes the session with its id and
// password and closes it there, so that the leader closes it as it closes
// an expired one (its ephemeral nodes go, every server drops its
// connections) without waiting out its timeout. ZooKeeper's own tests
// expire sessions so. A session already gone is not an error.
func ExpireSession(ctx context.Context, addr string, id int64, passwd []byte) error {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer nc.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = nc.SetDeadline(dl)
	} else {
		_ = nc.SetDeadline(time.Now().Add(10 * time.Second))
	}
	stop := context.AfterFunc(ctx, func() { nc.Close() })
	defer stop()
	// The password never null (nil sends an empty one), the readOnly
	// byte sent (false).
	connect := &jute.ConnectRequest{TimeOut: 10000, SessionID: id, Passwd: append([]byte{}, passwd...)}
	answer, err := exchange(nc, jute.Append(nil, connect))
	if err != nil {
		return fmt.Errorf("resuming the session: %w", err)
	}
	if r, err := jute.DecodeConnectResponse(answer); err != nil || r.TimeOut <= 0 {
		return nil // the server says the session has expired already
	}
	answer, err = exchange(nc, jute.AppendRequest(nil, jute.RequestHeader{Xid: 1, Type: client.OpCloseSession}, nil))
	if err != nil {
		return fmt.Errorf("closing the session: %w", err)
	}
	h, _, err := jute.DecodeReply(answer, client.OpCloseSession)
	if err != nil {
		return fmt.Errorf("closing the session: %w", err)
	}
	if h.Err != jute.CodeOK {
		return fmt.Errorf("closing the session: error %d", h.Err)
	}
	return nil
}

// exchange sends one frame and reads the answer's.
func exchange(nc net.Conn, frame []byte) ([]byte, error) {
	if err := jute.WriteFrame(nc, frame); err != nil {
		return nil, err
	}
	return jute.ReadFrame(nc, 1<<20)
}
