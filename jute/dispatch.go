package jute

import (
	"fmt"

	"github.com/zksim/zksim/client"
)

// A request frame is a RequestHeader, then the body its type calls for;
// a reply frame a ReplyHeader, then the body the request's type calls
// for. Neither says its body's type: a server reads the request's by its
// header, a client the reply's by the request it sent with that xid.

// DecodeRequest reads a request frame (after the connect): its header,
// then its body by the header's type. The body is nil for the types that
// have none (ping, closeSession, whoAmI). The header is returned whenever
// it was read, so that a request whose body is malformed can be answered
// by its xid: the error is then ErrTruncated or ErrBadLength (ZooKeeper
// answers CodeMarshallingError), or ErrUnknownOp for a type it does not
// know (CodeUnimplemented). A frame too short for the header is an error
// with a zero header (ZooKeeper closes the connection). Bytes after the
// body are ignored, as the server ignores them.
func DecodeRequest(frame []byte) (RequestHeader, Record, error) {
	d := decoder{b: frame}
	var h RequestHeader
	h.decode(&d)
	if d.err != nil {
		return RequestHeader{}, nil, d.err
	}
	body, known := requestBody(h.Type)
	if !known {
		return h, nil, fmt.Errorf("%w: request type %s", ErrUnknownOp, OpName(h.Type))
	}
	if body != nil {
		body.decode(&d)
		if d.err != nil {
			return h, nil, d.err
		}
	}
	return h, body, nil
}

// KnownRequest reports whether ZooKeeper 3.8 knows requests of type op
// (one it does not is answered Unimplemented and its connection closed).
func KnownRequest(op client.Op) bool {
	_, known := requestBody(op)
	return known
}

// requestBody is a new body for a request of type op (nil for the types
// without one), and whether ZooKeeper 3.8 knows the type.
func requestBody(op client.Op) (Record, bool) {
	if r := multiOpRequest(op); r != nil {
		return r, true
	}
	switch op {
	case client.OpDeleteContainer:
		return new(DeleteRequest), true
	case client.OpExists:
		return new(ExistsRequest), true
	case client.OpGetACL:
		return new(GetACLRequest), true
	case client.OpSetACL:
		return new(SetACLRequest), true
	case client.OpSync:
		return new(SyncRequest), true
	case client.OpGetChildren:
		return new(GetChildren2Request), true
	case client.OpMulti, OpMultiRead:
		return new(MultiRequest), true
	case OpReconfig:
		return new(ReconfigRequest), true
	case OpCheckWatches:
		return new(CheckWatchesRequest), true
	case client.OpRemoveWatches:
		return new(RemoveWatchesRequest), true
	case client.OpSetAuth:
		return new(AuthPacket), true
	case client.OpSetWatches:
		return new(SetWatches), true
	case OpSetWatches2:
		return new(SetWatches2), true
	case OpSASL:
		return new(SASLRequest), true
	case client.OpGetEphemerals:
		return new(GetEphemeralsRequest), true
	case client.OpGetAllChildren:
		return new(GetAllChildrenNumberRequest), true
	case client.OpAddWatch:
		return new(AddWatchRequest), true
	case client.OpPing, client.OpCloseSession, OpWhoAmI:
		return nil, true
	}
	return nil, false
}

// DecodeReply reads a reply frame to a request of type op: its header,
// then, if bytes follow it, the body op's answer has (an answer with an
// error has none, but for a multi's). A notification (xid
// XidNotification) reads as a *WatcherEvent whatever op is; the answers
// to a ping (XidPing) and to the Java client's addAuth and setWatches
// (XidAuth, XidSetWatches) have no body. The body is nil when none came.
func DecodeReply(frame []byte, op client.Op) (ReplyHeader, Record, error) {
	d := decoder{b: frame}
	var h ReplyHeader
	h.decode(&d)
	if d.err != nil {
		return ReplyHeader{}, nil, d.err
	}
	switch h.Xid {
	case XidNotification:
		op = OpNotification
	case XidPing:
		op = client.OpPing
	case XidAuth:
		op = client.OpSetAuth
	case XidSetWatches:
		op = client.OpSetWatches
	}
	if len(d.b) == 0 {
		return h, nil, nil
	}
	body, known := replyBody(op)
	if !known {
		return h, nil, fmt.Errorf("%w: a reply to a request of type %s", ErrUnknownOp, OpName(op))
	}
	if body == nil {
		return h, nil, nil // bytes where none are due: ignored, as the clients do
	}
	body.decode(&d)
	if d.err != nil {
		return h, nil, d.err
	}
	return h, body, nil
}

// replyBody is a new body for the answer to a request of type op (nil for
// the types whose answer has none), and whether op is a type ZooKeeper
// 3.8 answers.
func replyBody(op client.Op) (Record, bool) {
	switch op {
	case client.OpCreate:
		return new(CreateResponse), true
	case client.OpCreate2, client.OpCreateTTL, client.OpCreateContainer:
		return new(Create2Response), true
	case client.OpExists:
		return new(ExistsResponse), true
	case client.OpGetData, OpReconfig:
		return new(GetDataResponse), true
	case client.OpSetData, client.OpCheck:
		return new(SetDataResponse), true
	case client.OpGetACL:
		return new(GetACLResponse), true
	case client.OpSetACL:
		return new(SetACLResponse), true
	case OpGetChildrenV1:
		return new(GetChildrenResponse), true
	case client.OpGetChildren:
		return new(GetChildren2Response), true
	case client.OpGetAllChildren:
		return new(GetAllChildrenNumberResponse), true
	case client.OpGetEphemerals:
		return new(GetEphemeralsResponse), true
	case client.OpSync:
		return new(SyncResponse), true
	case client.OpMulti, OpMultiRead:
		return new(MultiResponse), true
	case client.OpAddWatch:
		return new(ErrorResponse), true
	case OpWhoAmI:
		return new(WhoAmIResponse), true
	case OpSASL:
		return new(SASLResponse), true
	case OpNotification:
		return new(WatcherEvent), true
	case client.OpDelete, client.OpDeleteContainer, client.OpPing, client.OpCloseSession, client.OpSetAuth,
		client.OpSetWatches, OpSetWatches2, OpCheckWatches, client.OpRemoveWatches:
		return nil, true
	}
	return nil, false
}

// AppendRequest appends a request frame's bytes (without its length) to
// b: the header, then body (nil for none).
func AppendRequest(b []byte, h RequestHeader, body Record) []byte {
	e := encoder{b: b}
	h.encode(&e)
	if body != nil {
		body.encode(&e)
	}
	return e.b
}

// RequestSize is the size of a request frame, its length prefix left
// out: what jute.maxbuffer limits.
func RequestSize(body Record) int {
	if body == nil {
		return 8 // xid, type
	}
	e := encoder{sizing: true, n: 8}
	body.encode(&e)
	return e.n
}

// AppendReply appends a reply frame's bytes (without its length) to b:
// the header, then body (nil for none).
func AppendReply(b []byte, h ReplyHeader, body Record) []byte {
	e := encoder{b: b}
	h.encode(&e)
	if body != nil {
		body.encode(&e)
	}
	return e.b
}
