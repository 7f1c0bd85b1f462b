package sim

import (
	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/jute"
	"github.com/zksim/zksim/trace"
)

// subOp is one operation of a multi or a multiRead, by its opcode on the
// wire.
type subOp struct {
	op      client.Op
	path    string
	data    []byte
	flags   int32
	acl     []zk.ACL
	version int32
	ttl     int64 // a createTTL's
}

// subResult is one op's outcome within a multi or a multiRead: op is the
// op the server made of it (see createOpOf).
type subResult struct {
	op       client.Op
	code     int32
	path     string
	stat     zk.Stat
	data     []byte   // a multiRead's getData's
	children []string // a multiRead's getChildren's
}

// multi applies ops all or nothing, as one transaction with one zxid and
// one time. A create becomes the create its flags make (createOpOf): a
// container's and a TTL node's results carry the new node's Stat; a create
// of a TTL mode by another opcode than createTTL, once reached, fails the
// whole multi as unreadable (MarshallingError, no results), as the 3.8.0
// server does, and so does a read (getData, getChildren), which the server
// cannot make a transaction of. Each op is checked against the tree as the
// earlier ops left it. If one fails, every op is undone, no watch fires,
// and the results say what ZooKeeper says of a failed multi: the ops
// before it 0 (ok), the failing op its error, the ops after it runtime
// inconsistency (-2).
func (t *Tree) multi(ops []subOp, owner int64, zxid int64, now Time) ([]subResult, int32) {
	t.inMulti, t.multiUndo = true, t.multiUndo[:0]
	defer func() { t.inMulti = false }()
	results := make([]subResult, len(ops))
	firedBefore, foreignBefore := len(t.fired), len(t.foreign)
	var undo []func()
	failed := -1
	for i, op := range ops {
		results[i].op = op.op
		restore := t.snapshot(op.path)
		var code int32
		switch op.op {
		case client.OpCreate, client.OpCreate2, client.OpCreateContainer, client.OpCreateTTL:
			var p string
			p, code = t.multiCreate(op, &results[i], owner, zxid, now)
			if code == trace.CodeOK {
				results[i].path = p
				// The parent was captured before; the node is new.
				restore.path, restore.node = p, nil
			}
		case client.OpDelete:
			code = t.delete(op.path, op.version, zxid)
		case client.OpSetData:
			results[i].stat, code = t.setData(op.path, op.data, op.version, zxid, now)
		case client.OpCheck:
			code = t.check(op.path, op.version)
		case client.OpGetData, jute.OpGetChildrenV1:
			code = trace.CodeMarshallingError
		default:
			code = trace.CodeBadArguments
		}
		if code != trace.CodeOK {
			failed = i
			results[i].code = code
			break
		}
		undo = append(undo, restore.apply)
	}
	if failed < 0 {
		return results, trace.CodeOK
	}
	for i := len(undo) - 1; i >= 0; i-- {
		undo[i]()
	}
	for i := len(t.multiUndo) - 1; i >= 0; i-- {
		t.multiUndo[i]() // the quotas' statistics, as they were
	}
	t.fired, t.foreign = t.fired[:firedBefore], t.foreign[:foreignBefore]
	if results[failed].code == trace.CodeMarshallingError {
		return nil, trace.CodeMarshallingError
	}
	for i := range results {
		results[i].path = ""
		results[i].stat = zk.Stat{}
		if i > failed {
			results[i].code = trace.CodeRuntimeInconsistency
		}
	}
	return results, results[failed].code
}

// multiCreate applies a multi's create as the create its flags make
// (createOpOf), setting res's op, and its Stat for a container or a TTL
// node, whose results carry it.
func (t *Tree) multiCreate(op subOp, res *subResult, owner, zxid int64, now Time) (string, int32) {
	made := createOpOf(op.op, op.flags)
	res.op = made
	switch made {
	case client.OpCreate:
		return t.create(op.path, op.data, op.flags, op.acl, owner, zxid, now)
	case client.OpCreateContainer, client.OpCreateTTL:
		ttl := int64(-1)
		if made == client.OpCreateTTL {
			ttl = op.ttl
		}
		p, code := t.createNode(made, createArgs{path: op.path, data: op.data, flags: op.flags, acl: op.acl, owner: owner, ttl: ttl},
			zxid, now, nil)
		if code == trace.CodeOK {
			res.stat = t.createdStat(p, op.data)
		}
		return p, code
	}
	return "", trace.CodeMarshallingError
}

// createOpOf is the create a multi's create op becomes on the server
// (ZooKeeper's Op.create, as the server reads a multi): its flags decide
// whatever its opcode, so that a create2 is a create and a
// createContainer without the container flag a plain create, but for a
// createTTL of a TTL mode, which stays a createTTL. The container flag
// makes a createContainer; a TTL mode by any other opcode a createTTL
// that carries no TTL, which the server fails to read (0 here: the whole
// multi fails, MarshallingError); any other flags a create (one outside
// the modes then fails as BadArguments).
func createOpOf(op client.Op, flags int32) client.Op {
	ttlMode := flags == zk.FlagTTL || flags == zk.FlagPersistentSequentialWithTTL
	switch {
	case ttlMode && op == client.OpCreateTTL:
		return client.OpCreateTTL
	case ttlMode:
		return 0
	case flags == zk.FlagContainer:
		return client.OpCreateContainer
	}
	return client.OpCreate
}

// nodeSnapshot holds what a write can change about a node and its parent, so
// that a failed multi can put them back exactly.
type nodeSnapshot struct {
	t                *Tree
	path, parentPath string
	node             *znode
	data             []byte
	stat             zk.Stat
	parent           *znode
	parentStat       zk.Stat
	parentCreates    int32
}

func (t *Tree) snapshot(path string) nodeSnapshot {
	s := nodeSnapshot{t: t, path: path, node: t.nodes[path]}
	if s.node != nil {
		s.data, s.stat = s.node.data, s.node.stat
	}
	s.parentPath, _ = parentOf(path)
	if s.parent = t.nodes[s.parentPath]; s.parent != nil {
		s.parentStat, s.parentCreates = s.parent.stat, s.parent.creates
	}
	return s
}

// apply puts the node and its parent back as they were when s was taken.
func (s nodeSnapshot) apply() {
	t := s.t
	_, name := parentOf(s.path)
	if cur := t.nodes[s.path]; cur != nil && cur != s.node {
		// created since: unlink it
		delete(t.nodes, s.path)
		if s.parent != nil {
			t.unlink(s.parent, cur, name)
		}
		t.untrack(cur)
	}
	if s.node != nil {
		s.node.data, s.node.stat = s.data, s.stat
		if t.nodes[s.path] == nil { // deleted since: link it again
			t.nodes[s.path] = s.node
			t.link(s.parent, s.node, name)
			t.track(s.node)
		}
	}
	if s.parent != nil {
		s.parent.stat, s.parent.creates = s.parentStat, s.parentCreates
	}
}
