package jute

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Every message after the TCP connection opens is a frame: a 4-byte
// big-endian length, then that many bytes (a record, or a header and a
// record).

// MaxBuffer is jute.maxbuffer's default (0xfffff bytes): the longest frame
// a ZooKeeper 3.8 server reads, its length prefix left out. Given a longer
// length (or a negative one) the server closes the connection without
// reading the frame and without an answer; the session lives on.
const MaxBuffer = 0xfffff

// ErrFrameTooLarge is ReadFrame's error for a length over its limit, or
// negative.
var ErrFrameTooLarge = errors.New("jute: frame length over the limit")

// ReadFrame reads one frame from r and returns its bytes, without the
// length. A length below 0 or above limit is ErrFrameTooLarge, the frame
// left unread (the caller closes the connection, as the server does); a
// stream that ends inside a frame is io.ErrUnexpectedEOF, one that ends
// before it io.EOF.
func ReadFrame(r io.Reader, limit int) ([]byte, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err
	}
	size := int32(binary.BigEndian.Uint32(n[:]))
	if size < 0 || int(size) > limit {
		return nil, fmt.Errorf("%w: %d bytes (limit %d)", ErrFrameTooLarge, size, limit)
	}
	frame := make([]byte, size)
	if _, err := io.ReadFull(r, frame); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return frame, nil
}

// AppendFrame appends frame to b after its length.
func AppendFrame(b, frame []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(frame)))
	return append(b, frame...)
}

// WriteFrame writes frame to w after its length, in one Write.
func WriteFrame(w io.Writer, frame []byte) error {
	_, err := w.Write(AppendFrame(make([]byte, 0, 4+len(frame)), frame))
	return err
}

// CutFrame cuts the first whole frame from buf, bytes read from a
// connection: the frame without its length, and the bytes after it. ok is
// false while buf holds no whole frame yet. A length is read as unsigned,
// so a negative one waits for more bytes than will come: a reader that
// must refuse it uses ReadFrame.
func CutFrame(buf []byte) (frame, rest []byte, ok bool) {
	if len(buf) < 4 {
		return nil, buf, false
	}
	n := uint64(binary.BigEndian.Uint32(buf))
	if uint64(len(buf)-4) < n {
		return nil, buf, false
	}
	return buf[4 : 4+n : 4+n], buf[4+n:], true
}
