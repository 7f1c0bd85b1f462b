package live

import (
	"encoding/binary"
	"net"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zksim/zksim/client"
)

// wire is a handle's own view of the bytes on its connections, for what
// go-zookeeper/zk v1.0.4 cannot do or does not tell:
//
//   - create2: the library sends every create as a plain create (opcode 1),
//     whose answer is the path alone. When Create2 arms it, the next create
//     goes out as create2 (15; the request's body is the same) and the
//     Stat in its answer is kept; the library reads the path and ignores
//     the bytes after it.
//   - the session's password, from the server's answer to the connect
//     request, which the library keeps to itself: ExpireSession needs it;
//     and a way to keep the handle off the ensemble meanwhile (holdOff).
//   - the watch notifications, in the order they arrive (OnNotification):
//     the library gives each watch a channel of its own, which loses it.
//   - requests the library has no call for (getEphemerals,
//     getAllChildrenNumber, addWatch, removeWatches): armed with
//     armRewrite, the next sync goes out as that request on the same path
//     (with what else it carries after the path), and its answer comes back
//     to the library as the sync's (the path), its own body kept.
//   - persistent watches, which the library does not know of: set again on
//     each new connection of the session, as setWatches2 (persistent.go),
//     and their notifications told to the Conn.
//
// It relies on the library writing each request with one Write (it
// does); a frame is forwarded once whole.
type wire struct {
	mu sync.Mutex
	// armed says the next create goes out as create2; xid is then the
	// create2 awaiting its answer (0: none yet), and stat its Stat once
	// answered.
	armed bool
	xid   int32
	stat  *zk.Stat
	// session and passwd are the session the last connect answer named.
	session int64
	passwd  []byte
	onNote  func(zk.Event)
	// rw is the request armRewrite armed (nil: none).
	rw *rewrite
	// held, while not nil, keeps the handle from connecting (holdOff);
	// last is its latest connection.
	held chan struct{}
	last net.Conn
	// persistent are the session's persistent watches, set again on each
	// new connection; onPersistent is told of every notification, for
	// them (persistent.go).
	persistent   []persistentReg
	onPersistent func(zk.Event)
	// removed are the paths whose watches RemoveWatches removed, which
	// the library does not know of: its setWatches leaves them out, until
	// a watching read sets a new one there.
	removed map[string]bool
}

// wrap puts c, a connection the dialer made, under the wire's eye.
func (w *wire) wrap(c net.Conn) net.Conn {
	wc := &wireConn{Conn: c, w: w}
	w.mu.Lock()
	w.last = wc
	w.mu.Unlock()
	return wc
}

// holdOff closes the handle's connection and keeps it from making another
// until release is called: the library's dial waits meanwhile (up to its
// dial timeout).
func (w *wire) holdOff() (release func()) {
	w.mu.Lock()
	held := make(chan struct{})
	w.held = held
	last := w.last
	w.mu.Unlock()
	if last != nil {
		last.Close()
	}
	return func() {
		w.mu.Lock()
		if w.held == held {
			w.held = nil
		}
		w.mu.Unlock()
		close(held)
	}
}

// waitHeld waits, before a dial, for holdOff's release, timeout at most.
func (w *wire) waitHeld(timeout time.Duration) {
	w.mu.Lock()
	held := w.held
	w.mu.Unlock()
	if held == nil {
		return
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-held:
	case <-t.C:
	}
}

// armCreate2 has the next create go out as create2.
func (w *wire) armCreate2() {
	w.mu.Lock()
	w.armed, w.xid, w.stat = true, 0, nil
	w.mu.Unlock()
}

// disarm ends what armCreate2 began and returns the Stat the create2's
// answer carried (nil if none came: the create failed, or was never
// sent).
func (w *wire) disarm() *zk.Stat {
	w.mu.Lock()
	defer w.mu.Unlock()
	st := w.stat
	w.armed, w.xid, w.stat = false, 0, nil
	return st
}

// rewrite is a request sent in place of a sync: its opcode, the xid it
// went out with (0: not yet), and its answer's error code and body.
type rewrite struct {
	op    int32
	extra []byte // what the request has after the path (addWatch's mode)
	path  string // the sync's, and the request's
	xid   int32
	code  int32
	body  []byte
	done  bool
}

// armRewrite has the next sync go out as a request of type op on the same
// path, extra after the path.
func (w *wire) armRewrite(op int32, extra ...byte) {
	w.mu.Lock()
	w.rw = &rewrite{op: op, extra: extra}
	w.mu.Unlock()
}

// disarmRewrite ends what armRewrite began and returns the answer's body,
// and whether an answer without an error came (not: the request failed,
// or was never sent). An answer may have no body (addWatch's).
func (w *wire) disarmRewrite() ([]byte, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	rw := w.rw
	w.rw = nil
	if rw == nil || !rw.done || rw.code != 0 {
		return nil, false
	}
	return rw.body, true
}

// credentials are the session id and password of the last session the
// servers granted (0 and nil before the first).
func (w *wire) credentials() (int64, []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.session, w.passwd
}

// wireConn is one connection of a handle.
type wireConn struct {
	net.Conn
	w *wire

	wmu        sync.Mutex
	wbuf       []byte // outgoing bytes not yet a whole frame
	handshaken bool   // the connect request went out

	rbuf     []byte // what one read of the connection fills
	in       []byte // incoming bytes not yet framed
	out      []byte // whole frames to hand the library
	answered bool   // the connect answer came in
}

// Write forwards each whole frame, a create armed for create2 with its
// opcode changed, a sync armed for a rewrite as that request. It reports
// the whole of p written once the frames in it are.
func (c *wireConn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.wbuf = append(c.wbuf, p...)
	whole := 0
	var send []byte // the whole frames, as they go out
	for len(c.wbuf[whole:]) >= 4 {
		n := int(binary.BigEndian.Uint32(c.wbuf[whole:]))
		if len(c.wbuf[whole:]) < 4+n {
			break
		}
		frame := c.wbuf[whole+4 : whole+4+n : whole+4+n] // an append copies it
		if !c.handshaken {
			c.handshaken = true
		} else if len(frame) >= 8 {
			c.w.mu.Lock()
			frame = c.w.outgoing(frame)
			c.w.mu.Unlock()
		}
		send = binary.BigEndian.AppendUint32(send, uint32(len(frame)))
		send = append(send, frame...)
		whole += 4 + n
	}
	if whole == 0 {
		return len(p), nil
	}
	_, err := c.Conn.Write(send)
	c.wbuf = append(c.wbuf[:0], c.wbuf[whole:]...)
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// outgoing is a request frame (xid, opcode, body) as it goes out: the
// opcode changed where the wire is armed for it (a create to create2, a
// sync, whose body is its path as getEphemerals' and getAllChildrenNumber's
// are, to the rewrite's, with its extra after the path), and the library's
// setWatches rewritten (setWatchesOut). w.mu is held.
func (w *wire) outgoing(frame []byte) []byte {
	xid := int32(binary.BigEndian.Uint32(frame))
	switch int32(binary.BigEndian.Uint32(frame[4:])) {
	case int32(client.OpCreate):
		if w.armed && w.xid == 0 {
			w.xid = xid
			binary.BigEndian.PutUint32(frame[4:], uint32(client.OpCreate2))
		}
		return frame
	case int32(client.OpSync):
		if w.rw != nil && w.rw.xid == 0 {
			w.rw.xid = xid
			w.rw.path, _ = jstring(frame[8:])
			binary.BigEndian.PutUint32(frame[4:], uint32(w.rw.op))
			return append(frame, w.rw.extra...)
		}
	case int32(client.OpSetWatches):
		return w.setWatchesOut(frame)
	case int32(client.OpGetData), int32(client.OpExists), int32(client.OpGetChildren), opGetChildrenV1:
		// A watching read of a path whose watches RemoveWatches removed:
		// the library has a new one-shot watch there.
		if len(w.removed) > 0 && frame[len(frame)-1] == 1 {
			if p, ok := jstring(frame[8:]); ok {
				delete(w.removed, p)
			}
		}
	}
	return frame
}

// Read hands the library whole frames, after noting what the wire keeps
// of them.
func (c *wireConn) Read(p []byte) (int, error) {
	for len(c.out) == 0 {
		if c.rbuf == nil {
			c.rbuf = make([]byte, 64*1024)
		}
		n, err := c.Conn.Read(c.rbuf)
		c.in = append(c.in, c.rbuf[:n]...)
		for len(c.in) >= 4 {
			size := int(binary.BigEndian.Uint32(c.in))
			if len(c.in) < 4+size {
				break
			}
			c.out = c.note(c.out, c.in[:4+size])
			c.in = c.in[4+size:]
		}
		if len(c.out) == 0 && err != nil {
			return 0, err
		}
	}
	n := copy(p, c.out)
	c.out = c.out[n:]
	return n, nil
}

// note keeps what the wire wants of an incoming frame (its length, then
// the rest): the connect answer's session and password; a notification,
// told to OnNotification's fn; the Stat of the armed create2's answer; the
// body of a rewritten request's answer. It appends the frame to out for
// the library, a rewritten request's answer as the sync's.
func (c *wireConn) note(out, frame []byte) []byte {
	body := frame[4:]
	if !c.answered {
		c.answered = true
		if c.noteConnect(body) {
			c.setPersistentAgain()
		}
		return append(out, frame...)
	}
	if len(body) < 16 { // xid, zxid, err
		return append(out, frame...)
	}
	xid := int32(binary.BigEndian.Uint32(body))
	if xid == -1 {
		c.noteNotification(body[16:])
		return append(out, frame...)
	}
	if xid == setWatchesXid {
		return out // the answer to the wire's own setWatches2: not the library's
	}
	c.w.mu.Lock()
	defer c.w.mu.Unlock()
	code := int32(binary.BigEndian.Uint32(body[12:]))
	if rw := c.w.rw; rw != nil && xid == rw.xid {
		rw.code, rw.body, rw.done = code, append([]byte(nil), body[16:]...), true
		return append(out, syncAnswer(body[:16], code, rw.path)...)
	}
	if c.w.armed && xid == c.w.xid && code == 0 {
		// A create2's answer: the path, then the Stat.
		if p, ok := jstring(body[16:]); ok {
			c.w.stat = decodeStat(body[16+4+len(p):])
		}
	}
	return append(out, frame...)
}

// syncAnswer is the frame of a sync's answer: header (xid, zxid, error),
// then, without an error, the path.
func syncAnswer(header []byte, code int32, path string) []byte {
	n := len(header)
	if code == 0 {
		n += 4 + len(path)
	}
	f := binary.BigEndian.AppendUint32(nil, uint32(n))
	f = append(f, header...)
	if code == 0 {
		f = binary.BigEndian.AppendUint32(f, uint32(len(path)))
		f = append(f, path...)
	}
	return f
}

// noteConnect keeps the session and password of a connect answer
// (protocol version, timeout, session id, password); a timeout of 0 says
// the session asked for has expired. It reports whether the answer
// resumed the session the wire knew (a new session has no persistent
// watches: the wire forgets them).
func (c *wireConn) noteConnect(frame []byte) bool {
	if len(frame) < 20 || int32(binary.BigEndian.Uint32(frame[4:])) <= 0 {
		return false
	}
	id := int64(binary.BigEndian.Uint64(frame[8:]))
	pw, ok := jbuffer(frame[16:])
	if !ok {
		return false
	}
	c.w.mu.Lock()
	defer c.w.mu.Unlock()
	resumed := c.w.session == id
	if !resumed {
		c.w.persistent = nil
	}
	c.w.session, c.w.passwd = id, pw
	return resumed
}

// noteNotification tells OnNotification's fn of a notification's event
// (type, state, path).
func (c *wireConn) noteNotification(body []byte) {
	c.w.mu.Lock()
	fn, persistent := c.w.onNote, c.w.onPersistent
	c.w.mu.Unlock()
	ev, ok := notificationEvent(body)
	if !ok {
		return
	}
	if fn != nil {
		fn(ev)
	}
	if persistent != nil {
		persistent(ev)
	}
}

// jbuffer reads a jute buffer (a length, then as many bytes) from b.
func jbuffer(b []byte) ([]byte, bool) {
	if len(b) < 4 {
		return nil, false
	}
	n := int(int32(binary.BigEndian.Uint32(b)))
	if n < 0 || 4+n > len(b) {
		return nil, false
	}
	return append([]byte(nil), b[4:4+n]...), true
}

// jstring reads a jute string from b.
func jstring(b []byte) (string, bool) {
	buf, ok := jbuffer(b)
	return string(buf), ok
}

// jstrings reads a jute vector of strings (a count, -1 for null, then
// each string) from b.
func jstrings(b []byte) ([]string, bool) {
	if len(b) < 4 {
		return nil, false
	}
	n := int(int32(binary.BigEndian.Uint32(b)))
	out := []string{}
	b = b[4:]
	for i := 0; i < n; i++ {
		s, ok := jstring(b)
		if !ok {
			return nil, false
		}
		out = append(out, s)
		b = b[4+len(s):]
	}
	return out, true
}

// decodeStat reads a Stat as jute writes it (68 bytes), nil if b is too
// short.
func decodeStat(b []byte) *zk.Stat {
	if len(b) < 68 {
		return nil
	}
	u64 := func(i int) int64 { return int64(binary.BigEndian.Uint64(b[i:])) }
	u32 := func(i int) int32 { return int32(binary.BigEndian.Uint32(b[i:])) }
	return &zk.Stat{Czxid: u64(0), Mzxid: u64(8), Ctime: u64(16), Mtime: u64(24), Version: u32(32),
		Cversion: u32(36), Aversion: u32(40), EphemeralOwner: u64(44), DataLength: u32(52),
		NumChildren: u32(56), Pzxid: u64(60)}
}

// appendJStrings appends a jute vector of strings (a count, then each
// string's length and bytes) to b.
func appendJStrings(b []byte, list []string) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(list)))
	for _, p := range list {
		b = binary.BigEndian.AppendUint32(b, uint32(len(p)))
		b = append(b, p...)
	}
	return b
}
