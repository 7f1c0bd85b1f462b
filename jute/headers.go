package jute

import (
	"fmt"

	"github.com/go-zookeeper/zk"
	"github.com/zksim/zksim/client"
)

// RequestHeader begins every request after the connect: the client's xid
// for it (its own numbering; XidPing, XidAuth, XidSetWatches for those)
// and its type.
type RequestHeader struct {
	Xid  int32
	Type client.Op
}

func (h *RequestHeader) encode(e *encoder) {
	e.int(h.Xid)
	e.int(int32(h.Type))
}

// decode reads the header. An opcode beyond client.Op's range is no
// request ZooKeeper knows: it reads as OpNotification (0, which is no
// request either), and fails with ErrUnknownOp.
func (h *RequestHeader) decode(d *decoder) {
	h.Xid = d.int()
	t := d.int()
	if t != int32(client.Op(t)) {
		d.fail(ErrUnknownOp, fmt.Sprintf("opcode %d", t))
		t = int32(OpNotification)
	}
	h.Type = client.Op(t)
}

// ReplyHeader begins every reply after the connect's, and every
// notification: the request's xid (or XidNotification, XidPing, ...), the
// zxid the server had reached when it answered (-1 in a notification),
// and the error code (CodeOK for none).
type ReplyHeader struct {
	Xid  int32
	Zxid int64
	Err  zk.ErrCode
}

func (h *ReplyHeader) encode(e *encoder) {
	e.int(h.Xid)
	e.long(h.Zxid)
	e.int(int32(h.Err))
}

func (h *ReplyHeader) decode(d *decoder) {
	h.Xid, h.Zxid, h.Err = d.int(), d.long(), zk.ErrCode(d.int())
}
