package sim

import (
	"context"
	"errors"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// A request as long as jute.maxbuffer is read and applied; a byte more
// and the server closes the connection without applying it (the session
// lives on, the client reconnects); one longer than go-zk's buffer is not
// sent at all (ErrShortBuffer).
func TestRequestSizeLimits(t *testing.T) {
	run(t, Config{}, func(ctx context.Context, c client.Conn) error {
		_, err := c.Create(ctx, "/n", nil, 0, acl)
		must(err)
		sid := c.SessionID()
		most := maxFrame - 20 - len("/n") // a setData's xid, opcode, two lengths and version
		st, err := c.Set(ctx, "/n", make([]byte, most), -1)
		must(err)
		if st.DataLength != int32(most) {
			t.Errorf("dataLength %d, want %d", st.DataLength, most)
		}
		if _, err := c.Set(ctx, "/n", make([]byte, most+1), -1); !errors.Is(err, zk.ErrConnectionClosed) {
			t.Errorf("a byte over jute.maxbuffer: %v, want ErrConnectionClosed", err)
		}
		_, st, err = c.Get(ctx, "/n")
		must(err)
		if st.Version != 1 || c.SessionID() != sid {
			t.Errorf("after the refused set: version %d, session %#x (was %#x); want 1 and the same session",
				st.Version, c.SessionID(), sid)
		}
		if _, err := c.Set(ctx, "/n", make([]byte, clientBuffer), -1); !errors.Is(err, zk.ErrShortBuffer) {
			t.Errorf("more than the library's buffer: %v, want ErrShortBuffer", err)
		}
		rs, err := c.Multi(ctx, &zk.SetDataRequest{Path: "/n", Data: make([]byte, clientBuffer), Version: -1})
		if !errors.Is(err, zk.ErrShortBuffer) || rs == nil || len(rs) != 0 {
			t.Errorf("a multi too long for the buffer: %v, %v; want no results and ErrShortBuffer", rs, err)
		}
		return nil
	})
}

// Every request counts against jute.maxbuffer, not only those carrying
// data: a read, an exists, a delete, a getACL, a sync, a getAllChildrenNumber
// or a getEphemerals whose path makes it a byte longer, or an addAuth whose
// credentials do, has the server close the connection (the session lives
// on); as long as the limit, it is answered; longer than go-zk's buffer,
// it is not sent (ErrShortBuffer).
func TestEveryRequestSizeLimited(t *testing.T) {
	run(t, Config{}, func(ctx context.Context, c client.Conn) error {
		_, err := c.Sync(ctx, "/")
		must(err)
		sid := c.SessionID()
		path := func(frame, overhead int) string { // a path making a frame of this size
			b := make([]byte, frame-overhead-4)
			for i := range b {
				b[i] = 'a'
			}
			b[0] = '/'
			return string(b)
		}
		calls := []struct {
			name     string
			overhead int // besides the path's bytes and its length: header, other fields
			call     func(p string) error
		}{
			{"get", 8 + 1, func(p string) error { _, _, err := c.Get(ctx, p); return err }},
			{"exists", 8 + 1, func(p string) error { _, _, err := c.Exists(ctx, p); return err }},
			{"children", 8 + 1, func(p string) error { _, _, err := c.Children(ctx, p); return err }},
			{"delete", 8 + 4, func(p string) error { return c.Delete(ctx, p, -1) }},
			{"getACL", 8, func(p string) error { _, _, err := c.GetACL(ctx, p); return err }},
			{"sync", 8, func(p string) error { _, err := c.Sync(ctx, p); return err }},
			{"count", 8, func(p string) error { _, err := c.GetAllChildrenNumber(ctx, p); return err }},
			{"ephemerals", 8, func(p string) error { _, err := c.GetEphemerals(ctx, p); return err }},
			{"addAuth", 8 + 4 + 4 + len("digest"), func(p string) error { return c.AddAuth(ctx, "digest", []byte("u"+p[1:])) }},
		}
		for _, tc := range calls {
			at := tc.call(path(maxFrame, tc.overhead))
			if errors.Is(at, zk.ErrConnectionClosed) || errors.Is(at, zk.ErrShortBuffer) {
				t.Errorf("%s as long as jute.maxbuffer: %v, want an answer", tc.name, at)
			}
			if err := tc.call(path(maxFrame+1, tc.overhead)); !errors.Is(err, zk.ErrConnectionClosed) {
				t.Errorf("%s a byte over jute.maxbuffer: %v, want ErrConnectionClosed", tc.name, err)
			}
			if err := tc.call(path(clientBuffer, tc.overhead)); !errors.Is(err, zk.ErrShortBuffer) {
				t.Errorf("%s longer than the library's buffer: %v, want ErrShortBuffer", tc.name, err)
			}
		}
		if c.SessionID() != sid {
			t.Errorf("session %#x, was %#x: want the same session throughout", c.SessionID(), sid)
		}
		return nil
	})
}
