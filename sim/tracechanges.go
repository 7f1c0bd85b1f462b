package sim

import (
	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/trace"
)

// noteChanges gives the trace the changes the transaction zxid just made
// to tree, as its fired triggers name them (trace.NodeChange); called
// when the trace wants them (trace.WantsChanges: it keeps changes, and no
// other server's apply of zxid gave them first).
func (w *World) noteChanges(zxid int64, tree *Tree) {
	if len(tree.fired) == 0 {
		return
	}
	var cs []trace.NodeChange
	for _, tr := range tree.fired {
		if tr.typ == zk.EventNodeChildrenChanged {
			continue
		}
		c := trace.NodeChange{Path: tr.path, Event: tr.typ}
		if n := tree.nodes[tr.path]; n != nil && tr.typ != zk.EventNodeDeleted {
			c.Data = append([]byte(nil), n.data...)
			c.Owner = n.stat.EphemeralOwner
			c.Version = n.stat.Version
		}
		cs = append(cs, c)
	}
	w.trace.NoteChanges(zxid, cs)
}
