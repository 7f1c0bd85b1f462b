package sim

import (
	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/jute"
)

// Call is a request an outside client sent, as the front end decoded it
// from its frame, in the simulator's vocabulary: the fields its opcode
// uses are set, the others left zero.
type Call struct {
	Xid     int32
	Op      client.Op
	Path    string // a node's path; AddAuth's scheme
	Data    []byte // a write's data; AddAuth's credentials
	ACL     []zk.ACL
	Flags   int32 // create's flags; addWatch's mode; removeWatches' and checkWatches' watcher type
	Version int32
	Watch   bool
	TTL     int64     // createTTL's, in milliseconds
	Ops     []SubCall // a multi's or a multiRead's

	// The connect request's (Op client.OpCreateSession): the session to
	// resume (0: a new one), the timeout asked for, the last zxid the
	// client saw.
	SessionID int64
	TimeoutMs int32
	LastZxid  int64

	// setWatches' (Op client.OpSetWatches): the last zxid the client saw
	// and the paths of its watches, by kind.
	RelZxid                             int64
	DataWatches, ExistWatches           []string
	ChildWatches                        []string
	PersistentWatches, RecursiveWatches []string

	// Refuse, when not 0, is the code the server answers the request
	// with, in its turn among the session's requests, doing nothing
	// else: the front end's answer to a request the world does not
	// model (reconfig, an unknown type), as ZooKeeper answers it.
	Refuse int32
}

// SubCall is one operation of a multi (a create of any of the four
// opcodes, a delete, a setData or a version check) or of a multiRead (a
// getData or a first getChildren, jute.OpGetChildrenV1), by its opcode on
// the wire.
type SubCall struct {
	Op      client.Op
	Path    string
	Data    []byte
	Flags   int32
	ACL     []zk.ACL
	Version int32
	TTL     int64 // a createTTL's, in milliseconds
}

// request is the call as the servers take it.
func (c *Call) request() *request {
	r := &request{xid: c.Xid, op: c.Op, path: c.Path, data: c.Data, acl: c.ACL,
		flags: c.Flags, version: c.Version, watch: c.Watch}
	switch {
	case c.Refuse != 0:
		r.requestExtra = &requestExtra{refuse: c.Refuse}
		return r
	}
	switch c.Op {
	case client.OpCreateSession:
		r.requestExtra = &requestExtra{sessionID: c.SessionID, timeoutMs: c.TimeoutMs, lastZxid: c.LastZxid}
	case client.OpSetWatches:
		r.requestExtra = &requestExtra{relZxid: c.RelZxid, dataW: c.DataWatches, existW: c.ExistWatches,
			childW: c.ChildWatches, persistW: c.PersistentWatches, recursiveW: c.RecursiveWatches}
	case client.OpCreateTTL:
		r.requestExtra = &requestExtra{ttl: c.TTL}
	case client.OpMulti, jute.OpMultiRead:
		ops := make([]subOp, len(c.Ops))
		for i, o := range c.Ops {
			ops[i] = subOp{op: o.Op, path: o.Path, data: o.Data, flags: o.Flags, acl: o.ACL, version: o.Version, ttl: o.TTL}
		}
		r.requestExtra = &requestExtra{ops: ops}
	}
	return r
}

// Answer is what reached an outside client's end of a connection, for the
// front end to encode: a request's reply (Xid its request's), a watch
// notification (Xid -1; Type and Path), a ping's answer (Xid -2), a
// connect answer (Op client.OpCreateSession; SessionID 0 when the session
// is gone), or the server closing the connection (EOF).
type Answer struct {
	EOF  bool
	Xid  int32
	Op   client.Op
	Code int32 // ZooKeeper's error code (0: ok)
	Zxid int64

	Path     string // a create's path, a sync's; a notification's node
	Data     []byte
	Stat     zk.Stat
	Children []string // getChildren's; getEphemerals' paths
	ACL      []zk.ACL
	Count    int32        // getAllChildrenNumber's
	Multi    []SubAnswer  // a multi's or a multiRead's, one per op
	Who      []Identity   // whoAmI's
	Type     zk.EventType // a notification's

	SessionID int64
	TimeoutMs int32
}

// SubAnswer is one operation's outcome within a multi's or a multiRead's
// answer: Op is the op the server made of it (a create's by its flags:
// client.OpCreate, client.OpCreateContainer or client.OpCreateTTL, the last
// two with the new node's Stat), Code its error.
type SubAnswer struct {
	Op       client.Op
	Code     int32
	Path     string
	Stat     zk.Stat
	Data     []byte   // a multiRead's getData's
	Children []string // a multiRead's getChildren's
}

// Identity is one of the ids a connection is authenticated as, as whoAmI
// tells it: its scheme and its user (a digest's name, an ip's address).
type Identity struct {
	Scheme, User string
}

// answerOf is rep as the front end is told of it.
func answerOf(rep *reply) *Answer {
	if rep.eof {
		return &Answer{EOF: true}
	}
	a := &Answer{Xid: rep.xid, Op: rep.op, Code: rep.code, Zxid: rep.zxid, Path: rep.path, Data: rep.data,
		Stat: rep.stat, Children: rep.children, ACL: rep.acl, Count: rep.count,
		SessionID: rep.sessionID, TimeoutMs: rep.timeoutMs}
	if rep.xid == -1 {
		a.Code, a.Type = 0, zk.EventType(rep.code)
	}
	if rep.op == jute.OpWhoAmI {
		a.ACL = nil
		for _, id := range rep.acl { // whoAmI's ids travel as ACL entries (server.read)
			a.Who = append(a.Who, Identity{Scheme: id.Scheme, User: id.ID})
		}
	}
	for _, m := range rep.multi {
		a.Multi = append(a.Multi, SubAnswer{Op: m.op, Code: m.code, Path: m.path, Stat: m.stat, Data: m.data, Children: m.children})
	}
	return a
}
