package sim

import (
	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/jute"
)

// A request's size on the wire, for the limits both ends put on it. The
// server reads at most jute.maxbuffer bytes of a request: a longer one
// makes it close the connection before reading it (the session lives on,
// the request is not applied), so a client that sends it again after the
// connection loss never gets through. go-zookeeper/zk encodes a request
// into a buffer of its own, and fails a request that does not fit with
// zk.ErrShortBuffer, sending nothing.

// maxFrame is the server's jute.maxbuffer (its default, 0xfffff): the most
// a request may take, its header included, its length prefix not.
const maxFrame = jute.MaxBuffer

// clientBuffer is go-zookeeper/zk's send buffer, length prefix included.
const clientBuffer = 1536 * 1024

// frameSize is the size of req on the wire as jute writes it (its header,
// then its body as the record go-zookeeper/zk sends for it), counted by
// jute without writing it. Every request counts: a read's or a delete's
// path, an addAuth's credentials can be as long as a write's data. 0 for
// the connect request (small, and read before any limit) and setWatches
// (go-zookeeper/zk splits it into requests that fit).
func (r *request) frameSize() int {
	switch r.op {
	case client.OpGetData:
		return jute.RequestSize(&jute.GetDataRequest{Path: r.path, Watch: r.watch})
	case client.OpExists:
		return jute.RequestSize(&jute.ExistsRequest{Path: r.path, Watch: r.watch})
	case client.OpGetChildren:
		return jute.RequestSize(&jute.GetChildren2Request{Path: r.path, Watch: r.watch})
	case client.OpDelete:
		return jute.RequestSize(&jute.DeleteRequest{Path: r.path, Version: r.version})
	case client.OpAddWatch:
		return jute.RequestSize(&jute.AddWatchRequest{Path: r.path})
	case client.OpRemoveWatches:
		return jute.RequestSize(&jute.RemoveWatchesRequest{Path: r.path})
	case jute.OpCheckWatches:
		return jute.RequestSize(&jute.CheckWatchesRequest{Path: r.path})
	case client.OpGetACL, client.OpSync, client.OpGetAllChildren, client.OpGetEphemerals:
		return jute.RequestSize(&jute.SyncRequest{Path: r.path}) // the path alone, as the others'
	case client.OpSetAuth:
		return jute.RequestSize(&jute.AuthPacket{Scheme: r.path, Auth: r.data})
	case client.OpPing, client.OpCloseSession, jute.OpWhoAmI:
		return jute.Size(&jute.RequestHeader{}) // the header alone
	case client.OpCreate, client.OpCreate2, client.OpCreateContainer:
		return jute.RequestSize(&jute.CreateRequest{Path: r.path, Data: r.data, ACL: r.acl, Flags: r.flags})
	case client.OpCreateTTL:
		return jute.RequestSize(&jute.CreateTTLRequest{Path: r.path, Data: r.data, ACL: r.acl, Flags: r.flags})
	case client.OpSetData:
		return jute.RequestSize(&jute.SetDataRequest{Path: r.path, Data: r.data, Version: r.version})
	case client.OpSetACL:
		return jute.RequestSize(&jute.SetACLRequest{Path: r.path, ACL: r.acl, Version: r.version})
	case client.OpMulti, jute.OpMultiRead:
		return jute.RequestSize(&jute.MultiRequest{Ops: multiOps(r.ops)})
	}
	return 0
}

// multiOps are a multi's or a multiRead's ops as a client sends them.
func multiOps(ops []subOp) []jute.MultiOp {
	out := make([]jute.MultiOp, len(ops))
	for i, op := range ops {
		out[i].Type = op.op
		switch op.op {
		case client.OpCreate, client.OpCreate2, client.OpCreateContainer:
			out[i].Request = &jute.CreateRequest{Path: op.path, Data: op.data, ACL: op.acl, Flags: op.flags}
		case client.OpCreateTTL:
			out[i].Request = &jute.CreateTTLRequest{Path: op.path, Data: op.data, ACL: op.acl, Flags: op.flags, TTL: op.ttl}
		case client.OpGetData:
			out[i].Request = &jute.GetDataRequest{Path: op.path}
		case jute.OpGetChildrenV1:
			out[i].Request = &jute.GetChildrenRequest{Path: op.path}
		case client.OpSetData:
			out[i].Request = &jute.SetDataRequest{Path: op.path, Data: op.data, Version: op.version}
		case client.OpCheck:
			out[i].Request = &jute.CheckVersionRequest{Path: op.path, Version: op.version}
		default: // delete
			out[i].Request = &jute.DeleteRequest{Path: op.path, Version: op.version}
		}
	}
	return out
}
