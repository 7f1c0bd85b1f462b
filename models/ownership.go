package models

import (
	"cmp"
	"fmt"
	"path"
	"slices"
)

func init() {
	register(Checker{
		Name:  "ownership",
		Kind:  Safety,
		Doc:   "no client deletes an ephemeral node another client's session owns",
		Check: checkOwnership,
	})
}

// ForeignDelete is an ephemeral node deleted by a session other than the
// one that owned it, as the world that ran the history saw it (the
// history's operations cannot show whose a node was). Times are on the
// history's clock.
type ForeignDelete struct {
	At   int64  `json:"at_ns"`
	Path string `json:"path"`
	// Owner is the session that owned the node, By the one that deleted
	// it; OwnerClient and ByClient their clients (0-based, -1 for none).
	Owner       int64 `json:"owner_session"`
	OwnerClient int   `json:"owner_client"`
	By          int64 `json:"by_session"`
	ByClient    int   `json:"by_client"`
	// GivenUp says the owner's client had given the session up (on its
	// own clock, while the servers still held it): nobody relied on the
	// node any more.
	GivenUp bool `json:"given_up,omitempty"`
}

// checkOwnership is the ownership checker: a client may delete only its
// own nodes. Each ephemeral node deleted by a session of another client
// than the one whose session owned it (Input.ForeignDeletes) is a safety
// violation: it took from that client what the node stood for (a lock, a
// place in a queue, a membership), and the node's owner was live, since an
// ephemeral node lives only as long as its session. A recipe gets there by
// deleting a node it did not look at (a blind retry after a lost reply,
// when the name came back as another client's node) or one it took for
// its own. A node whose session its client had given up (on its own
// clock, while the servers still held it: GivenUp) stood for nothing any
// more, and a client deleting the node of an earlier session of its own is
// cleaning up: both pass. One violation per object (the node's parent),
// naming the first such delete and counting the others.
func checkOwnership(in *Input) []Violation {
	byObject := map[string][]ForeignDelete{}
	var objects []string
	for _, d := range in.ForeignDeletes {
		if d.GivenUp || (d.OwnerClient == d.ByClient && d.ByClient >= 0) {
			continue
		}
		obj := path.Dir(d.Path)
		if _, ok := byObject[obj]; !ok {
			objects = append(objects, obj)
		}
		byObject[obj] = append(byObject[obj], d)
	}
	slices.Sort(objects)
	var out []Violation
	for _, obj := range objects {
		ds := byObject[obj]
		slices.SortStableFunc(ds, func(a, b ForeignDelete) int { return cmp.Compare(a.At, b.At) })
		d := ds[0]
		msg := fmt.Sprintf("%s (session %#x) deleted %s at %s, an ephemeral node of %s's live session %#x: a client may "+
			"delete only its own nodes, and this took from %s what the node stood for", sessionClient(d.ByClient), d.By,
			d.Path, in.Since(d.At), sessionClient(d.OwnerClient), d.Owner, sessionClient(d.OwnerClient))
		if n := len(ds) - 1; n > 0 {
			msg += fmt.Sprintf("; %d more %s deleted so", n, plural(n, "node was", "nodes were"))
		}
		out = append(out, Violation{Check: "ownership", Kind: Safety, Object: obj, At: d.At - in.Start, Message: msg,
			Ops: underWay(in.Ops, d.At, d.ByClient, d.OwnerClient)})
	}
	return out
}

// sessionClient names a session's client ("c2"), or says it has none.
func sessionClient(c int) string {
	if c < 0 {
		return "a session of no client"
	}
	return ClientName(c)
}

// underWay are the operations of the given clients under way at t (called
// at or before it, returned at or after it): what they were doing when a
// node was deleted.
func underWay(ops []Operation, t int64, clients ...int) []Operation {
	var out []Operation
	for _, op := range ops {
		if slices.Contains(clients, op.Client) && op.Call <= t && (op.Return >= t || op.Pending()) {
			out = append(out, op)
		}
	}
	sortOps(out)
	return out
}
