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
