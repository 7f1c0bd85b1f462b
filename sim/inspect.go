package sim

import "slices"

// NodeInfo is a node of the data tree as a run left it, for explaining a
// verdict: its path, its ephemeral owner (0 for none) and when it was
// created.
type NodeInfo struct {
	Path  string
	Owner int64
	Czxid int64
	Ctime int64 // milliseconds, as Stat.Ctime
}

// Nodes lists the children of dir, by name, as the server that applied the
// most of the log holds them at the end of the run (nil if dir is not
// there). It reads; it changes nothing.
func (w *World) Nodes(dir string) []NodeInfo {
	best := w.furthest()
	if best == nil {
		return nil
	}
	n := best.tree.nodes[dir]
	if n == nil {
		return nil
	}
	names := slices.Sorted(slices.Values(n.listing.names))
	out := make([]NodeInfo, 0, len(names))
	for _, name := range names {
		p := dir + "/" + name
		if dir == "/" {
			p = "/" + name
		}
		c := best.tree.nodes[p]
		out = append(out, NodeInfo{Path: p, Owner: c.stat.EphemeralOwner, Czxid: c.stat.Czxid, Ctime: c.stat.Ctime})
	}
	return out
}

// furthest is the server that applied the most of the log (nil for none):
// whose tree tells what a run left.
func (w *World) furthest() *server {
	var best *server
	for _, s := range w.servers {
		if best == nil || s.applied > best.applied {
			best = s
		}
	}
	return best
}
