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
	if fn == nil || len(frame) < 32 {
		return
	}
	typ := int32(binary.BigEndian.Uint32(frame[20:]))
	n := int(int32(binary.BigEndian.Uint32(frame[28:])))
	if n < 0 || 32+n > len(frame) {
		return
	}
	fn(Notification{Type: zk.EventType(typ), Path: string(frame[32 : 32+n]), Addr: c.RemoteAddr().String()})
}
