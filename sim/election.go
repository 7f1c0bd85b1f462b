package sim

import (
	"fmt"
	"time"

	"github.com/zksim/zksim/trace"
)

// lookForLeader takes s out of service: it closes its clients' connections,
// tells the peers it was connected to, and looks for a leader.
func (w *World) lookForLeader(s *server, why string) {
	if s.role == trace.RoleDown || s.role == trace.RoleLooking {
		return
	}
	w.s.record(trace.Record{Kind: trace.KRole, From: s.actor, Arg: int64(trace.RoleLooking), Path: why})
	s.closePeers()
	s.stopServing()
	s.role = trace.RoleLooking
	s.gen++
	s.leader, s.ld = nil, nil
	w.needElection()
}

// closePeers tells the servers connected to s that the connection closed:
// a leader's followers, or a follower's leader.
func (s *server) closePeers() {
	switch s.role {
	case trace.RoleLeading:
		for _, f := range s.ld.followers {
			s.sendPeer(peerMsg{kind: pmClosed, to: f})
		}
	case trace.RoleFollowing:
		s.toLeader(peerMsg{kind: pmClosed})
	}
}

// needElection schedules an election round a few hundred virtual
// milliseconds from now (ZooKeeper's fast leader election settles in about
// 200 ms), unless one is already coming.
func (w *World) needElection() {
	if w.electionAt > w.s.now {
		return
	}
	d := Time(w.cfg.ElectionTime) + w.jitter(w.cfg.ElectionJitter)
	w.electionAt = w.s.now + d
	w.s.at(w.electionAt, w.runElection)
}

// connected reports whether two servers can talk: both up and the links
// between them not cut.
func (w *World) connected(a, b *server) bool {
	return a.role != trace.RoleDown && b.role != trace.RoleDown &&
		!w.peers[a.idx][b.idx].cut && !w.peers[b.idx][a.idx].cut
}

// runElection is one round of leader election. A looking server that can
// reach a leader still served by a quorum joins it. The other looking
// servers, in groups that can talk among themselves, elect a leader where a
// group is a quorum: the one with the highest last logged zxid (then the
// highest id), as ZooKeeper's vote does. Servers left looking try again
// later. The messages of the vote itself are not modelled, only its outcome
// and its time.
func (w *World) runElection() {
	var looking []*server
	for _, s := range w.servers {
		if s.role == trace.RoleLooking {
			looking = append(looking, s)
		}
	}
	var rest []*server
	for _, s := range looking {
		joined := false
		for _, l := range w.servers {
			if l.role == trace.RoleLeading && w.connected(s, l) && len(l.ld.followers)+1 >= w.quorum() {
				w.join(s, l)
				joined = true
				break
			}
		}
		if !joined {
			rest = append(rest, s)
		}
	}
	seen := map[*server]bool{}
	for _, s := range rest {
		if seen[s] {
			continue
		}
		group := []*server{s}
		seen[s] = true
		for i := 0; i < len(group); i++ {
			for _, o := range rest {
				if !seen[o] && w.connected(group[i], o) {
					seen[o] = true
					group = append(group, o)
				}
			}
		}
		if len(group) >= w.quorum() {
			w.elect(group)
		}
	}
	for _, s := range w.servers {
		if s.role == trace.RoleLooking {
			// Try again later; a restart or a heal calls a round at once.
			w.s.background(w.s.now+Time(time.Second), func() {
				if s.role == trace.RoleLooking {
					w.needElection()
				}
			})
			break
		}
	}
}

// betterVote reports whether a is a better leader than b, as ZooKeeper's
// election orders votes: the later epoch it last followed or led, then the
// later last logged zxid, then the higher id. The epoch comes first: a
// server that followed a later leader holds what that leader committed,
// whatever proposals of an earlier epoch another has logged (one that led
// an epoch in between, whose proposals were never committed, would
// otherwise win with its higher zxid and lose a committed transaction).
func betterVote(a, b *server) bool {
	if a.acceptedEpoch != b.acceptedEpoch {
		return a.acceptedEpoch > b.acceptedEpoch
	}
	if z, bz := a.lastLogged(), b.lastLogged(); z != bz {
		return z > bz
	}
	return a.idx > b.idx
}

// elect makes the best server of group the leader of a new epoch and syncs
// the others with it.
func (w *World) elect(group []*server) {
	best := group[0]
	epoch := int64(0)
	for _, s := range group {
		if betterVote(s, best) {
			best = s
		}
		epoch = max(epoch, s.acceptedEpoch)
	}
	epoch++
	l := best
	l.role = trace.RoleLeading
	l.gen++
	l.applyAt, l.applyTo = 0, 0 // an earlier regime's applies are dropped
	l.acceptedEpoch = epoch
	n := len(w.servers)
	l.ld = &leaderState{s: l, epoch: epoch, gens: make([]uint64, n), heard: make([]Time, n), joined: make([]bool, n),
		tracker: map[int64]*tracked{}}
	w.s.record(trace.Record{Kind: trace.KRole, From: l.actor, Arg: int64(trace.RoleLeading), Zxid: epoch << 32,
		Path: fmt.Sprintf("elected leader of epoch %d", epoch)})
	// Everything in the new leader's log is committed in the new epoch.
	l.durable = len(l.log)
	l.catchUp(len(l.log))
	// The sessions' servers are not known yet: a session is owned by the
	// server it next connects or reconnects through.
	for _, id := range sortedSessions(l.tree.sessions) {
		l.ld.track(id, l.tree.sessions[id], -1)
	}
	l.startLeading()
	for _, s := range group {
		if s != l {
			w.join(s, l)
		}
	}
}

// join syncs follower f with leader l: f takes l's log (dropping any
// proposal l does not have), applies what is committed, logs and
// acknowledges what is not yet, and starts following.
func (w *World) join(f, l *server) {
	if f.applied > len(l.log) {
		panic(fmt.Sprintf("sim: s%d applied %d transactions, more than leader s%d logged (%d): a committed transaction was lost",
			f.idx+1, f.applied, l.idx+1, len(l.log)))
	}
	for i := 0; i < f.applied; i++ {
		if f.log[i] != l.log[i] {
			panic(fmt.Sprintf("sim: s%d applied zxid %#x where leader s%d has %#x", f.idx+1, f.log[i].zxid, l.idx+1, l.log[i].zxid))
		}
	}
	f.log = append(f.log[:0:0], l.log...)
	f.durable = len(f.log)
	f.acceptedEpoch = l.ld.epoch
	f.role = trace.RoleFollowing
	f.gen++
	f.leader, f.leaderGen = l, l.gen
	f.heardLeader = w.s.now
	l.ld.followers = insertByIndex(l.ld.followers, f)
	l.ld.joined[f.idx], l.ld.gens[f.idx], l.ld.heard[f.idx] = true, f.gen, w.s.now
	w.s.record(trace.Record{Kind: trace.KRole, From: f.actor, Arg: int64(trace.RoleFollowing), Path: fmt.Sprintf("follows s%d", l.idx+1)})
	f.catchUp(l.commit)
	for i := l.commit; i < len(f.log); i++ {
		z := f.log[i].zxid
		f.toLeader(peerMsg{kind: pmAck, zxid: z})
	}
	f.startFollowing()
}

// catchUp brings the tree up to the first n log entries, rebuilding it
// from the start after a restart.
func (s *server) catchUp(n int) {
	s.commit = max(s.commit, n)
	s.applyUpTo(n)
}

func insertByIndex(list []*server, s *server) []*server {
	for i, x := range list {
		if x == s {
			return list
		}
		if x.idx > s.idx {
			list = append(list, nil)
			copy(list[i+1:], list[i:])
			list[i] = s
			return list
		}
	}
	return append(list, s)
}

// crash stops s at once: its connections break, it forgets everything but
// its durable log, and it neither answers nor sends until it restarts.
func (w *World) crash(s *server) {
	if s.role == trace.RoleDown {
		return
	}
	w.s.record(trace.Record{Kind: trace.KRole, From: s.actor, Arg: int64(trace.RoleDown), Path: "crashed"})
	s.closePeers()
	s.stopServing()
	// What it sent that still waits on a cut link is not lost: its
	// machine's TCP stack goes on sending it, then the close, when the link
	// heals.
	s.role = trace.RoleDown
	s.gen++
	s.log = s.log[:s.durable]
	s.reset()
	w.needElection()
}

// restart brings a crashed server back: it rebuilds nothing yet (it will
// replay the leader's log when it joins) and looks for a leader.
func (w *World) restart(s *server) {
	if s.role != trace.RoleDown {
		return
	}
	s.role = trace.RoleLooking
	s.gen++
	w.s.record(trace.Record{Kind: trace.KRole, From: s.actor, Arg: int64(trace.RoleLooking), Path: "restarted"})
	w.electionAt = 0
	w.needElection()
}
