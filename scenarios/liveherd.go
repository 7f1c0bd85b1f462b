package scenarios

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/live"
	"github.com/zksim/zksim/models"
)

// The herd check on a live run. The simulator's traffic names the
// transaction behind every notification (its zxid), and the check counts
// the clients each release woke. ZooKeeper 3.8 sends a notification
// without its transaction's zxid, so a live run tells the transactions
// apart from the notifications its clients received, each with the node
// and the event it names:
//
//   - one transaction fires an event at most once per client (a watch
//     fires once), and its notifications reach the clients within moments
//     of each other: the notifications of one event on one node, to
//     distinct clients and none more than liveBurstGap after the one
//     before, are one transaction's (a burst); a client notified again, or
//     a gap, starts the next;
//   - a notification that answers the watches a client set again on
//     reconnecting (live.Notification.Rewatched) tells of a change made
//     while it was away, however long ago: it is no transaction's (zxid
//     0), as in the simulator, whose setWatches fires its events without
//     one; the herd check counts the clients a transaction woke as it
//     happened;
//   - a burst of NodeDeleted on a node, or of NodeChildrenChanged on its
//     parent, is a deletion of that node, a release. The latter may also
//     be a creation (the notification does not say which): it is taken
//     for one when the last create or delete of a child of that parent
//     that a client sent before it was a create, and a burst ends where
//     another such request was sent. A semaphore's recipe rightly watches
//     its lease directory's children (one waiter at a time), so that its
//     creations are no releases.
//
// The requests the clients send are noted too (Sent traffic), for the
// queue's rule, which counts the listings a take sends.
//
// A deletion of a node named for a process the history says failed is
// that process failing, which the double barrier's rule lets wake
// everyone who waited on it (models.FailedNodes): the check tells it from
// the history, in both worlds.
//
// That tells apart the releases of every kind the herd check judges: the
// lock's and the election's (each release deletes a node of its own), the
// double barrier's (each process's node is named for it), the two-phased
// commit's (each vote writes a node below the transaction's); and the
// queue's rule counts requests, which the clients know exactly.

// liveBurstGap is the most time between two notifications of one
// transaction to two clients.
const liveBurstGap = 50 * time.Millisecond

// liveNote is a notification a client of a live run received.
type liveNote struct {
	at     time.Duration // since the run's start
	client int
	server int // -1 when its address is not one of the ensemble's
	n      live.Notification
}

// liveSent is a request a client of a live run sent.
type liveSent struct {
	at     time.Duration
	client int
	r      live.Request
}

// liveNotes gathers a live run's notifications and requests from its
// clients' dialers.
type liveNotes struct {
	mu    sync.Mutex
	notes []liveNote
	sent  []liveSent
}

// listen has client i's notifications noted, as received since origin;
// servers are the ensemble's addresses, for the server index.
func (ns *liveNotes) listen(f *live.ClientFaults, i int, origin time.Time, servers []string) {
	f.OnNotification(func(n live.Notification) {
		note := liveNote{at: time.Since(origin), client: i, server: slices.Index(servers, n.Addr), n: n}
		ns.mu.Lock()
		ns.notes = append(ns.notes, note)
		ns.mu.Unlock()
	})
	f.OnRequest(func(r live.Request) {
		s := liveSent{at: time.Since(origin), client: i, r: r}
		ns.mu.Lock()
		ns.sent = append(ns.sent, s)
		ns.mu.Unlock()
	})
}

// traffic is the herd check's traffic, in order of time: each
// notification, with the burst it belongs to as its transaction, an
// Applied record for each burst that tells of one (see above), and each
// request sent.
func (ns *liveNotes) traffic() []models.Traffic {
	ns.mu.Lock()
	notes, sent := slices.Clone(ns.notes), slices.Clone(ns.sent)
	ns.mu.Unlock()
	slices.SortStableFunc(notes, func(a, b liveNote) int { return int(a.at - b.at) })
	type key struct {
		t    zk.EventType
		path string
	}
	type burst struct {
		zxid    int64
		last    time.Duration
		clients map[int]bool
		change  int // the creation or deletion it tells of (changeBefore), -1 if none is known
	}
	slices.SortStableFunc(sent, func(a, b liveSent) int { return int(a.at - b.at) })
	changes := slices.DeleteFunc(slices.Clone(sent), func(s liveSent) bool { return !childChange(s.r.Op) })
	open := map[key]*burst{}
	var out []models.Traffic
	var zxid int64
	for _, n := range notes {
		k := key{n.n.Type, n.n.Path}
		if n.n.Rewatched {
			// A change made while the client was away, told on its
			// return: no transaction's (see above).
			out = append(out, n.traffic(0))
			continue
		}
		b := open[k]
		change := -1
		if n.n.Type == zk.EventNodeChildrenChanged {
			change = changeBefore(changes, n.n.Path, n.at)
		}
		if b == nil || b.clients[n.client] || n.at-b.last > liveBurstGap || b.change != change {
			zxid++
			b = &burst{zxid: zxid, clients: map[int]bool{}, change: change}
			open[k] = b
			if op, path, ok := transactionOf(n.n); ok {
				if change >= 0 && strings.HasPrefix(changes[change].r.Op, "create") {
					op = "create" // not a release
				}
				out = append(out, models.Traffic{At: int64(n.at), Kind: models.Applied, Server: max(n.server, 0),
					Client: -1, Zxid: zxid, Op: op, Path: path})
			}
		}
		b.clients[n.client], b.last = true, n.at
		out = append(out, n.traffic(b.zxid))
	}
	for _, s := range sent {
		out = append(out, models.Traffic{At: int64(s.at), Kind: models.Sent, Client: s.client, Op: s.r.Op, Path: s.r.Path})
	}
	slices.SortStableFunc(out, func(a, b models.Traffic) int { return cmp.Compare(a.At, b.At) })
	return out
}

// traffic is the notification as the herd check's traffic, told of by
// the transaction zxid (a burst's).
func (n liveNote) traffic(zxid int64) models.Traffic {
	return models.Traffic{At: int64(n.at), Kind: models.Notified, Server: max(n.server, 0),
		Client: n.client, Zxid: zxid, Path: n.n.Path, Event: strings.TrimPrefix(n.n.Type.String(), "Event")}
}

// transactionOf is the transaction n tells of: the deletion of the node
// a NodeDeleted names, or of an unnamed child of the node whose children
// changed (see above); the creation or the write of the node a
// NodeCreated or a NodeDataChanged names.
func transactionOf(n live.Notification) (op, path string, ok bool) {
	switch n.Type {
	case zk.EventNodeDeleted:
		return "delete", n.Path, true
	case zk.EventNodeChildrenChanged:
		return "delete", strings.TrimSuffix(n.Path, "/") + "/(a child)", true
	case zk.EventNodeCreated:
		return "create", n.Path, true
	case zk.EventNodeDataChanged:
		return "setData", n.Path, true
	}
	return "", "", false
}

// childChange reports whether a request of type op creates or deletes a
// node.
func childChange(op string) bool {
	return strings.HasPrefix(op, "create") || strings.HasPrefix(op, "delete")
}

// changeBefore is the index in changes (creates and deletes sent, in order
// of time) of the last one of a child of parent sent at or before at, or
// -1.
func changeBefore(changes []liveSent, parent string, at time.Duration) int {
	below := strings.TrimSuffix(parent, "/") + "/"
	for i := len(changes) - 1; i >= 0; i-- {
		c := changes[i]
		if c.at > at {
			continue
		}
		if rest, ok := strings.CutPrefix(c.r.Path, below); ok && rest != "" && !strings.Contains(rest, "/") {
			return i
		}
	}
	return -1
}
