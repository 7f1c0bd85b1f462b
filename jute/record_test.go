package jute

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zksim/zksim/client"
)

var record = flag.Bool("record", false, "TestRecordFrames: record testdata/frames.txt from a real ZooKeeper 3.8 server")

const framesFile = "testdata/frames.txt"

// TestRecordFrames runs the script against a real server through the
// recording proxy and writes every frame to testdata/frames.txt (with
// -record; it needs Debian's zookeeper package).
func TestRecordFrames(t *testing.T) {
	if !*record {
		t.Skip("records only with -record")
	}
	p := newProxy(t, startServer(t))
	s := &session{t: t, p: p, raw: map[string]*rawClient{}}
	defer s.closeAll()
	for _, st := range script {
		p.setStep(st.name)
		if err := st.run(s); err != nil {
			t.Fatalf("step %s (%s): %v", st.name, st.what, err)
		}
		time.Sleep(50 * time.Millisecond) // what the step set off (notifications) comes in under its name
	}
	s.closeAll()
	p.close()
	if err := os.WriteFile(framesFile, []byte(framesText(p.frames)), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d frames written to %s", len(p.frames), framesFile)
}

// session is the clients of one recording.
type session struct {
	t   *testing.T
	p   *proxy
	zk  *zk.Conn
	raw map[string]*rawClient
}

func (s *session) closeAll() {
	if s.zk != nil {
		s.zk.Close()
	}
	for _, r := range s.raw {
		r.c.Close()
	}
}

// connectGoZK connects go-zk through the proxy, a 4s session.
func (s *session) connectGoZK() error {
	c, _, err := zk.Connect([]string{s.p.addr()}, 4*time.Second, zk.WithLogInfo(false), zk.WithLogger(quiet{}))
	if err != nil {
		return err
	}
	s.zk = c
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if c.State() == zk.StateHasSession {
			return nil
		}
	}
	return errors.New("go-zk has no session after 10s")
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}

// rewatch leaves a data watch on /jute/a, drops go-zk's connection, sets
// /jute/a through r0 (straight to the server: the proxy holds connections
// meanwhile) while go-zk is away, and lets it back: it resumes its
// session and sets its watch again, which fires at once.
func (s *session) rewatch() error {
	if _, _, _, err := s.zk.GetW("/jute/a"); err != nil {
		return err
	}
	release := s.p.hold()
	s.p.drop(s.p.lastConn())
	if err := s.dial("r0", s.p.server, ConnectRequest{TimeOut: 6000, Passwd: zeroPw}, false); err != nil {
		release()
		return err
	}
	err := s.call("r0", XidAuth, client.OpSetAuth, &AuthPacket{Scheme: "digest", Auth: []byte("u1:p1")}, CodeOK)
	if err == nil {
		err = s.call("r0", 0, client.OpSetData, &SetDataRequest{Path: "/jute/a", Data: []byte("away"), Version: -1}, CodeOK)
	}
	s.raw["r0"].c.Close()
	delete(s.raw, "r0")
	release()
	if err != nil {
		return err
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, _, err := s.zk.Exists("/jute"); err == nil {
			return nil
		}
	}
	return errors.New("go-zk did not come back within 10s")
}

// connectRaw opens a raw client's connection and sends req.
func (s *session) connectRaw(name string, req ConnectRequest) error {
	return s.connectFresh(name, req, false)
}

// connectFresh opens conn name and sends req; with refused, the server
// must then close the connection (with or without an answer).
func (s *session) connectFresh(name string, req ConnectRequest, refused bool) error {
	return s.dial(name, s.p.addr(), req, refused)
}

// dial is connectFresh to addr.
func (s *session) dial(name, addr string, req ConnectRequest, refused bool) error {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	r := &rawClient{c: c}
	s.raw[name] = r
	if err := r.send(Append(nil, &req)); err != nil {
		return err
	}
	frame, err := r.read()
	if refused {
		if err == nil {
			_, err = r.read()
		}
		return closedErr(err)
	}
	if err != nil {
		return err
	}
	resp, err := DecodeConnectResponse(frame)
	if err != nil {
		return err
	}
	if resp.TimeOut == 0 {
		return errors.New("the session was refused")
	}
	r.session, r.passwd = resp.SessionID, resp.Passwd
	return nil
}

// resume opens conn name resuming conn of's session, with passwd (nil:
// the session's own).
func (s *session) resume(name, of string, passwd []byte, _ int) error {
	o := s.raw[of]
	if passwd == nil {
		passwd = o.passwd
	}
	refused := string(passwd) != string(o.passwd)
	return s.connectFresh(name, ConnectRequest{TimeOut: 6000, SessionID: o.session, Passwd: passwd}, refused)
}

// call sends a request on conn name (xid 0: its next) and reads up to its
// answer, whose code must be code.
func (s *session) call(name string, xid int32, op client.Op, body Record, code zk.ErrCode) error {
	r := s.raw[name]
	if xid == 0 {
		r.xid++
		xid = r.xid
	}
	if err := r.send(AppendRequest(nil, RequestHeader{Xid: xid, Type: op}, body)); err != nil {
		return err
	}
	h, err := r.answer(xid)
	if err != nil {
		return err
	}
	if h.Err != code {
		return fmt.Errorf("answered %d, want %d", h.Err, code)
	}
	return nil
}

// silent sends a request on conn name that the server must leave
// unanswered (for a second).
func (s *session) silent(name string, op client.Op, body Record) error {
	r := s.raw[name]
	r.xid++
	if err := r.send(AppendRequest(nil, RequestHeader{Xid: r.xid, Type: op}, body)); err != nil {
		return err
	}
	_ = r.c.SetReadDeadline(time.Now().Add(time.Second))
	var b [1]byte
	if n, err := r.c.Read(b[:]); n > 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("the server answered (%d bytes, %v)", n, err)
	}
	return nil
}

// fresh sends frame on conn name, connecting it first if it is not open,
// and reads the answer (the frame's xid is 1..4, or none: closed). With
// closes, the server must close the connection without one.
func (s *session) fresh(name string, frame []byte, closes bool) error {
	if s.raw[name] == nil {
		if err := s.connectRaw(name, ConnectRequest{TimeOut: 6000, Passwd: zeroPw}); err != nil {
			return err
		}
	}
	r := s.raw[name]
	if err := r.send(frame); err != nil {
		return err
	}
	if closes || len(frame) < 8 {
		_, err := r.read()
		return closedErr(err)
	}
	h, _, err := DecodeReply(mustRead(r), client.OpPing) // the header alone
	if err != nil {
		return err
	}
	s.t.Logf("%s: answered xid %d code %d", name, h.Xid, h.Err)
	return nil
}

// oversized sends conn name (connected first) a frame length one over
// jute.maxbuffer, and the bytes of such a frame until the server closes
// the connection.
func (s *session) oversized(name string) error {
	if err := s.connectRaw(name, ConnectRequest{TimeOut: 6000, Passwd: zeroPw}); err != nil {
		return err
	}
	r := s.raw[name]
	head := []byte{0, 0x10, 0, 0, 0, 0, 0, 1, 0, 0, 0, 4} // length, xid 1, getData
	if _, err := r.c.Write(head); err != nil {
		return err
	}
	_, err := r.read()
	return closedErr(err)
}

// rawClient is a client of hand-written frames.
type rawClient struct {
	c       net.Conn
	xid     int32
	session int64
	passwd  []byte
}

// send writes bytes (a frame without its length) after their length.
func (r *rawClient) send(frame []byte) error {
	if r.c == nil {
		return errors.New("not connected")
	}
	_ = r.c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	return WriteFrame(r.c, frame)
}

func (r *rawClient) read() ([]byte, error) {
	_ = r.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	return ReadFrame(r.c, 1<<20)
}

func mustRead(r *rawClient) []byte {
	f, _ := r.read()
	return f
}

// answer reads frames up to the answer to xid (notifications before it
// pass) and returns its header.
func (r *rawClient) answer(xid int32) (ReplyHeader, error) {
	for {
		f, err := r.read()
		if err != nil {
			return ReplyHeader{}, err
		}
		h, _, err := DecodeReply(f, OpNotification)
		if h.Xid == xid {
			return h, nil
		}
		if err != nil && h.Xid != XidNotification {
			return h, err
		}
	}
}

// closedErr is nil if err says the connection closed.
func closedErr(err error) error {
	if err == nil {
		return errors.New("the server answered, and did not close the connection")
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "connection reset") {
		return nil
	}
	return err
}
