package jute

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
)

// The errors a decoder returns, each wrapped with where it happened.
var (
	// ErrMalformed: the bytes do not make the record. ZooKeeper answers
	// a request whose body is malformed with CodeMarshallingError, and
	// closes the connection on a malformed request header or connect.
	ErrMalformed = errors.New("jute: malformed record")
	// ErrTruncated: the record needs more bytes than the frame has left.
	ErrTruncated = fmt.Errorf("%w: truncated", ErrMalformed)
	// ErrBadLength: a buffer's, a string's or a vector's length below -1
	// (null), or a vector longer than the bytes left could hold.
	ErrBadLength = fmt.Errorf("%w: bad length", ErrMalformed)
	// ErrUnknownOp: no record is known for the opcode of a request (the
	// server answers CodeUnimplemented, then closes the connection), or
	// of a reply.
	ErrUnknownOp = errors.New("jute: unknown opcode")
)

// Record is one of jute's records: it writes itself as jute's binary
// archive does, and reads itself back. Only this package's types are
// records.
type Record interface {
	encode(e *encoder)
	decode(d *decoder)
}

// Append appends r to b as jute writes it.
func Append(b []byte, r Record) []byte {
	e := encoder{b: b}
	r.encode(&e)
	return e.b
}

// Size is how many bytes r takes as jute writes it, counted without
// writing it (0 for nil, no record).
func Size(r Record) int {
	if r == nil {
		return 0
	}
	e := encoder{sizing: true}
	r.encode(&e)
	return e.n
}

// Decode reads r from body. Bytes after the record are left unread, as
// ZooKeeper's server leaves them.
func Decode(body []byte, r Record) error {
	d := decoder{b: body}
	r.decode(&d)
	return d.err
}

// encoder appends jute's binary form of values to b or, when sizing,
// only counts their bytes in n: one encode method per record gives both
// its bytes and its size.
type encoder struct {
	b      []byte
	n      int
	sizing bool
}

func (e *encoder) int(v int32) {
	if e.sizing {
		e.n += 4
		return
	}
	e.b = binary.BigEndian.AppendUint32(e.b, uint32(v))
}

func (e *encoder) long(v int64) {
	if e.sizing {
		e.n += 8
		return
	}
	e.b = binary.BigEndian.AppendUint64(e.b, uint64(v))
}

func (e *encoder) bool(v bool) {
	if e.sizing {
		e.n++
		return
	}
	var c byte
	if v {
		c = 1
	}
	e.b = append(e.b, c)
}

// buffer writes b's length, then its bytes; a nil b is null (length -1).
func (e *encoder) buffer(b []byte) {
	if b == nil {
		e.int(-1)
		return
	}
	if e.sizing {
		e.n += 4 + len(b)
		return
	}
	e.b = binary.BigEndian.AppendUint32(e.b, uint32(len(b)))
	e.b = append(e.b, b...)
}

func (e *encoder) string(s string) {
	if e.sizing {
		e.n += 4 + len(s)
		return
	}
	e.b = binary.BigEndian.AppendUint32(e.b, uint32(len(s)))
	e.b = append(e.b, s...)
}

// strings writes a vector of strings: its count, then each.
func (e *encoder) strings(list []string) {
	e.int(int32(len(list)))
	for _, s := range list {
		e.string(s)
	}
}

// acl writes a vector of ACLs: its count, then each one's perms and Id
// (scheme, id).
func (e *encoder) acl(list []zk.ACL) {
	e.int(int32(len(list)))
	for _, a := range list {
		e.int(a.Perms)
		e.string(a.Scheme)
		e.string(a.ID)
	}
}

// stat writes a Stat's eleven fields in jute's order (68 bytes).
func (e *encoder) stat(s *zk.Stat) {
	e.long(s.Czxid)
	e.long(s.Mzxid)
	e.long(s.Ctime)
	e.long(s.Mtime)
	e.int(s.Version)
	e.int(s.Cversion)
	e.int(s.Aversion)
	e.long(s.EphemeralOwner)
	e.int(s.DataLength)
	e.int(s.NumChildren)
	e.long(s.Pzxid)
}

// decoder reads jute's binary form from b. The first failure sticks in
// err: every later read returns a zero value, so a record's decode reads
// its fields in order and checks nothing itself. Every length is checked
// against the bytes left before anything is made of that size.
type decoder struct {
	b   []byte
	off int // bytes read so far, for errors
	err error
}

// fail records the first failure, with the offset it happened at.
func (d *decoder) fail(err error, what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s at byte %d", err, what, d.off)
		d.b = nil
	}
}

// take returns the next n bytes (n ≥ 0), or nil and a failure when fewer
// are left.
func (d *decoder) take(n int, what string) []byte {
	if d.err != nil {
		return nil
	}
	if n > len(d.b) {
		d.fail(ErrTruncated, fmt.Sprintf("%s of %d bytes, %d left", what, n, len(d.b)))
		return nil
	}
	out := d.b[:n:n]
	d.b = d.b[n:]
	d.off += n
	return out
}

func (d *decoder) int() int32 {
	if b := d.take(4, "an int"); b != nil {
		return int32(binary.BigEndian.Uint32(b))
	}
	return 0
}

func (d *decoder) long() int64 {
	if b := d.take(8, "a long"); b != nil {
		return int64(binary.BigEndian.Uint64(b))
	}
	return 0
}

// bool reads one byte: any but 0 is true, as Java's readBoolean has it.
func (d *decoder) bool() bool {
	if b := d.take(1, "a boolean"); b != nil {
		return b[0] != 0
	}
	return false
}

// length reads a buffer's or a string's length: -1 is null (returned as
// -1), below that an error.
func (d *decoder) length(what string) int {
	n := d.int()
	if n < -1 {
		d.fail(ErrBadLength, fmt.Sprintf("%s of length %d", what, n))
		return -1
	}
	return int(n)
}

// buffer reads a buffer, a copy of its bytes; null (-1) is nil.
func (d *decoder) buffer() []byte {
	n := d.length("a buffer")
	if n < 0 {
		return nil
	}
	b := d.take(n, "a buffer")
	if b == nil {
		return nil
	}
	return append(make([]byte, 0, n), b...)
}

// string reads a string; null (-1) reads as "". Its bytes are kept as
// they are: the server reads them as UTF-8 (an invalid sequence becomes
// U+FFFD), which is for whoever plays the server to do.
func (d *decoder) string() string {
	n := d.length("a string")
	if n < 0 {
		return ""
	}
	return string(d.take(n, "a string"))
}

// count reads a vector's count, -1 (null) as 0, checked against the bytes
// left: each element takes at least `least` bytes, so a count the frame
// cannot hold is an error before anything is made for it.
func (d *decoder) count(least int, what string) int {
	n := d.int()
	switch {
	case d.err != nil || n == -1:
		return 0
	case n < -1 || int64(n)*int64(least) > int64(len(d.b)):
		d.fail(ErrBadLength, fmt.Sprintf("a vector of %d %s, %d bytes left", n, what, len(d.b)))
		return 0
	}
	return int(n)
}

// strings reads a vector of strings; null and empty read as nil.
func (d *decoder) strings() []string {
	n := d.count(4, "strings")
	if n == 0 {
		return nil
	}
	out := make([]string, 0, n)
	for range n {
		out = append(out, d.string())
	}
	if d.err != nil {
		return nil
	}
	return out
}

// acl reads a vector of ACLs; null and empty read as nil.
func (d *decoder) acl() []zk.ACL {
	n := d.count(12, "ACLs")
	if n == 0 {
		return nil
	}
	out := make([]zk.ACL, 0, n)
	for range n {
		out = append(out, zk.ACL{Perms: d.int(), Scheme: d.string(), ID: d.string()})
	}
	if d.err != nil {
		return nil
	}
	return out
}

func (d *decoder) stat() zk.Stat {
	return zk.Stat{Czxid: d.long(), Mzxid: d.long(), Ctime: d.long(), Mtime: d.long(), Version: d.int(),
		Cversion: d.int(), Aversion: d.int(), EphemeralOwner: d.long(), DataLength: d.int(),
		NumChildren: d.int(), Pzxid: d.long()}
}
