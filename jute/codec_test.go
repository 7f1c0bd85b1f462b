package jute

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/zksim/zksim/client"
)

// Every length is checked before it is used: a negative one (but -1,
// null) and one longer than what is left are errors, never a panic or an
// allocation of that size.
func TestLengthsAreChecked(t *testing.T) {
	for _, c := range []struct {
		name  string
		frame []byte
		want  error
	}{
		{"a path of length -2", append(reqFrame(1, 4, []byte{0xff, 0xff, 0xff, 0xfe}), 0), ErrBadLength},
		{"a path longer than the frame", reqFrame(1, 4, []byte{0x7f, 0xff, 0xff, 0xff}), ErrTruncated},
		{"data of length -7", reqFrame(1, 5, jstr("/a"), []byte{0xff, 0xff, 0xff, 0xf9}, []byte{0, 0, 0, 0}), ErrBadLength},
		{"2^31-1 ACLs", reqFrame(1, 1, jstr("/a"), []byte{0xff, 0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff}), ErrBadLength},
		{"-3 ACLs", reqFrame(1, 1, jstr("/a"), []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfd}), ErrBadLength},
		{"a million watches in 12 bytes", reqFrame(1, 101, make([]byte, 8), []byte{0, 0x0f, 0x42, 0x40}), ErrBadLength},
		{"a multi without its closing header", reqFrame(1, 14, []byte{0, 0, 0, 2, 0, 0xff, 0xff, 0xff, 0xff}, jstr("/a"), []byte{0, 0, 0, 0}), ErrTruncated},
		{"a multi's op of type getACL", reqFrame(1, 14, []byte{0, 0, 0, 6, 0, 0xff, 0xff, 0xff, 0xff}, jstr("/a")), ErrMalformed},
		{"a header alone of 7 bytes", []byte{0, 0, 0, 1, 0, 0, 0}, ErrTruncated},
		{"an opcode beyond a byte", reqFrame(1, 0x104, jstr("/a")), ErrUnknownOp},
		{"opcode 0 (a notification's)", reqFrame(1, 0, nil), ErrUnknownOp},
	} {
		_, _, err := DecodeRequest(c.frame)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

// Null and empty are told apart where jute tells them apart (buffers:
// nil is -1), and a null string or vector reads as empty.
func TestNullAndEmpty(t *testing.T) {
	for _, data := range [][]byte{nil, {}} {
		b := Append(nil, &SetDataRequest{Path: "/a", Data: data})
		var got SetDataRequest
		if err := Decode(b, &got); err != nil || (got.Data == nil) != (data == nil) {
			t.Errorf("data %#v: decoded %#v (%v)", data, got.Data, err)
		}
	}
	var w SetWatches
	null := []byte{0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}
	if err := Decode(null, &w); err != nil || w.DataWatches != nil || w.RelativeZxid != 1 {
		t.Errorf("null vectors: %+v (%v)", w, err)
	}
	var g GetDataRequest
	if err := Decode([]byte{0xff, 0xff, 0xff, 0xff, 1}, &g); err != nil || g.Path != "" || !g.Watch {
		t.Errorf("a null path: %+v (%v)", g, err)
	}
}

// Size counts what Append writes, for every record the script sends and
// every one the server sent.
func TestSizeIsAppendsLength(t *testing.T) {
	for _, r := range readFrames(t) {
		if r.frame == nil || r.kind == "connect" || r.kind == "oversized" {
			continue
		}
		var body Record
		var err error
		if r.dir == '>' {
			_, body, err = DecodeRequest(r.frame)
			if err == nil && RequestSize(body) != len(r.frame) {
				t.Errorf("%s %s: RequestSize %d, frame %d bytes", r.step, r.kind, RequestSize(body), len(r.frame))
			}
		} else {
			_, body, err = DecodeReply(r.frame, opByName(r.kind))
		}
		if err != nil || body == nil {
			continue
		}
		if n := len(Append(nil, body)); Size(body) != n {
			t.Errorf("%s %s: Size %d, Append writes %d", r.step, r.kind, Size(body), n)
		}
	}
}

// ReadFrame reads up to the limit and refuses beyond it, or a negative
// length, without reading the frame.
func TestReadFrameLimit(t *testing.T) {
	body := make([]byte, 100)
	for _, c := range []struct {
		limit int
		err   error
	}{{100, nil}, {99, ErrFrameTooLarge}} {
		got, err := ReadFrame(bytes.NewReader(AppendFrame(nil, body)), c.limit)
		if !errors.Is(err, c.err) || err == nil && len(got) != 100 {
			t.Errorf("limit %d: %d bytes, %v", c.limit, len(got), err)
		}
	}
	if _, err := ReadFrame(bytes.NewReader([]byte{0xff, 0xff, 0xff, 0xfe}), MaxBuffer); !errors.Is(err, ErrFrameTooLarge) {
		t.Errorf("a negative length: %v", err)
	}
	if _, err := ReadFrame(bytes.NewReader([]byte{0, 0, 0, 5, 1}), MaxBuffer); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("a frame cut off: %v", err)
	}
	if _, err := ReadFrame(bytes.NewReader(nil), MaxBuffer); err != io.EOF {
		t.Errorf("no frame: %v", err)
	}
}

// CutFrame waits for a whole frame, and cuts it from what follows.
func TestCutFrame(t *testing.T) {
	stream := AppendFrame(AppendFrame(nil, []byte("one")), []byte("two"))
	for n := range 7 {
		if _, _, ok := CutFrame(stream[:n]); ok {
			t.Errorf("%d bytes: a frame cut", n)
		}
	}
	frame, rest, ok := CutFrame(stream)
	if !ok || string(frame) != "one" || !bytes.Equal(rest, AppendFrame(nil, []byte("two"))) {
		t.Errorf("cut %q, left %x (%v)", frame, rest, ok)
	}
}

// A reply with an error carries no body; the ping's, auth's and
// setWatches' xids need no opcode.
func TestReplyWithoutBody(t *testing.T) {
	for _, c := range []struct {
		h  ReplyHeader
		op client.Op
	}{{ReplyHeader{Xid: 3, Zxid: 9, Err: CodeNoNode}, client.OpGetData}, {ReplyHeader{Xid: XidPing, Zxid: 9}, client.OpCreate},
		{ReplyHeader{Xid: XidAuth}, client.OpCreate}, {ReplyHeader{Xid: XidSetWatches, Zxid: 4}, client.OpGetData}} {
		h, body, err := DecodeReply(AppendReply(nil, c.h, nil), c.op)
		if err != nil || h != c.h || body != nil {
			t.Errorf("%+v: %+v %v %v", c.h, h, body, err)
		}
	}
}

// PathOf names the path of every recorded request that has one: the
// string right after the header, as jute writes it.
func TestPathOf(t *testing.T) {
	for _, r := range readFrames(t) {
		if r.dir != '>' || r.frame == nil || r.kind == "connect" {
			continue
		}
		_, body, err := DecodeRequest(r.frame)
		if err != nil || body == nil {
			continue
		}
		var want string
		switch body.(type) {
		case *MultiRequest, *AuthPacket, *SetWatches, *SetWatches2, *ReconfigRequest, *SASLRequest:
		default:
			var s SyncRequest // a path first
			if err := Decode(r.frame[8:], &s); err != nil {
				t.Fatal(err)
			}
			want = s.Path
			if want == "" && r.step != "getephemerals-all" {
				t.Errorf("%s %s: no path in the frame", r.step, r.kind)
			}
		}
		if got := PathOf(body); got != want {
			t.Errorf("%s %s: PathOf %q, want %q", r.step, r.kind, got, want)
		}
	}
}
