package live

import (
	"github.com/go-zookeeper/zk"
	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/jute"
)

// Notification is a watch notification as a client received it: what
// happened, to which node, and from which server (its address). ZooKeeper
// 3.8 sends it without the zxid of the transaction that fired it (-1 in
// its header), so it names no transaction.
type Notification struct {
	Type zk.EventType
	Path string
	Addr string
	// Rewatched says it came in answer to the watches the client set
	// again on reconnecting (setWatches, between that request and its
	// reply): it tells of a change made while the client was away, which
	// may be one it was told of already on the connection that dropped
	// (a notification held back with that connection is sent again).
	Rewatched bool
}

// OnNotification has fn told of every watch notification the client
// receives through this injector's dialer, as the library reads it (those
// a fault loses, or holds back with a link that drops, are not received),
// on the connection's reading goroutine: fn must not block.
func (f *ClientFaults) OnNotification(fn func(Notification)) {
	f.mu.Lock()
	f.onNote = fn
	f.mu.Unlock()
}

// heldNote is a notification framed and not yet handed to the client:
// end is where its frame ends in faultConn.out.
type heldNote struct {
	end int
	n   Notification
}

// holdNote notes frame, a notification just put at the end of c.out (its
// length, then the notification), to be told of once handed over: one
// held back with a link cut off and lost with its connection never
// reached the client (the server tells it again on reconnecting,
// Rewatched).
func (c *faultConn) holdNote(frame []byte) {
	if len(frame) < 4 {
		return
	}
	if ev, ok := notificationEvent(frame[4:]); ok {
		c.notes = append(c.notes, heldNote{end: len(c.out), n: Notification{Type: ev.Type, Path: ev.Path,
			Addr: c.RemoteAddr().String(), Rewatched: c.rewatch.Load() != 0}})
	}
}

// handOver tells OnNotification's fn of the notifications whose last
// byte is among the n the reader just took from the front of c.out.
func (c *faultConn) handOver(n int) {
	k := 0
	for k < len(c.notes) && c.notes[k].end <= n {
		k++
	}
	told := c.notes[:k]
	c.notes = c.notes[k:]
	for i := range c.notes {
		c.notes[i].end -= n
	}
	if len(told) == 0 {
		return
	}
	c.f.mu.Lock()
	fn := c.f.onNote
	c.f.mu.Unlock()
	if fn == nil {
		return
	}
	for _, h := range told {
		fn(h.n)
	}
}

// noteRewatch notes, as a request goes out, a setWatches (its xid, with
// the high bit set so that 0 means none; see Notification.Rewatched).
func (c *faultConn) noteRewatch(xid, op int32) {
	if op == int32(client.OpSetWatches) { // a client reconnecting sets its watches again, with an ordinary xid
		c.rewatch.Store(int64(xid) | 1<<62)
	}
}

// replied notes a reply's xid coming in: the reply to the setWatches
// ends the notifications it brings.
func (c *faultConn) replied(xid int32) {
	if w := c.rewatch.Load(); w != 0 && int32(w) == xid {
		c.rewatch.Store(0)
	}
}

// notificationEvent reads the event of a notification frame (without
// its length): type, state, path.
func notificationEvent(frame []byte) (zk.Event, bool) {
	_, body, err := jute.DecodeReply(frame, jute.OpNotification)
	ev, ok := body.(*jute.WatcherEvent)
	if err != nil || !ok {
		return zk.Event{}, false
	}
	return zk.Event{Type: ev.Type, State: ev.State, Path: ev.Path}, true
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
// frame without its length) sent to addr, with the path it names (none
// for a multi).
func (f *ClientFaults) noteRequest(op int32, frame []byte, addr string) {
	f.mu.Lock()
	fn := f.onRequest
	f.mu.Unlock()
	if fn == nil || !libraryOp(client.Op(op)) {
		return
	}
	r := Request{Op: client.Op(op).String(), Addr: addr}
	if _, body, err := jute.DecodeRequest(frame); err == nil {
		r.Path = jute.PathOf(body)
	}
	fn(r)
}
