package sim

import (
	"cmp"
	"slices"

	"github.com/zksim/zksim/client"
)

// Leftovers: the nodes a client's requests made that are still there after
// the client closed its session, as a run leaves them. A recipe that
// cleans up after itself leaves none but the nodes it shares with the
// others (its directory); one that does not leaves nodes nobody will
// delete. Kept beside the trace: it changes no trace and no hash.

// Leftover is a node still there at the end of a run whose maker closed
// its session.
type Leftover struct {
	Path string
	// Creator is the session whose request made the node, Client its
	// client process (0-based; -1 when it is no client's), Closed when the
	// client closed the session.
	Creator int64
	Client  int
	Closed  Time
}

// noteClosed keeps when a client closed a session (a closeSession with a
// request: the leader's expiry has none), the first time a server applies
// its close.
func (w *World) noteClosed(a *applied) {
	if a.t.op != client.OpCloseSession || a.t.req == nil {
		return
	}
	if w.closed == nil {
		w.closed = map[int64]Time{}
	}
	if _, ok := w.closed[a.t.sess]; !ok {
		w.closed[a.t.sess] = w.s.now
	}
}

// Leftovers are the nodes of the tree of the server that applied the most
// of the log, at the end of the run, made by a session its client closed,
// by path. It reads; it changes nothing.
func (w *World) Leftovers() []Leftover {
	best := w.furthest()
	if best == nil || len(w.closed) == 0 {
		return nil
	}
	var out []Leftover
	for p, n := range best.tree.nodes {
		if at, ok := w.closed[n.creator]; ok && n.creator != 0 {
			out = append(out, Leftover{Path: p, Creator: n.creator, Client: w.clientOf(n.creator), Closed: at})
		}
	}
	slices.SortFunc(out, func(a, b Leftover) int { return cmp.Compare(a.Path, b.Path) })
	return out
}
