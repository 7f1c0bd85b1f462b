package sim

import (
	"github.com/go-zookeeper/zk"
	"github.com/zksim/zksim/client"
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
const maxFrame = 1<<20 - 1

// clientBuffer is go-zookeeper/zk's send buffer, length prefix included.
const clientBuffer = 1536 * 1024

// frameSize is the size of req on the wire as jute writes it (an xid and
// an opcode, then the body; a string or a buffer is its length and its
// bytes, a null buffer its length alone, a bool one byte). Every request
// counts: a read's or a delete's path, an addAuth's credentials can be as
// long as a write's data. 0 for the connect request (small, and read
// before any limit) and setWatches (go-zookeeper/zk splits it into
// requests that fit).
func (r *request) frameSize() int {
	const header = 8
	switch r.op {
	case client.OpGetData, client.OpExists, client.OpGetChildren:
		return header + strSize(r.path) + 1 // path, watch
	case client.OpDelete, client.OpAddWatch, client.OpRemoveWatches:
		return header + strSize(r.path) + 4 // path, version (or mode, or watch type)
	case client.OpGetACL, client.OpSync, client.OpGetAllChildren, client.OpGetEphemerals:
		return header + strSize(r.path)
	case client.OpSetAuth:
		return header + 4 + strSize(r.path) + 4 + len(r.data) // type, scheme, credentials
	case client.OpPing, client.OpCloseSession:
		return header
	case client.OpCreate, client.OpCreate2, client.OpCreateContainer:
		return header + createSize(r.path, r.data, r.acl)
	case client.OpCreateTTL:
		return header + createSize(r.path, r.data, r.acl) + 8
	case client.OpSetData:
		return header + strSize(r.path) + len(r.data) + 4 + 4
	case client.OpSetACL:
		return header + strSize(r.path) + aclSize(r.acl) + 4
	case client.OpMulti:
		n := header
		for _, op := range r.ops {
			n += 9 // the op's header: type, done, error
			switch op.op {
			case client.OpCreate:
				n += createSize(op.path, op.data, op.acl)
			case client.OpSetData:
				n += strSize(op.path) + len(op.data) + 4 + 4
			default: // delete, check: a path and a version
				n += strSize(op.path) + 4
			}
		}
		return n + 9 // the closing header
	}
	return 0
}

func strSize(s string) int { return 4 + len(s) }

// createSize is a create's body: path, data, ACL, flags.
func createSize(path string, data []byte, acl []zk.ACL) int {
	return strSize(path) + 4 + len(data) + aclSize(acl) + 4
}

// aclSize is an ACL vector: its count, then each entry's perms, scheme
// and id.
func aclSize(acl []zk.ACL) int {
	n := 4
	for _, a := range acl {
		n += 4 + strSize(a.Scheme) + strSize(a.ID)
	}
	return n
}
