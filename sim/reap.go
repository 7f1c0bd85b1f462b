package sim

import (
	"slices"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/trace"
)

// The leader's container manager, as ZooKeeper's: every
// Config.ContainerCheckInterval, counted from when it began to lead, the
// leader looks in its tree for container nodes that had a child and have
// none left, and for TTL nodes with no child that have not changed for
// longer than their TTL, and deletes each with a deleteContainer of its
// own, 6ms apart (the server's 10,000 a minute). A child created meanwhile
// makes the delete fail (NotEmpty), as on the server. The check is armed
// only while the tree holds such nodes, so a run without any is unchanged.

// reapSpacing is the time between two of the leader's deletes.
const reapSpacing = Time(6 * time.Millisecond)

// armReaper schedules the leader's next check, at the next multiple of
// the interval since it began to lead, unless one is already due.
func (s *server) armReaper() {
	ld := s.ld
	if ld.reapArmed {
		return
	}
	ld.reapArmed = true
	w := s.w
	every := Time(w.cfg.ContainerCheckInterval)
	at := ld.since + ((w.s.now-ld.since)/every+1)*every
	gen := s.gen
	w.s.background(at, func() {
		if s.gen != gen || s.ld != ld || s.role != trace.RoleLeading {
			return
		}
		ld.reapArmed = false
		for i, p := range s.reapCandidates() {
			p := p
			w.s.background(w.s.now+Time(i)*reapSpacing, func() {
				if s.gen == gen && s.ld == ld && s.role == trace.RoleLeading {
					s.propose(&txn{op: client.OpDeleteContainer, req: &request{op: client.OpDeleteContainer, path: p}, origin: -1})
				}
			})
		}
		if len(s.tree.reapable) > 0 {
			s.armReaper()
		}
	})
}

// willReap reports whether a check, now or later, will delete a node of
// the leader's tree unless a client acts first: a container that had a
// child and has none, a TTL node without children.
func (s *server) willReap() bool {
	for _, n := range s.tree.reapable {
		if n.stat.NumChildren == 0 && (n.kind == ttlNode || n.creates > 0) {
			return true
		}
	}
	return false
}

// reapCandidates are the paths of the nodes the check deletes, in order:
// containers without children that had one (a container that never had a
// child stays), and TTL nodes without children whose last change is more
// than their TTL ago.
func (s *server) reapCandidates() []string {
	now := s.w.s.now.Millis()
	var out []string
	for p, n := range s.tree.reapable {
		if n.stat.NumChildren > 0 {
			continue
		}
		if n.kind == containerNode && n.creates > 0 || n.kind == ttlNode && now-n.stat.Mtime > n.ttl {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}
