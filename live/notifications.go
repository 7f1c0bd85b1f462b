package live

import (
	"encoding/binary"

	"github.com/go-zookeeper/zk"
)

// Notification is a watch notification as a client received it: what
// happened, to which node, and from which server (its address). ZooKeeper
// 3.8 sends it without the zxid of the transaction that fired it (-1 in
// its header), so it names no transaction.
type Notification struct {
	Type zk.EventType
	Path string
	Addr string
}

// OnNotification has fn told of every watch notification the client
// receives through this injector's dialer (those a fault loses are not
// received), on the connection's reading goroutine: fn must not block.
func (f *ClientFaults) OnNotification(fn func(Notification)) {
	f.mu.Lock()
	f.onNote = fn
	f.mu.Unlock()
}

// noteNotification tells OnNotification's fn of frame, a notification
// (its length, then the reply header: xid, zxid, err; then the event:
// type, state, path).
func (c *faultConn) noteNotification(frame []byte) {
	c.f.mu.Lock()
	fn := c.f.onNote
	c.f.mu.Unlock()
	if fn == nil || len(frame) < 20 {
		return
	}
	if ev, ok := notificationEvent(frame[20:]); ok {
		fn(Notification{Type: ev.Type, Path: ev.Path, Addr: c.RemoteAddr().String()})
	}
}

// notificationEvent reads the event of a notification's body (after the
// reply header): type, state, path.
func notificationEvent(body []byte) (zk.Event, bool) {
	if len(body) < 8 {
		return zk.Event{}, false
	}
	path, ok := jstring(body[8:])
	return zk.Event{Type: zk.EventType(int32(binary.BigEndian.Uint32(body))),
		State: zk.State(int32(binary.BigEndian.Uint32(body[4:]))), Path: path}, ok
}

// Request is a request as a client sent it: its type in ZooKeeper's words
// (create, getChildren, ...), the node it names ("" for a multi), and the
// server it was sent to, as dialled.
type Request struct {
	Op   string
	Path string
	Addr string
}

// OnRequest has fn told of every request the client sends through this
// injector's dialer, on the sending goroutine: fn must not block.
func (f *ClientFaults) OnRequest(fn func(Request)) {
	f.mu.Lock()
	f.onRequest = fn
	f.mu.Unlock()
}

// noteRequest tells OnRequest's fn of a request frame of type op (the
// frame without its length: xid, type, then, for every type but multi,
// the path) sent to addr.
func (f *ClientFaults) noteRequest(op int32, frame []byte, addr string) {
	f.mu.Lock()
	fn := f.onRequest
	f.mu.Unlock()
	name := opNames[op]
	if fn == nil || name == "" {
		return
	}
	r := Request{Op: name, Addr: addr}
	if op != opCodes["multi"] && len(frame) >= 8 {
		r.Path, _ = jstring(frame[8:])
	}
	fn(r)
}

// opNames are opCodes' names, by number.
var opNames = func() map[int32]string {
	m := map[int32]string{}
	for name, op := range opCodes {
		m[op] = name
	}
	return m
}()
