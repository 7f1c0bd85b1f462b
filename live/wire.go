package live

import (
	"net"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/jute"
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

// rewrite is a request sent in place of a sync: its opcode, its body
// for the sync's path, the xid it went out with (0: not yet), and its
// answer's error code and body.
type rewrite struct {
	op   client.Op
	body func(path string) jute.Record
	path string // the sync's, and the request's
	xid  int32
	code zk.ErrCode
	resp jute.Record
	done bool
}

// armRewrite has the next sync go out as a request of type op, whose body
// body makes of the sync's path.
func (w *wire) armRewrite(op client.Op, body func(path string) jute.Record) {
	w.mu.Lock()
	w.rw = &rewrite{op: op, body: body}
	w.mu.Unlock()
}

// disarmRewrite ends what armRewrite began and returns the answer's body,
// and whether an answer without an error came (not: the request failed,
// or was never sent). An answer may have no body (removeWatches').
func (w *wire) disarmRewrite() (jute.Record, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	rw := w.rw
	w.rw = nil
	if rw == nil || !rw.done || rw.code != jute.CodeOK {
		return nil, false
	}
	return rw.resp, true
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
	var send []byte // the whole frames, as they go out
	rest := c.wbuf
	for {
		frame, after, ok := jute.CutFrame(rest)
		if !ok {
			break
		}
		if !c.handshaken {
			c.handshaken = true
		} else {
			c.w.mu.Lock()
			frame = c.w.outgoing(frame)
			c.w.mu.Unlock()
		}
		send = jute.AppendFrame(send, frame)
		rest = after
	}
	whole := len(c.wbuf) - len(rest)
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

// outgoing is a request frame (xid, opcode, body) as it goes out: a
// create armed for create2 with its opcode changed (the body is the
// same), a sync armed for a rewrite sent as the rewrite's request on its
// path, and the library's setWatches rewritten (setWatchesOut). A frame
// that does not decode goes out as it is. w.mu is held.
func (w *wire) outgoing(frame []byte) []byte {
	h, body, err := jute.DecodeRequest(frame)
	if err != nil {
		return frame
	}
	switch h.Type {
	case client.OpCreate:
		if w.armed && w.xid == 0 {
			w.xid = h.Xid
			return jute.AppendRequest(nil, jute.RequestHeader{Xid: h.Xid, Type: client.OpCreate2}, body)
		}
	case client.OpSync:
		if w.rw != nil && w.rw.xid == 0 {
			w.rw.xid, w.rw.path = h.Xid, jute.PathOf(body)
			return jute.AppendRequest(nil, jute.RequestHeader{Xid: h.Xid, Type: w.rw.op}, w.rw.body(w.rw.path))
		}
	case client.OpSetWatches:
		return w.setWatchesOut(h, body.(*jute.SetWatches), frame)
	default:
		// A watching read of a path whose watches RemoveWatches removed:
		// the library has a new one-shot watch there.
		if len(w.removed) > 0 && watching(body) {
			delete(w.removed, jute.PathOf(body))
		}
	}
	return frame
}

// watching reports whether a request is a read that leaves a watch.
func watching(body jute.Record) bool {
	switch r := body.(type) {
	case *jute.GetDataRequest:
		return r.Watch
	case *jute.ExistsRequest:
		return r.Watch
	case *jute.GetChildren2Request:
		return r.Watch
	case *jute.GetChildrenRequest:
		return r.Watch
	}
	return false
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
		for {
			frame, rest, ok := jute.CutFrame(c.in)
			if !ok {
				break
			}
			c.out = c.note(c.out, frame)
			c.in = rest
		}
		if len(c.out) == 0 && err != nil {
			return 0, err
		}
	}
	n := copy(p, c.out)
	c.out = c.out[n:]
	return n, nil
}

// note keeps what the wire wants of an incoming frame (without its
// length): the connect answer's session and password; a notification,
// told to OnNotification's fn; the Stat of the armed create2's answer; the
// body of a rewritten request's answer. It appends the frame to out for
// the library (after its length), a rewritten request's answer as the
// sync's, and the answer to the wire's own setWatches2 not at all.
func (c *wireConn) note(out, frame []byte) []byte {
	if !c.answered {
		c.answered = true
		if c.noteConnect(frame) {
			c.setPersistentAgain()
		}
		return jute.AppendFrame(out, frame)
	}
	var h jute.ReplyHeader
	if jute.Decode(frame, &h) != nil {
		return jute.AppendFrame(out, frame)
	}
	switch h.Xid {
	case jute.XidNotification:
		c.noteNotification(frame)
		return jute.AppendFrame(out, frame)
	case jute.XidSetWatches:
		return out // the answer to the wire's own setWatches2: not the library's
	}
	c.w.mu.Lock()
	defer c.w.mu.Unlock()
	if rw := c.w.rw; rw != nil && h.Xid == rw.xid {
		_, rw.resp, _ = jute.DecodeReply(frame, rw.op)
		rw.code, rw.done = h.Err, true
		return jute.AppendFrame(out, syncAnswer(h, rw.path))
	}
	if c.w.armed && h.Xid == c.w.xid && h.Err == jute.CodeOK {
		if _, r, err := jute.DecodeReply(frame, client.OpCreate2); err == nil {
			st := r.(*jute.Create2Response).Stat
			c.w.stat = &st
		}
	}
	return jute.AppendFrame(out, frame)
}

// syncAnswer is the frame of a sync's answer with header h: without an
// error, the path.
func syncAnswer(h jute.ReplyHeader, path string) []byte {
	if h.Err != jute.CodeOK {
		return jute.AppendReply(nil, h, nil)
	}
	return jute.AppendReply(nil, h, &jute.SyncResponse{Path: path})
}

// noteConnect keeps the session and password of a connect answer; a
// timeout of 0 says the session asked for has expired. It reports whether
// the answer resumed the session the wire knew (a new session has no
// persistent watches: the wire forgets them).
func (c *wireConn) noteConnect(frame []byte) bool {
	r, err := jute.DecodeConnectResponse(frame)
	if err != nil || r.TimeOut <= 0 {
		return false
	}
	c.w.mu.Lock()
	defer c.w.mu.Unlock()
	resumed := c.w.session == r.SessionID
	if !resumed {
		c.w.persistent = nil
	}
	c.w.session, c.w.passwd = r.SessionID, r.Passwd
	return resumed
}

// noteNotification tells OnNotification's fn of a notification's event
// (type, state, path).
func (c *wireConn) noteNotification(frame []byte) {
	c.w.mu.Lock()
	fn, persistent := c.w.onNote, c.w.onPersistent
	c.w.mu.Unlock()
	ev, ok := notificationEvent(frame)
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
