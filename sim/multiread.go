package sim

import (
	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/jute"
	"github.com/zksim/zksim/trace"
)

// A multiRead (jute.OpMultiRead) is the reads of a getData and a
// getChildren (the first, without the Stat) put together: the session's
// server answers each from its own tree in the session's order, as it
// answers a read, and each op on its own: its result, or its error
// (NoNode, NoAuth) where it failed, the others going on. The server drops
// each op's watch flag as it reads the request: a multiRead sets no
// watch. An op that is no read makes the server fail the whole request
// (MarshallingError, no result). The front end refuses one that mixes
// reads and writes, which the server cannot read at all.

// multiRead answers a multiRead's ops for a connection with ids.
func (t *Tree) multiRead(ops []subOp, ids []authID) ([]subResult, int32) {
	results := make([]subResult, len(ops))
	for i, op := range ops {
		r := &results[i]
		r.op = op.op
		switch op.op {
		case client.OpGetData:
			r.data, r.stat, r.code = t.getData(readKey(op.path), ids)
		case jute.OpGetChildrenV1:
			r.children, _, r.code = t.getChildren(readKey(op.path), ids)
		default:
			return nil, trace.CodeMarshallingError
		}
	}
	return results, trace.CodeOK
}

// getData is a node's data and Stat for a read by a connection with ids:
// NoNode, then NoAuth unless the node's ACL grants READ.
func (t *Tree) getData(path string, ids []authID) ([]byte, zk.Stat, int32) {
	if _, code := t.readable(path, zk.PermRead, ids); code != trace.CodeOK {
		return nil, zk.Stat{}, code
	}
	return t.get(path)
}

// getChildren is a node's children (see children) and Stat for a read by
// a connection with ids: NoNode, then NoAuth unless its ACL grants READ.
func (t *Tree) getChildren(path string, ids []authID) ([]string, zk.Stat, int32) {
	if _, code := t.readable(path, zk.PermRead, ids); code != trace.CodeOK {
		return nil, zk.Stat{}, code
	}
	return t.children(path)
}
