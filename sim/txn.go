package sim

import (
	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/trace"
)

// txn is one proposal of the ensemble: a write the leader has ordered with a
// zxid. It carries the client's request as it was sent, and every server
// applies it by executing that request against its own tree, in zxid order:
// the tree is deterministic, so every server reaches the same state and the
// same result (a sequential name, an error) that ZooKeeper's leader would
// have computed when it prepared the transaction. A write that fails its
// checks still takes its zxid, as ZooKeeper logs an error transaction.
type txn struct {
	zxid    int64
	time    Time      // the leader's clock when it ordered the write
	op      client.Op // the request type, or createSession / closeSession
	sess    int64     // the session that asked, or whose life it changes
	timeout Time      // createSession: the negotiated timeout
	req     *request
	origin  int    // the server the client sent it to, which replies; -1 for none
	acks    uint32 // servers that have logged it (on the leader)
	moved   bool   // the session had moved to another server when the leader ordered it
	named   string // a sequential create: the name the first server to apply it gave
	// auth are the ids of the connection the request came by, as the
	// server that received it had them.
	auth []authID
}

// applyResult is what applying a txn gives the server that will reply.
type applyResult struct {
	code  int32
	path  string
	stat  zk.Stat
	multi []subResult
}

// apply executes t on the tree. Writes from a session the replicated state
// no longer holds (it expired or closed) fail with SessionExpired, and
// writes that reached the leader through a server the session has since
// left fail with SessionMoved; neither changes anything, as ZooKeeper's
// leader refuses them when it prepares them.
func (tr *Tree) apply(t *txn) applyResult {
	var res applyResult
	switch t.op {
	case client.OpCreateSession:
		tr.sessions[t.sess] = t.timeout
		return res
	case client.OpCloseSession:
		for _, p := range tr.ephemeralOrder(t.sess) {
			tr.delete(p, -1, t.zxid)
		}
		delete(tr.ephemerals, t.sess)
		delete(tr.sessions, t.sess)
		return res
	}
	if t.op == client.OpDeleteContainer { // the leader's own: no session, no ACL
		res.code = tr.deleteContainer(t.req.path, t.zxid)
		return res
	}
	if _, ok := tr.sessions[t.sess]; !ok {
		res.code = trace.CodeSessionExpired
		return res
	}
	if t.moved {
		res.code = trace.CodeSessionMoved
		return res
	}
	r := t.req
	tr.ids, tr.applying = t.auth, t.sess
	defer func() { tr.ids, tr.applying = nil, 0 }()
	switch t.op {
	case client.OpCreate, client.OpCreate2:
		res.path, res.code = tr.createLike(r.path, r.data, r.flags, r.acl, t.sess, t.zxid, t.time, &t.named)
		if t.op == client.OpCreate2 && res.code == trace.CodeOK {
			res.stat = tr.createdStat(res.path, r.data)
		}
	case client.OpCreateContainer, client.OpCreateTTL:
		ttl := int64(-1)
		if t.op == client.OpCreateTTL {
			ttl = r.ttl
		}
		res.path, res.code = tr.createNode(t.op, createArgs{path: r.path, data: r.data, flags: r.flags, acl: r.acl,
			owner: t.sess, ttl: ttl}, t.zxid, t.time, &t.named)
		if res.code == trace.CodeOK {
			res.stat = tr.createdStat(res.path, r.data)
		}
	case client.OpDelete:
		res.code = tr.delete(r.path, r.version, t.zxid)
	case client.OpSetData:
		res.stat, res.code = tr.setData(r.path, r.data, r.version, t.zxid, t.time)
	case client.OpSetACL:
		res.stat, res.code = tr.setACL(r.path, r.acl, r.version)
	case client.OpMulti:
		res.multi, res.code = tr.multi(r.ops, t.sess, t.zxid, t.time)
	}
	return res
}

// createdStat is the Stat a create2, a createContainer or a createTTL
// answers with (alone, or as a multi's result): the new node's, with the
// length of the data it was created with, as the server copies the Stat
// before a quota's recount rewrites a stats node's data.
func (tr *Tree) createdStat(path string, data []byte) zk.Stat {
	st := tr.nodes[path].visibleStat()
	st.DataLength = int32(len(data))
	return st
}
