package serve

import (
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/jute"
	"github.com/zksim/zksim/sim"
)

// frameClient speaks the wire protocol frame by frame, for what go-zk
// cannot send.
type frameClient struct {
	t  *testing.T
	nc net.Conn
}

func dialFrames(t *testing.T, addr string) *frameClient {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	return &frameClient{t: t, nc: nc}
}

func (c *frameClient) write(frame []byte) {
	c.t.Helper()
	if err := jute.WriteFrame(c.nc, frame); err != nil {
		c.t.Fatal(err)
	}
}

// read reads the next frame; nil once the server closed the connection.
func (c *frameClient) read() []byte {
	c.t.Helper()
	frame, err := jute.ReadFrame(c.nc, jute.MaxBuffer)
	if errors.Is(err, io.EOF) {
		return nil
	}
	if err != nil {
		c.t.Fatal(err)
	}
	return frame
}

// connect opens a session (id 0: a new one) and returns the answer.
func (c *frameClient) connect(id int64, passwd []byte) jute.ConnectResponse {
	c.t.Helper()
	c.write(jute.Append(nil, &jute.ConnectRequest{TimeOut: 10000, SessionID: id, Passwd: passwd}))
	frame := c.read()
	if frame == nil {
		c.t.Fatal("the connection closed before the connect answer")
	}
	r, err := jute.DecodeConnectResponse(frame)
	if err != nil {
		c.t.Fatal(err)
	}
	return r
}

// ask sends a request and reads its answer (nil: the connection closed).
func (c *frameClient) ask(xid int32, op client.Op, body jute.Record) (jute.ReplyHeader, jute.Record) {
	c.t.Helper()
	c.write(jute.AppendRequest(nil, jute.RequestHeader{Xid: xid, Type: op}, body))
	frame := c.read()
	if frame == nil {
		c.t.Fatalf("the connection closed instead of answering %s #%d", jute.OpName(op), xid)
	}
	h, r, err := jute.DecodeReply(frame, op)
	if err != nil {
		c.t.Fatal(err)
	}
	return h, r
}

// What the front end answers where the real server refuses or answers
// oddly, as Debian's ZooKeeper 3.8.0 does (jute/testdata/frames.txt).
func TestTheFrontEndRefusesAsZooKeeperDoes(t *testing.T) {
	served(t, Options{Config: sim.Config{Seed: 8}}, func(addrs []string) {
		c := dialFrames(t, addrs[0])
		c.connect(0, nil)

		// SASL on a server without it: OK, no token; the connection stays.
		if h, _ := c.ask(1, jute.OpSASL, &jute.SASLRequest{Token: []byte("x")}); h.Err != 0 {
			t.Fatalf("SASL answered %+v", h)
		}
		// reconfig, disabled: ReconfigDisabled; the connection stays.
		if h, _ := c.ask(2, jute.OpReconfig, &jute.ReconfigRequest{CurConfigID: -1}); h.Err != jute.CodeReconfigDisabled {
			t.Fatalf("reconfig answered %+v", h)
		}
		// addWatch: its answer carries a code (4 bytes) after the header.
		h, body := c.ask(3, client.OpAddWatch, &jute.AddWatchRequest{Path: "/", Mode: client.AddWatchPersistent})
		if h.Err != 0 || body == nil {
			t.Fatalf("addWatch answered %+v with body %v", h, body)
		}
		// A failed multi: code 0 in the header, each op's code in its result.
		h, body = c.ask(4, client.OpMulti, &jute.MultiRequest{Ops: []jute.MultiOp{
			{Type: client.OpCreate, Request: &jute.CreateRequest{Path: "/m", ACL: zk.WorldACL(zk.PermAll)}},
			{Type: client.OpDelete, Request: &jute.DeleteRequest{Path: "/nowhere", Version: -1}},
		}})
		multi, _ := body.(*jute.MultiResponse)
		if h.Err != 0 || multi == nil || len(multi.Results) != 2 {
			t.Fatalf("a failed multi answered %+v, %+v", h, body)
		}
		if e, _ := multi.Results[1].Response.(*jute.ErrorResponse); e == nil || e.Err != jute.CodeNoNode {
			t.Fatalf("the failing op's result is %+v, want NoNode", multi.Results[1])
		}
		// An unknown type: Unimplemented, zxid -1, then the connection closes.
		if h, _ := c.ask(5, 99, nil); h.Err != jute.CodeUnimplemented || h.Zxid != -1 {
			t.Fatalf("opcode 99 answered %+v", h)
		}
		if c.read() != nil {
			t.Fatal("the connection stayed open after an unknown request type")
		}
	})
}

// A connect with a wrong password closes the session's own connection
// first, then answers "no session" and closes; an unknown session is
// answered so too.
func TestAWrongPasswordIsAnsweredAsZooKeeperDoes(t *testing.T) {
	served(t, Options{Config: sim.Config{Seed: 9}}, func(addrs []string) {
		owner := dialFrames(t, addrs[0])
		r := owner.connect(0, nil)
		thief := dialFrames(t, addrs[1])
		if got := thief.connect(r.SessionID, make([]byte, 16)); got.SessionID != 0 || got.TimeOut != 0 {
			t.Fatalf("a wrong password was answered %+v", got)
		}
		if thief.read() != nil {
			t.Fatal("the connection with the wrong password stayed open")
		}
		if owner.read() != nil {
			t.Fatal("the session's own connection stayed open after a wrong password for it")
		}
		back := dialFrames(t, addrs[2])
		if got := back.connect(r.SessionID, r.Passwd); got.SessionID != r.SessionID {
			t.Fatalf("the session, resumed with its password, answered %+v", got)
		}
		stranger := dialFrames(t, addrs[0])
		if got := stranger.connect(0x7777, make([]byte, 16)); got.SessionID != 0 {
			t.Fatalf("an unknown session was answered %+v", got)
		}
	})
}
