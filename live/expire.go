package live

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
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
	// The connect request: protocol version, last zxid seen, timeout,
	// session id, password, read-only.
	req := binary.BigEndian.AppendUint32(nil, 0)
	req = binary.BigEndian.AppendUint64(req, 0)
	req = binary.BigEndian.AppendUint32(req, 10000)
	req = binary.BigEndian.AppendUint64(req, uint64(id))
	req = binary.BigEndian.AppendUint32(req, uint32(len(passwd)))
	req = append(req, passwd...)
	req = append(req, 0)
	answer, err := exchange(nc, req)
	if err != nil {
		return fmt.Errorf("resuming the session: %w", err)
	}
	if len(answer) < 16 || int32(binary.BigEndian.Uint32(answer[4:])) <= 0 {
		return nil // the server says the session has expired already
	}
	// closeSession: xid 1, opcode -11, no body.
	closeReq := binary.BigEndian.AppendUint32(nil, 1)
	closeReq = binary.BigEndian.AppendUint32(closeReq, uint32(0xffffffff-10))
	answer, err = exchange(nc, closeReq)
	if err != nil {
		return fmt.Errorf("closing the session: %w", err)
	}
	if len(answer) < 16 {
		return fmt.Errorf("closing the session: a short answer (%d bytes)", len(answer))
	}
	if code := int32(binary.BigEndian.Uint32(answer[12:])); code != 0 {
		return fmt.Errorf("closing the session: error %d", code)
	}
	return nil
}

// exchange sends one frame (its length, then body) and reads the answer's.
func exchange(nc net.Conn, body []byte) ([]byte, error) {
	frame := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
	if _, err := nc.Write(append(frame, body...)); err != nil {
		return nil, err
	}
	var n [4]byte
	if _, err := io.ReadFull(nc, n[:]); err != nil {
		return nil, err
	}
	size := binary.BigEndian.Uint32(n[:])
	if size > 1<<20 {
		return nil, fmt.Errorf("an answer of %d bytes", size)
	}
	answer := make([]byte, size)
	_, err := io.ReadFull(nc, answer)
	return answer, err
}
