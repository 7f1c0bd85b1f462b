package jute

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/zksim/zksim/client"
)

// testdata/frames.txt holds the frames a real ZooKeeper 3.8 server and
// its clients exchanged (TestRecordFrames): one line a frame,
//
//	DIR CONN KIND STEP HEX
//
// DIR > from the client, < from the server; CONN the connection (c1,
// c2, ...); KIND "connect" (its first frame each way), the opcode's name
// (a reply's is its request's), "notification", or an event: "closed"
// (the server closed the connection) and "oversized" (a length over
// jute.maxbuffer: HEX is the length alone); STEP the script's step; HEX
// the frame without its length ("-" for closed). A line beginning # is a
// comment, naming the frame after it.

// framesText is the recorded frames as testdata/frames.txt has them.
func framesText(frames []recorded) string {
	var b strings.Builder
	b.WriteString("# Frames between clients and a real ZooKeeper 3.8 server (Debian's 3.8.0), recorded by\n")
	b.WriteString("# `go test ./jute -run TestRecordFrames -record` from the script in script_test.go and\n")
	b.WriteString("# script2_test.go; format in frames_test.go. TestRecordedFrames decodes and re-encodes each.\n")
	whats := map[string]string{}
	for _, st := range script {
		whats[st.name] = st.what
	}
	last := ""
	for _, f := range frames {
		if f.step != last {
			fmt.Fprintf(&b, "\n# step %s: %s\n", f.step, whats[f.step])
			last = f.step
		}
		h := "-"
		if f.frame != nil {
			h = hex.EncodeToString(f.frame)
		}
		fmt.Fprintf(&b, "# %s\n%c %s %s %s %s\n", describe(f), f.dir, f.conn, f.kind, f.step, h)
	}
	return b.String()
}

// describe says what a recorded frame is, for its comment.
func describe(f recorded) string {
	who := map[byte]string{'>': "client", '<': "server"}[f.dir]
	switch f.kind {
	case "closed":
		return "the server closes " + f.conn
	case "oversized":
		return fmt.Sprintf("%s sends a frame length of %d bytes", f.conn, int32(uint32(f.frame[0])<<24|uint32(f.frame[1])<<16|uint32(f.frame[2])<<8|uint32(f.frame[3])))
	case "connect":
		if f.dir == '>' {
			return f.conn + ": connect request"
		}
		return f.conn + ": connect answer"
	}
	if f.dir == '>' {
		return fmt.Sprintf("%s: %s request (%s)", f.conn, f.kind, who)
	}
	if f.kind == "notification" {
		return f.conn + ": notification"
	}
	h, _, err := DecodeReply(f.frame, opByName(f.kind))
	if err != nil && h == (ReplyHeader{}) {
		return fmt.Sprintf("%s: %s reply", f.conn, f.kind)
	}
	return fmt.Sprintf("%s: %s reply, code %d", f.conn, f.kind, h.Err)
}

// opByName is the opcode OpName names ("?" and the rest: -128).
func opByName(name string) client.Op {
	for op := -128; op < 128; op++ {
		if OpName(client.Op(op)) == name {
			return client.Op(op)
		}
	}
	return -128
}

// readFrames reads testdata/frames.txt.
func readFrames(t testing.TB) []recorded {
	t.Helper()
	f, err := os.Open(framesFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []recorded
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 5 || len(fields[0]) != 1 {
			t.Fatalf("%s:%d: want DIR CONN KIND STEP HEX, got %q", framesFile, n, line)
		}
		r := recorded{dir: fields[0][0], conn: fields[1], kind: fields[2], step: fields[3]}
		if fields[4] != "-" {
			if r.frame, err = hex.DecodeString(fields[4]); err != nil {
				t.Fatalf("%s:%d: %v", framesFile, n, err)
			}
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Every recorded frame decodes, and encodes back to its very bytes; the
// requests decode to what the script sent, the replies carry what the
// script expects of them; every step left frames, and the server closed
// the connections the script says it closes, and no other (but after a
// closeSession).
func TestRecordedFrames(t *testing.T) {
	frames := readFrames(t)
	steps := map[string]step{}
	for _, st := range script {
		steps[st.name] = st
	}
	seen, closed, replied := map[string]bool{}, map[string]bool{}, map[string]bool{}
	notes := map[string][]WatcherEvent{}
	for i, f := range frames {
		st, ok := steps[f.step]
		if !ok {
			t.Fatalf("frame %d: step %q is not in the script", i, f.step)
		}
		seen[f.step] = true
		where := fmt.Sprintf("frame %d (%c %s %s, step %s)", i, f.dir, f.conn, f.kind, f.step)
		switch {
		case f.kind == "closed":
			closed[f.step] = true
			if !st.closed && st.op != client.OpCloseSession {
				t.Errorf("%s: the server closed the connection; the script says it does not", where)
			}
		case f.kind == "oversized":
			if st.kindOf() != "oversized" {
				t.Errorf("%s: an oversized frame outside its step", where)
			}
		case f.dir == '>':
			checkRequest(t, where, f, st)
		default:
			if checkReply(t, where, f, st) {
				replied[f.step] = true
			}
			if f.kind == "notification" {
				if _, ev, err := DecodeReply(f.frame, OpNotification); err == nil {
					notes[f.step] = append(notes[f.step], *ev.(*WatcherEvent))
				}
			}
		}
	}
	for _, st := range script {
		if !seen[st.name] {
			t.Errorf("step %s left no frame: record again (-record)", st.name)
		}
		if st.closed && !closed[st.name] {
			t.Errorf("step %s: the script says the server closes the connection; it did not", st.name)
		}
		if !slices.Equal(notes[st.name], st.notes) {
			t.Errorf("step %s: notifications %v, want %v", st.name, notes[st.name], st.notes)
		}
		if st.noReply && replied[st.name] {
			t.Errorf("step %s: the script says the server does not answer; it did", st.name)
		}
	}
}

// checkRequest decodes a request frame (or a connect) and encodes it
// back, and compares it with the step's.
func checkRequest(t *testing.T, where string, f recorded, st step) {
	t.Helper()
	var got any
	var again []byte
	if f.kind == "connect" {
		r, err := DecodeConnect(f.frame)
		if err != nil {
			t.Errorf("%s: %v", where, err)
			return
		}
		got, again = &r, Append(nil, &r)
	} else {
		h, body, err := DecodeRequest(f.frame)
		if st.undecodable != nil && f.kind == st.kindOf() {
			if !errors.Is(err, st.undecodable) {
				t.Errorf("%s: DecodeRequest: %v, want %v", where, err, st.undecodable)
			}
			return
		}
		if err != nil {
			t.Errorf("%s: %v", where, err)
			return
		}
		got, again = body, AppendRequest(nil, h, body)
	}
	if !bytes.Equal(again, f.frame) {
		t.Errorf("%s: encoded again as\n%x, not\n%x", where, again, f.frame)
	}
	if st.want != nil && f.kind == st.kindOf() && !reflect.DeepEqual(got, st.want) {
		t.Errorf("%s: decoded %+v, want %+v", where, got, st.want)
	}
}

// checkReply decodes a reply frame (or a connect's answer) and encodes it
// back, and checks it as the step says; it reports whether the frame
// answers the step's request.
func checkReply(t *testing.T, where string, f recorded, st step) bool {
	t.Helper()
	if f.kind == "connect" {
		r, err := DecodeConnectResponse(f.frame)
		if err != nil {
			t.Errorf("%s: %v", where, err)
			return false
		}
		if again := Append(nil, &r); !bytes.Equal(again, f.frame) {
			t.Errorf("%s: encoded again as\n%x, not\n%x", where, again, f.frame)
		}
		if st.op == client.OpCreateSession && st.reply != nil {
			if err := st.reply(&r); err != nil {
				t.Errorf("%s: %+v: %v", where, r, err)
			}
		}
		return st.op == client.OpCreateSession
	}
	h, body, err := DecodeReply(f.frame, opByName(f.kind))
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return false
	}
	if again := AppendReply(nil, h, body); !bytes.Equal(again, f.frame) {
		t.Errorf("%s: encoded again as\n%x, not\n%x", where, again, f.frame)
	}
	if f.kind != st.kindOf() || h.Xid == XidNotification && st.op != OpNotification {
		return false
	}
	if h.Err != st.code {
		t.Errorf("%s: code %d, want %d", where, h.Err, st.code)
	}
	if st.reply != nil {
		if err := st.reply(body); err != nil {
			t.Errorf("%s: %+v: %v", where, body, err)
		}
	}
	return true
}
