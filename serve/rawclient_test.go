package serve

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/jute"
)

// A client that writes frames by hand, for the requests go-zookeeper/zk
// cannot send, and what it reads back in the terms a real server's
// answers and the front end's share.

// rawClient is one connection, its session opened.
type rawClient struct {
	t *testing.T
	c net.Conn
}

// dialRaw connects to addr and opens a session.
func dialRaw(t *testing.T, addr string) *rawClient {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	r := &rawClient{t: t, c: c}
	r.write(jute.Append(nil, &jute.ConnectRequest{TimeOut: 10000, Passwd: make([]byte, 16)}))
	if _, err := r.read(); err != nil {
		t.Fatalf("no connect answer: %v", err)
	}
	return r
}

func (r *rawClient) write(frame []byte) {
	r.t.Helper()
	_ = r.c.SetDeadline(time.Now().Add(5 * time.Second))
	if err := jute.WriteFrame(r.c, frame); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rawClient) read() ([]byte, error) {
	_ = r.c.SetDeadline(time.Now().Add(5 * time.Second))
	return jute.ReadFrame(r.c, jute.MaxBuffer)
}

// exchange sends a request frame and returns the frames that came back
// up to its answer (the notifications before it, then the answer).
func (r *rawClient) exchange(frame []byte) [][]byte {
	r.t.Helper()
	h, _, err := jute.DecodeRequest(frame)
	if err != nil && h.Type == 0 {
		r.t.Fatalf("a request frame that does not decode: %v", err)
	}
	r.write(frame)
	var out [][]byte
	for {
		f, err := r.read()
		if err != nil {
			r.t.Fatalf("waiting for the answer to %s #%d: %v", jute.OpName(h.Type), h.Xid, err)
		}
		out = append(out, f)
		if rh, _, _ := jute.DecodeReply(f, 0); rh.Xid == h.Xid {
			return out
		}
	}
}

// call sends a request and returns its answer in the shared terms
// (shared), the notifications before it first, a line each.
func (r *rawClient) call(xid int32, op client.Op, body jute.Record) string {
	r.t.Helper()
	frames := r.exchange(jute.AppendRequest(nil, jute.RequestHeader{Xid: xid, Type: op}, body))
	lines := make([]string, len(frames))
	for i, f := range frames {
		lines[i] = shared(f, op)
	}
	return strings.Join(lines, "\n")
}

// shared is a reply frame to a request of type op (or a notification) in
// the terms a real server's answer and the front end's share: its
// header's zxid, and the zxids, times and ephemeral owner (but whether
// there is one) of each Stat in it, set to 0; a listing's children
// sorted, as recipes must sort them; then the frame those make, in hex,
// and what it says.
func shared(frame []byte, op client.Op) string {
	h, body, err := jute.DecodeReply(frame, op)
	if err != nil {
		return fmt.Sprintf("undecodable (%v): %x", err, frame)
	}
	if h.Xid != jute.XidNotification {
		h.Zxid = 0
	}
	maskBody(body)
	return fmt.Sprintf("%x %s", jute.AppendReply(nil, h, body), says(h, body))
}

// maskBody masks the Stats and sorts the children of a reply's body.
func maskBody(body jute.Record) {
	switch b := body.(type) {
	case *jute.Create2Response:
		maskStat(&b.Stat)
	case *jute.ExistsResponse:
		maskStat(&b.Stat)
	case *jute.SetDataResponse:
		maskStat(&b.Stat)
	case *jute.GetDataResponse:
		maskStat(&b.Stat)
	case *jute.GetACLResponse:
		maskStat(&b.Stat)
	case *jute.SetACLResponse:
		maskStat(&b.Stat)
	case *jute.GetChildrenResponse:
		slices.Sort(b.Children)
	case *jute.GetChildren2Response:
		slices.Sort(b.Children)
		maskStat(&b.Stat)
	case *jute.MultiResponse:
		for _, res := range b.Results {
			maskBody(res.Response)
		}
	}
}

func maskStat(st *zk.Stat) {
	st.Czxid, st.Mzxid, st.Pzxid, st.Ctime, st.Mtime = 0, 0, 0, 0, 0
	if st.EphemeralOwner != 0 {
		st.EphemeralOwner = 1
	}
}

// says is a reply's header and body in words.
func says(h jute.ReplyHeader, body jute.Record) string {
	s := fmt.Sprintf("(xid %d, code %d", h.Xid, h.Err)
	switch b := body.(type) {
	case nil:
	case *jute.MultiResponse:
		for _, r := range b.Results {
			s += fmt.Sprintf(", %s %+v", jute.OpName(r.Type), r.Response)
		}
	default:
		s += fmt.Sprintf(", %+v", b)
	}
	return s + ")"
}

// recordedFrame is one frame of jute/testdata/frames.txt: what a real
// ZooKeeper 3.8 server and its clients exchanged.
type recordedFrame struct {
	dir              byte // '>' client to server, '<' server to client
	conn, kind, step string
	frame            []byte
}

// recordedFrames reads the frames jute's recording keeps (format in
// jute/frames_test.go).
func recordedFrames(t *testing.T) []recordedFrame {
	t.Helper()
	f, err := os.Open("../jute/testdata/frames.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []recordedFrame
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 5 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		r := recordedFrame{dir: fields[0][0], conn: fields[1], kind: fields[2], step: fields[3]}
		if fields[4] != "-" {
			if r.frame, err = hex.DecodeString(fields[4]); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
