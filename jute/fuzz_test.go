package jute

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/zksim/zksim/client"
)

// The decoders under Go's fuzzing (make fuzz), seeded with every frame
// recorded from the real server: whatever the bytes, a decoder returns a
// record or an error and never panics, and a record decoded encodes to
// bytes that decode to the same record again.

// seedFrames adds the recorded frames going dir (and, kind "connect" or
// not, as connect wants) to f's corpus.
func seedFrames(f *testing.F, dir byte, connect bool, add func(frame []byte, op client.Op)) {
	for _, r := range readFrames(f) {
		if r.dir == dir && r.frame != nil && (r.kind == "connect") == connect && r.kind != "oversized" {
			add(r.frame, opByName(r.kind))
		}
	}
}

func FuzzDecodeRequest(f *testing.F) {
	seedFrames(f, '>', false, func(b []byte, _ client.Op) { f.Add(b) })
	f.Fuzz(func(t *testing.T, frame []byte) {
		h, body, err := DecodeRequest(frame)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrUnknownOp) {
				t.Fatalf("%x: an error neither malformed nor unknown: %v", frame, err)
			}
			return
		}
		h2, body2, err := DecodeRequest(AppendRequest(nil, h, body))
		if err != nil || h2 != h || !reflect.DeepEqual(body2, body) {
			t.Fatalf("%x: decoded %+v %+v, encoded and decoded again %+v %+v (%v)", frame, h, body, h2, body2, err)
		}
	})
}

func FuzzDecodeReply(f *testing.F) {
	seedFrames(f, '<', false, func(b []byte, op client.Op) { f.Add(b, int8(op)) })
	f.Fuzz(func(t *testing.T, frame []byte, op int8) {
		h, body, err := DecodeReply(frame, client.Op(op))
		if err != nil {
			return
		}
		h2, body2, err := DecodeReply(AppendReply(nil, h, body), client.Op(op))
		if err != nil || h2 != h || !reflect.DeepEqual(body2, body) {
			t.Fatalf("%x: decoded %+v %+v, encoded and decoded again %+v %+v (%v)", frame, h, body, h2, body2, err)
		}
	})
}

func FuzzDecodeConnect(f *testing.F) {
	seedFrames(f, '>', true, func(b []byte, _ client.Op) { f.Add(b) })
	seedFrames(f, '<', true, func(b []byte, _ client.Op) { f.Add(b) })
	f.Fuzz(func(t *testing.T, frame []byte) {
		if r, err := DecodeConnect(frame); err == nil {
			again, err := DecodeConnect(Append(nil, &r))
			if err != nil || !reflect.DeepEqual(again, r) {
				t.Fatalf("%x: request %+v, again %+v (%v)", frame, r, again, err)
			}
		}
		if r, err := DecodeConnectResponse(frame); err == nil {
			again, err := DecodeConnectResponse(Append(nil, &r))
			if err != nil || !reflect.DeepEqual(again, r) {
				t.Fatalf("%x: answer %+v, again %+v (%v)", frame, r, again, err)
			}
		}
	})
}

// FuzzReadFrame: a stream of bytes reads as frames no longer than the
// limit, each as long as its length says, until an error.
func FuzzReadFrame(f *testing.F) {
	for _, r := range readFrames(f) {
		if r.frame != nil {
			f.Add(AppendFrame(nil, r.frame), uint16(64))
		}
	}
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 1}, uint16(10))
	f.Fuzz(func(t *testing.T, stream []byte, limit uint16) {
		r := bytes.NewReader(stream)
		for {
			frame, err := ReadFrame(r, int(limit))
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, ErrFrameTooLarge) {
					t.Fatalf("an error of another kind: %v", err)
				}
				return
			}
			if len(frame) > int(limit) {
				t.Fatalf("a frame of %d bytes past the limit %d", len(frame), limit)
			}
		}
	})
}
