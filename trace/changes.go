package trace

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
// made them; none when the run did not keep them (KeepChanges) or the
// transaction changed nothing. Every server that applies a transaction
// makes the same changes, so they are kept once, by zxid.
func (t *Trace) Changes(zxid int64) []NodeChange { return t.changes[zxid] }

// KeepChanges makes a trace that keeps its records keep what each applied
// transaction changed too (NoteChanges).
func (t *Trace) KeepChanges() { t.keepChanges = t.keep }

// WantsChanges reports whether the trace keeps changes and has none yet
// for the transaction zxid: whether the world, applying it, should make
// them (NoteChanges). Making them costs; most runs keep none.
func (t *Trace) WantsChanges(zxid int64) bool {
	if !t.keepChanges {
		return false
	}
	_, ok := t.changes[zxid]
	return !ok
}

// NoteChanges keeps cs as the changes the transaction zxid made, if the
// trace keeps changes and no other server's apply of zxid kept them
// first. It hashes nothing: the changes follow from the records, which
// are hashed.
func (t *Trace) NoteChanges(zxid int64, cs []NodeChange) {
	if !t.WantsChanges(zxid) {
		return
	}
	if t.changes == nil {
		t.changes = map[int64][]NodeChange{}
	}
	t.changes[zxid] = cs
}
