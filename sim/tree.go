package sim

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/trace"
)

// znode is one node of the data tree.
type znode struct {
	path    string
	data    []byte
	acl     []zk.ACL
	kind    nodeKind
	ttl     int64   // a TTL node's time to live, in milliseconds
	stat    zk.Stat // Cversion unused: see creates
	creates int32   // the server's internal cversion: creates ever done under this node
	listing listing // the children, in the order getChildren lists them
	ephIdx  int     // an ephemeral: its index in its owner's list
	key     uint64  // its name's key in its parent's listing (see link)
	parent  *znode  // the node it is listed under (see link)
	creator int64   // the session whose request made it (0: none), for leftovers.go
}

// visibleStat is the Stat a client sees. ZooKeeper keeps only the count of
// creates under a node and shows cversion as 2·creates − children, which is
// creates plus deletes (and -1 for a fresh root, whose child was never
// created by a request).
func (n *znode) visibleStat() zk.Stat {
	st := n.stat
	st.Cversion = 2*n.creates - st.NumChildren
	return st
}

// trigger is a watch event a write causes: the event type on a path. The
// server's watch table decides who hears it.
type trigger struct {
	path string
	typ  zk.EventType
	// acl is the ACL of the node the event is about (the parent's, for
	// NodeChildrenChanged): a watcher whose connection may not READ it
	// is not told.
	acl []zk.ACL
}

// Tree is a server's replicated state: the data tree, and the table of live
// sessions that createSession and closeSession transactions keep. It applies
// ZooKeeper's rules for each write, checked in the order the server checks
// them, and answers with ZooKeeper's error codes. It does no I/O.
//
// Every write appends the watch triggers it causes to fired, in the order the
// server fires them; the caller drains it.
type Tree struct {
	nodes      map[string]*znode
	ephemerals map[int64]*ephemeralSet // each session's ephemeral nodes
	sessions   map[int64]Time          // the live sessions and their timeouts
	salt       uint64
	fired      []trigger
	names      nameArena   // the sequential names this tree made
	slab       slab[znode] // where its nodes are made: every create on every replica makes one
	// spare are deleted nodes, which the next creates make again (see
	// newNode); none while a multi runs (inMulti), whose undoing may link
	// a node it deleted again.
	spare   []*znode
	inMulti bool
	// reapable are the container and TTL nodes, which the leader deletes
	// once they are empty (reap.go).
	reapable map[string]*znode
	// extended is whether TTL nodes are enabled (the server's
	// zookeeper.extendedTypesEnabled).
	extended bool
	// ids are the authenticated ids of the connection whose request is
	// being applied (set by apply), against which the writes check the
	// nodes' ACLs. nil for the server's own writes (a closed session's
	// ephemeral nodes deleted), which no ACL stops; a connection always
	// has an id, its address.
	ids []authID
	// applying is the session whose request is being applied (set by
	// apply; 0 for the server's own writes), and foreign the ephemeral
	// nodes it deleted that another session owned (ownership.go).
	applying int64
	foreign  []foreignDelete
	// quotas are the paths with a quota (a limits node), and multiUndo
	// what puts their statistics back if the multi being applied fails
	// (quota.go).
	quotas    []string
	multiUndo []func()
	// replica says the server applying is not the leader: it has the
	// transaction as the leader's proposal wrote it (wireACL).
	replica bool
}

// allowed reports whether the request being applied has perm on a node
// with acl.
func (t *Tree) allowed(acl []zk.ACL, perm int32) bool {
	return t.ids == nil || permits(acl, perm, t.ids)
}

// specialPath reports whether path is one of the nodes every fresh server
// has, which delete refuses: a switch, not a map, since every delete on
// every replica asks.
func specialPath(path string) bool {
	switch path {
	case "/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config":
		return true
	}
	return false
}

// configPath is the node that holds the ensemble's configuration: readable
// by anyone and writable by no one (its ACL is world:anyone READ, set with
// setACL version -1, which leaves its aversion at -1).
const configPath = "/zookeeper/config"

// noData is the data of ZooKeeper's own nodes: empty, not absent (the
// server makes them with new byte[0]; a client reads an empty slice).
var noData = []byte{}

// newTree returns a fresh tree holding the root and ZooKeeper's own nodes,
// all with zero stats and empty data as a new server has them (so the root
// shows cversion -1 and one child), open to anyone but for the
// configuration node. salt fixes the order in which children are listed.
func newTree(salt uint64) *Tree {
	t := &Tree{nodes: map[string]*znode{}, ephemerals: map[int64]*ephemeralSet{},
		sessions: map[int64]Time{}, salt: salt, reapable: map[string]*znode{}}
	root := t.slab.get()
	root.path, root.acl, root.data = "/", openACL, noData
	t.nodes["/"] = root
	for _, p := range []string{"/zookeeper", "/zookeeper/quota", configPath} {
		n := t.slab.get()
		n.path, n.acl, n.data = p, openACL, noData
		if p == configPath {
			n.acl, n.stat.Aversion = configACL, -1
		}
		parent, name := parentOf(p)
		t.link(t.nodes[parent], n, name)
		t.nodes[parent].stat.NumChildren++
		t.nodes[p] = n
	}
	return t
}

// writeConfig writes the ensemble's configuration (configText) into
// configPath, as a server in an ensemble does when it starts (a standalone
// server leaves it empty), set with version -1 (which the node's version
// keeps) at time now. Every server's tree shares config's bytes, which
// nothing changes in place (a setData replaces them; a read copies them).
func (t *Tree) writeConfig(config []byte, now Time) {
	n := t.nodes[configPath]
	n.data = config
	n.stat.Version, n.stat.Mtime, n.stat.DataLength = -1, now.Millis(), int32(len(config))
}

// configText is an ensemble's configuration as its servers write it: a
// line per server, "server.N=127.0.0.1:PEER:ELECTION:participant", then
// "version=0". The simulated servers have no ports: they are numbered as a
// single machine's would be.
func configText(servers int) []byte {
	var b strings.Builder
	for i := 1; i <= servers; i++ {
		fmt.Fprintf(&b, "server.%d=127.0.0.1:%d:%d:participant\n", i, 2887+i, 3887+i)
	}
	b.WriteString("version=0")
	return []byte(b.String())
}

// parentForWrite is the server's first look at a create or delete path: a
// path without '/' or with a NUL is refused with BadArguments; otherwise the
// parent is everything before the last '/' ("" for a child of the root,
// which the tree keys as "/").
func parentForWrite(path string) (string, bool) {
	i := -1
	for j := 0; j < len(path); j++ {
		switch path[j] {
		case 0:
			return "", false
		case '/':
			i = j
		}
	}
	if i < 0 {
		return "", false
	}
	if i == 0 {
		return "/", true
	}
	return path[:i], true
}

// create makes a node, as a create request (op 1) asks: see createNode.
func (t *Tree) create(path string, data []byte, flags int32, acl []zk.ACL, owner int64, zxid int64, now Time) (string, int32) {
	return t.createLike(path, data, flags, acl, owner, zxid, now, nil)
}

// createLike is create, with the sequential name another server gave the
// same transaction in *named (updated to this server's), so that replicas
// share one string.
func (t *Tree) createLike(path string, data []byte, flags int32, acl []zk.ACL, owner int64, zxid int64, now Time, named *string) (string, int32) {
	return t.createNode(client.OpCreate, createArgs{path: path, data: data, flags: flags, acl: acl, owner: owner, ttl: -1},
		zxid, now, named)
}

// createArgs are what a create request carries, and the session that
// sent it.
type createArgs struct {
	path  string
	data  []byte
	flags int32
	acl   []zk.ACL
	owner int64
	ttl   int64 // createTTL's; -1 for the other creates
}

// createNode makes a node as op (create, createContainer or createTTL)
// asks, checking in the server's order: the mode (createMode); the path
// has a '/' and no NUL; the ACL is valid (InvalidACL, fixupACL); the
// parent exists (NoNode); the parent's ACL grants CREATE (NoAuth); a
// sequential create appends the parent's create count; the full path is
// valid (BadArguments); it does not exist yet (NodeExists); the parent is
// not an ephemeral node (NoChildrenForEphemerals; a container or TTL
// parent may have children).
//
// On success the node has czxid=mzxid=pzxid=zxid, ctime=mtime=now, versions
// 0, and its ephemeral owner if it is an ephemeral node (a container and a
// TTL node show none); the parent counts one more create and child and its
// pzxid becomes zxid. Fires NodeCreated on the path, then
// NodeChildrenChanged on the parent.
func (t *Tree) createNode(op client.Op, c createArgs, zxid int64, now Time, named *string) (string, int32) {
	kind, ephemeral, sequential, code := t.createMode(op, c.flags, c.ttl)
	if code != trace.CodeOK {
		return "", code
	}
	path := c.path
	parentPath, ok := parentForWrite(path)
	if !ok {
		return "", trace.CodeBadArguments
	}
	acl, code := fixupACL(c.acl, t.ids)
	if code != trace.CodeOK {
		return "", code
	}
	if t.replica {
		acl = wireACL(acl)
	}
	parent := t.nodes[parentPath]
	if parent == nil {
		return "", trace.CodeNoNode
	}
	if !t.allowed(parent.acl, zk.PermCreate) {
		return "", trace.CodeNoAuth
	}
	if sequential {
		if named != nil {
			path = sequenceNameLike(path, parent.creates, *named, &t.names)
			*named = path
		} else {
			path = sequenceName(path, parent.creates)
		}
	}
	if !validServerPath(path, false) {
		return "", trace.CodeBadArguments
	}
	if t.nodes[path] != nil {
		return "", trace.CodeNodeExists
	}
	if parent.stat.EphemeralOwner != 0 {
		return "", trace.CodeNoChildrenForEphemeral
	}
	owner := c.owner
	if !ephemeral {
		owner = 0
	}
	ms := now.Millis()
	n := t.newNode()
	*n = znode{path: path, data: c.data, acl: acl, kind: kind, ttl: c.ttl, creator: c.owner}
	n.stat = zk.Stat{Czxid: zxid, Mzxid: zxid, Pzxid: zxid, Ctime: ms, Mtime: ms,
		EphemeralOwner: owner, DataLength: int32(len(c.data))}
	_, name := parentOf(path)
	t.link(parent, n, name)
	parent.creates++
	parent.stat.NumChildren++
	parent.stat.Pzxid = zxid
	t.nodes[path] = n
	t.track(n)
	t.fired = append(t.fired, trigger{path, zk.EventNodeCreated, acl}, trigger{parentPath, zk.EventNodeChildrenChanged, parent.acl})
	if len(t.quotas) > 0 || strings.HasPrefix(parentPath, quotaRoot) {
		t.quotaCreated(path, len(c.data))
	}
	return path, trace.CodeOK
}

// nodeKind is what a create makes, besides an ephemeral or a sequential
// node: a plain node, a container (deleted by the leader once its last
// child is gone) or a TTL node (deleted once it has had no children and
// no change for its TTL).
type nodeKind uint8

const (
	plainNode nodeKind = iota
	containerNode
	ttlNode
)

// maxTTL is the longest TTL a node can have, in milliseconds (the 40 bits
// the server keeps it in).
const maxTTL = 1<<40 - 1

// createMode is the server's reading of a create's flags, in its order:
// a flag outside 0..6 is BadArguments; a TTL mode (5 or 6) while TTL nodes
// are disabled is Unimplemented; a TTL mode needs a TTL of 1 to maxTTL
// milliseconds and any other mode none (BadArguments). The opcode decides
// the node: createContainer makes a container, createTTL a TTL node, and
// create a plain node, even with the container flag (4).
func (t *Tree) createMode(op client.Op, flags int32, ttl int64) (kind nodeKind, ephemeral, sequential bool, code int32) {
	if flags < 0 || flags > 6 {
		return 0, false, false, trace.CodeBadArguments
	}
	isTTL := flags == zk.FlagTTL || flags == zk.FlagPersistentSequentialWithTTL
	if isTTL && !t.extended {
		return 0, false, false, trace.CodeUnimplemented
	}
	if isTTL && (ttl <= 0 || ttl > maxTTL) || !isTTL && ttl >= 0 {
		return 0, false, false, trace.CodeBadArguments
	}
	ephemeral = flags == zk.FlagEphemeral || flags == zk.FlagEphemeralSequential
	sequential = flags == zk.FlagSequence || flags == zk.FlagEphemeralSequential || flags == zk.FlagPersistentSequentialWithTTL
	switch op {
	case client.OpCreateContainer:
		return containerNode, false, sequential, trace.CodeOK
	case client.OpCreateTTL:
		return ttlNode, false, sequential, trace.CodeOK
	}
	return plainNode, ephemeral, sequential, trace.CodeOK
}

// track keeps n among the reapable nodes if it is a container or a TTL
// node; untrack forgets it.
func (t *Tree) track(n *znode) {
	if n.stat.EphemeralOwner != 0 {
		t.addEphemeral(n.stat.EphemeralOwner, n)
	}
	if n.kind != plainNode {
		t.reapable[n.path] = n
	}
}

func (t *Tree) untrack(n *znode) {
	if owner := n.stat.EphemeralOwner; owner != 0 {
		t.dropEphemeral(owner, n)
	}
	if n.kind != plainNode {
		delete(t.reapable, n.path)
	}
}

// delete removes a node, checking in the server's order: the path has a '/'
// and no NUL and is not one of ZooKeeper's own nodes (BadArguments); the
// parent exists (NoNode); the parent's ACL grants DELETE (NoAuth, even for a
// node that does not exist); the node exists (NoNode); the version matches,
// -1 matching any (BadVersion); it has no children (NotEmpty). The server
// runs no further path validation on delete. See remove for the effects.
func (t *Tree) delete(path string, version int32, zxid int64) int32 {
	parentPath, ok := parentForWrite(path)
	if !ok || specialPath(path) {
		return trace.CodeBadArguments
	}
	// A node's parent exists while it does: look the node up first, and
	// its parent only if it has none.
	n := t.nodes[path]
	var parent *znode
	if n != nil {
		parent = n.parent
	} else {
		parent = t.nodes[parentPath]
	}
	if parent == nil {
		return trace.CodeNoNode
	}
	if !t.allowed(parent.acl, zk.PermDelete) {
		return trace.CodeNoAuth
	}
	if n == nil {
		return trace.CodeNoNode
	}
	if version != -1 && version != n.stat.Version {
		return trace.CodeBadVersion
	}
	if len(n.listing.names) > 0 {
		return trace.CodeNotEmpty
	}
	if owner := n.stat.EphemeralOwner; owner != 0 && t.applying != 0 && owner != t.applying {
		t.foreign = append(t.foreign, foreignDelete{path: path, owner: owner})
	}
	t.remove(n, parentPath, parent, zxid)
	return trace.CodeOK
}

// deleteContainer is the leader's own delete of a container or TTL node it
// found empty (reap.go), checking in the server's order: not one of
// ZooKeeper's own nodes (BadArguments); the node exists (NoNode); it has no
// children (NotEmpty, a child came meanwhile); it is not an ephemeral node
// (BadVersion: the path was reused). No ACL and no version apply.
func (t *Tree) deleteContainer(path string, zxid int64) int32 {
	parentPath, ok := parentForWrite(path)
	if !ok || specialPath(path) {
		return trace.CodeBadArguments
	}
	n := t.nodes[path]
	if n == nil {
		return trace.CodeNoNode
	}
	if len(n.listing.names) > 0 {
		return trace.CodeNotEmpty
	}
	if n.stat.EphemeralOwner != 0 {
		return trace.CodeBadVersion
	}
	t.remove(n, parentPath, t.nodes[parentPath], zxid)
	return trace.CodeOK
}

// remove takes n out of the tree: the parent's pzxid becomes zxid (if
// larger) and its visible cversion goes up by one (its count of creates
// stays). Fires NodeDeleted on the path, then NodeChildrenChanged on the
// parent.
func (t *Tree) remove(n *znode, parentPath string, parent *znode, zxid int64) {
	_, name := parentOf(n.path)
	t.unlink(parent, n, name)
	parent.stat.NumChildren--
	if zxid > parent.stat.Pzxid {
		parent.stat.Pzxid = zxid
	}
	delete(t.nodes, n.path)
	t.untrack(n)
	t.fired = append(t.fired, trigger{n.path, zk.EventNodeDeleted, n.acl}, trigger{parentPath, zk.EventNodeChildrenChanged, parent.acl})
	if len(t.quotas) > 0 {
		t.quotaRemoved(n.path, len(n.data))
	}
	if !t.inMulti {
		t.spare = append(t.spare, n) // nothing refers to it any more
	}
}

// newNode returns a zeroed node for a create: a deleted one made again,
// else a new one from the slab. A lock's nodes come and go (a thousand a
// lock-contention run, on each replica) while a handful exist at once.
func (t *Tree) newNode() *znode {
	if k := len(t.spare); k > 0 {
		n := t.spare[k-1]
		t.spare = t.spare[:k-1]
		*n = znode{}
		return n
	}
	return t.slab.get()
}

// setData replaces a node's data, checking in the server's order: a valid
// path (BadArguments), the node exists (NoNode), its ACL grants WRITE
// (NoAuth), the version matches, -1 matching any (BadVersion). Its version goes up by one,
// mzxid becomes zxid, mtime now. Fires NodeDataChanged.
func (t *Tree) setData(path string, data []byte, version int32, zxid int64, now Time) (zk.Stat, int32) {
	n, code := t.target(path, zk.PermWrite)
	if code != trace.CodeOK {
		return zk.Stat{}, code
	}
	if version != -1 && version != n.stat.Version {
		return zk.Stat{}, trace.CodeBadVersion
	}
	old := len(n.data)
	n.data = data
	n.stat.Version++
	n.stat.Mzxid = zxid
	n.stat.Mtime = now.Millis()
	n.stat.DataLength = int32(len(data))
	t.fired = append(t.fired, trigger{path, zk.EventNodeDataChanged, n.acl})
	st := n.visibleStat()
	if len(t.quotas) > 0 {
		t.quotaChange(path, int64(len(data)-old), 0)
	}
	return st, trace.CodeOK
}

// check is a multi's version check: a valid path (BadArguments), the node
// exists (NoNode), its ACL grants READ (NoAuth), the version matches, -1
// matching any (BadVersion).
func (t *Tree) check(path string, version int32) int32 {
	n, code := t.target(path, zk.PermRead)
	if code != trace.CodeOK {
		return code
	}
	if version != -1 && version != n.stat.Version {
		return trace.CodeBadVersion
	}
	return trace.CodeOK
}

// target is the node a write on an existing node (setData, setACL, a
// multi's check) acts on, checked in the server's order: a valid path
// (BadArguments), the node exists (NoNode), its ACL grants perm (NoAuth).
func (t *Tree) target(path string, perm int32) (*znode, int32) {
	if !validServerPath(path, false) {
		return nil, trace.CodeBadArguments
	}
	n := t.nodes[path]
	if n == nil {
		return nil, trace.CodeNoNode
	}
	if !t.allowed(n.acl, perm) {
		return nil, trace.CodeNoAuth
	}
	return n, trace.CodeOK
}

// setACL replaces a node's ACL, checking in the server's order: a valid
// path (BadArguments), a valid ACL (InvalidACL, fixupACL), the node exists
// (NoNode), its ACL grants ADMIN (NoAuth), the version matches its
// aversion, -1 matching any (BadVersion). Its aversion goes up by one and
// nothing else changes; no watch fires.
func (t *Tree) setACL(path string, acl []zk.ACL, version int32) (zk.Stat, int32) {
	if !validServerPath(path, false) {
		return zk.Stat{}, trace.CodeBadArguments
	}
	acl, code := fixupACL(acl, t.ids)
	if code != trace.CodeOK {
		return zk.Stat{}, code
	}
	if t.replica {
		acl = wireACL(acl)
	}
	n, code := t.target(path, zk.PermAdmin)
	if code != trace.CodeOK {
		return zk.Stat{}, code
	}
	if version != -1 && version != n.stat.Aversion {
		return zk.Stat{}, trace.CodeBadVersion
	}
	n.acl = acl
	n.stat.Aversion++
	return n.visibleStat(), trace.CodeOK
}

// readable is the node at path for a read by a connection with ids: NoNode
// if there is none, then NoAuth unless its ACL grants one of perms (READ;
// READ or ADMIN for getACL).
func (t *Tree) readable(path string, perms int32, ids []authID) (*znode, int32) {
	n := t.nodes[path]
	if n == nil {
		return nil, trace.CodeNoNode
	}
	if !permits(n.acl, perms, ids) {
		return nil, trace.CodeNoAuth
	}
	return n, trace.CodeOK
}

// getACL returns a node's ACL and stat, for a connection with ids: NoNode,
// then NoAuth unless the ACL grants READ or ADMIN; without ADMIN the
// digest ids' hashes are masked. The ids are written as the server writes
// strings (javaEcho).
func (t *Tree) getACL(path string, ids []authID) ([]zk.ACL, zk.Stat, int32) {
	n, code := t.readable(path, zk.PermRead|zk.PermAdmin, ids)
	if code != trace.CodeOK {
		return nil, zk.Stat{}, code
	}
	acl := n.acl
	if !permits(n.acl, zk.PermAdmin, ids) {
		acl = maskDigests(acl)
	}
	return echoACL(acl), n.visibleStat(), trace.CodeOK
}

// echoACL is acl with each scheme and id as the server writes it back
// (javaEcho).
func echoACL(acl []zk.ACL) []zk.ACL { return aclStrings(acl, javaEcho) }

// get returns a node's data and stat. Reads run no path validation on the
// server: a malformed path is simply not found.
func (t *Tree) get(path string) ([]byte, zk.Stat, int32) {
	n := t.nodes[path]
	if n == nil {
		return nil, zk.Stat{}, trace.CodeNoNode
	}
	return n.data, n.visibleStat(), trace.CodeOK
}

// children returns a node's child names in the tree's listing order: not
// sorted, as a real server's are not, but fixed for a given run and salt.
// Recipes must sort them themselves. The names are shared with other
// readers (listing.snapshot): the caller must not change them.
func (t *Tree) children(path string) ([]string, zk.Stat, int32) {
	n := t.nodes[path]
	if n == nil {
		return nil, zk.Stat{}, trace.CodeNoNode
	}
	return n.listing.snapshot(), n.visibleStat(), trace.CodeOK
}

// link lists n, named name, as a child of parent. n keeps its name's key
// in the listing, so that unlinking it hashes the name no more (a lock's
// node, some forty bytes hashed a byte at a time, is unlinked on every
// replica).
func (t *Tree) link(parent, n *znode, name string) {
	n.key, n.parent = nameHash(name, t.salt), parent
	parent.listing.add(n.key, name)
}

// unlink removes n, the child name of parent, which link listed.
func (t *Tree) unlink(parent, n *znode, name string) {
	parent.listing.remove(n.key, name)
}

// ephemeralSet is a session's ephemeral nodes, in no order, and the most
// it has had at once (ephemeralOrder).
type ephemeralSet struct {
	nodes []*znode
	peak  int
}

// addEphemeral adds n to owner's ephemeral nodes.
func (t *Tree) addEphemeral(owner int64, n *znode) {
	set := t.ephemerals[owner]
	if set == nil {
		set = &ephemeralSet{}
		t.ephemerals[owner] = set
	}
	n.ephIdx = len(set.nodes)
	set.nodes = append(set.nodes, n)
	set.peak = max(set.peak, len(set.nodes))
}

// ephemeralOrder is the server's order of owner's ephemeral nodes, in
// which getEphemerals lists them and closing the session deletes them:
// both iterate a copy of the session's Java HashSet of paths. The set's
// own table has 16 bins, doubled each time it grew past three quarters
// full (it never shrinks: sized by the most the session had at once), each
// bin in the order its paths were added (their czxid); its copy is made
// anew, sized for the paths it has now (the smallest power of two of bins
// above a third more than them), and filled in the set's order. So the
// paths go by their bin in the copy, then in the set. (A server that
// loaded its tree from a snapshot builds the set afresh, in the snapshot's
// order: not modelled.)
func (t *Tree) ephemeralOrder(owner int64) []string {
	set := t.ephemerals[owner]
	if set == nil {
		return nil
	}
	list := slices.Clone(set.nodes)
	setBins := 16
	for set.peak > setBins*3/4 {
		setBins *= 2
	}
	copyBins := 1
	for copyBins < int(float32(len(list))/0.75+1) {
		copyBins *= 2
	}
	bin := func(n *znode, bins int) int {
		h := javaStringHash(n.path)
		return int(h^int32(uint32(h)>>16)) & (bins - 1)
	}
	slices.SortFunc(list, func(a, b *znode) int {
		return cmp.Or(cmp.Compare(bin(a, copyBins), bin(b, copyBins)), cmp.Compare(bin(a, setBins), bin(b, setBins)),
			cmp.Compare(a.stat.Czxid, b.stat.Czxid))
	})
	paths := make([]string, len(list))
	for i, n := range list {
		paths[i] = n.path
	}
	return paths
}

// dropEphemeral removes n from owner's ephemeral nodes, in constant time.
// The owner's set stays (empty), for its next ephemeral, until its
// session closes.
func (t *Tree) dropEphemeral(owner int64, n *znode) {
	set := t.ephemerals[owner]
	i := n.ephIdx
	if set == nil || i >= len(set.nodes) || set.nodes[i] != n {
		return
	}
	list := set.nodes
	last := len(list) - 1
	list[i] = list[last]
	list[i].ephIdx = i
	list[last] = nil
	set.nodes = list[:last]
}

// FNV-1a's 64-bit offset basis and prime: nameHash's.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func nameHash(s string, salt uint64) uint64 {
	h := uint64(fnvOffset) ^ salt
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * fnvPrime
	}
	return h
}

// ephemeralsUnder are the session's ephemeral nodes whose path begins with
// prefix, as a string ("/a" has "/ab"), all of them for "/": the server's
// getEphemerals.
func (t *Tree) ephemeralsUnder(owner int64, prefix string) []string {
	var out []string
	for _, p := range t.ephemeralOrder(owner) {
		if prefix == "/" || strings.HasPrefix(p, prefix) {
			out = append(out, p)
		}
	}
	return out
}

// descendants counts the nodes below path, at every depth (below "/":
// every node but the root, /zookeeper's included): the server's
// getAllChildrenNumber. Below "" it counts every node, the root too: the
// server counts its keys that begin with path + "/", and its tree keys the
// root as "/" besides "" (readKey).
func (t *Tree) descendants(path string) int32 {
	if path == "" {
		return int32(len(t.nodes))
	}
	n := int32(0)
	for p := range t.nodes {
		if p != "/" && (path == "/" || strings.HasPrefix(p, path+"/")) {
			n++
		}
	}
	return n
}

// sortedSessions lists session ids in order.
func sortedSessions(m map[int64]Time) []int64 {
	ids := make([]int64, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}
