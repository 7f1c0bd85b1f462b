package sim

import "github.com/go-zookeeper/zk"

// NodeChange is one change a transaction made to the data tree: a node
// created, deleted or given new data. A kept trace keeps, for each
// transaction some server applied, the changes it made, so that a reader of
// the trace (the report's step-through) can follow what every server holds,
// data included, without re-running the world. A KApply record carries only
// the request's path; a multi, a closed session's ephemeral nodes and a
// reaped container change others, which the changes name.
type NodeChange struct {
	Path  string
	Event zk.EventType // EventNodeCreated, EventNodeDeleted or EventNodeDataChanged
	Data  []byte       // the node's data once the transaction was applied (none when deleted)
	Owner int64        // an ephemeral node's session, 0 for any other
	// Version is the node's data version once the transaction was applied.
	Version int32
}

// Changes are the changes the transaction zxid made, in the order the tree
// made them; none when the run did not keep them (Config.KeepChanges) or
// the transaction changed nothing. Every server that applies a transaction makes the same
// changes, so they are kept once, by zxid.
func (t *Trace) Changes(zxid int64) []NodeChange { return t.changes[zxid] }

// noteChanges keeps the changes the transaction zxid just made to tree, as
// its fired triggers name them, if the trace keeps them and no other
// server's apply of zxid kept them first. It hashes nothing: the changes
// follow from the records, which are hashed.
func (t *Trace) noteChanges(zxid int64, tree *Tree) {
	if !t.keepChanges || len(tree.fired) == 0 {
		return
	}
	if _, ok := t.changes[zxid]; ok {
		return
	}
	if t.changes == nil {
		t.changes = map[int64][]NodeChange{}
	}
	var cs []NodeChange
	for _, tr := range tree.fired {
		if tr.typ == zk.EventNodeChildrenChanged {
			continue
		}
		c := NodeChange{Path: tr.path, Event: tr.typ}
		if n := tree.nodes[tr.path]; n != nil && tr.typ != zk.EventNodeDeleted {
			c.Data = append([]byte(nil), n.data...)
			c.Owner = n.stat.EphemeralOwner
			c.Version = n.stat.Version
		}
		cs = append(cs, c)
	}
	t.changes[zxid] = cs
}
