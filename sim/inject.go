package sim

import (
	"fmt"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/trace"
)

// faultPlan holds a run's faults that wait for their trigger, and counts
// the events they wait for.
type faultPlan struct {
	w       *World
	pending []fault.Fault
	counts  map[fault.Trigger]int // (client, op, moment) → how many so far (Nth unused)
	// moments says which moments some fault is tied to: the hooks of the
	// others need count nothing (a server receives, answers and notifies
	// on every request).
	moments [fault.OnFailed + 1]bool
}

// hit is where a triggered fault strikes: the server at which the event
// happened, the connection it happened on, and the request (none for a
// notification).
type hit struct {
	s   *server
	cn  *conn
	req *request
}

// effect is what the faults a trigger struck do to the triggering message.
type effect struct {
	taken bool // lost (with its connection), or never sent by a crashed server
	delay Time // it leaves this much later
}

// Inject adds the faults of sched to the run: faults at a time are
// scheduled, faults tied to an event wait for it. It checks that every
// target exists: call it after spawning the clients and before Run (a
// fault tied to an event counts its events from the start).
func (w *World) Inject(sched fault.Schedule) error {
	for _, f := range sched {
		if err := w.checkTargets(f); err != nil {
			return err
		}
	}
	for _, f := range sched {
		if f.When != nil {
			if w.faults == nil {
				w.faults = &faultPlan{w: w, counts: map[fault.Trigger]int{}}
			}
			w.faults.pending = append(w.faults.pending, f)
			w.faults.moments[f.When.On] = true
			continue
		}
		w.s.at(Time(f.At), func() { w.strike(f, hit{}) })
	}
	return nil
}

// checkTargets reports a fault naming a server or client the run lacks.
func (w *World) checkTargets(f fault.Fault) error {
	if w.cfg.Outside {
		return w.checkServers(f)
	}
	for _, t := range []fault.Target{f.A, f.B} {
		switch {
		case t.Kind == fault.ServerT && t.Index >= len(w.servers):
			return fmt.Errorf("fault %q: no server %s in an ensemble of %d", f, t, len(w.servers))
		case t.Kind == fault.ClientT && t.Index >= len(w.clients):
			return fmt.Errorf("fault %q: no client %s among %d", f, t, len(w.clients))
		}
	}
	if f.When != nil && f.When.Client >= len(w.clients) {
		return fmt.Errorf("fault %q: no client c%d among %d", f, f.When.Client+1, len(w.clients))
	}
	return nil
}

// checkServers reports a fault naming a server the run lacks.
func (w *World) checkServers(f fault.Fault) error {
	for _, t := range []fault.Target{f.A, f.B} {
		if t.Kind == fault.ServerT && t.Index >= len(w.servers) {
			return fmt.Errorf("fault %q: no server %s in an ensemble of %d", f, t, len(w.servers))
		}
	}
	return nil
}

// absentClient is, for a fault that names a client not (yet) in the
// world, that client's name; "" when every client it names is there.
func (w *World) absentClient(f fault.Fault) string {
	for _, t := range []fault.Target{f.A, f.B} {
		if t.Kind == fault.ClientT && t.Index >= len(w.clients) {
			return t.String()
		}
	}
	return ""
}

// onReply is called as server s is about to answer req, which it applied:
// it counts an applied request, and a failed one when the answer is an
// error.
func (p *faultPlan) onReply(s *server, req *request) effect {
	at := hit{s, req.cn, req}
	eff := p.on(fault.Trigger{Client: req.cn.client.idx, Op: req.op, On: fault.OnApplied}, at)
	if req.rep.code != 0 {
		more := p.on(fault.Trigger{Client: req.cn.client.idx, Op: req.op, On: fault.OnFailed}, at)
		eff.taken = eff.taken || more.taken
		eff.delay += more.delay
	}
	return eff
}

// onReceive is called as server s receives req, before it acts on it.
func (p *faultPlan) onReceive(s *server, req *request) effect {
	return p.on(fault.Trigger{Client: req.cn.client.idx, Op: req.op, On: fault.OnReceived}, hit{s, req.cn, req})
}

// onNotify is called as server s is about to send a watch notification on
// connection c.
func (p *faultPlan) onNotify(s *server, c *conn) effect {
	return p.on(fault.Trigger{Client: c.client.idx, On: fault.OnNotified}, hit{s: s, cn: c})
}

// Holds tells the run that client (0-based) holds a lock or a leadership
// once more, as its workload sees it: the faults tied to "cN holds#K"
// strike now, at the instant the acquisition returned.
func (w *World) Holds(client int) {
	if w.faults != nil {
		w.faults.on(fault.Trigger{Client: client, On: fault.OnHolds}, hit{})
	}
}

// on counts the event key and strikes the faults it triggers.
func (p *faultPlan) on(key fault.Trigger, at hit) effect {
	if !p.moments[key.On] {
		return effect{}
	}
	p.counts[key]++
	n := p.counts[key]
	var eff effect
	kept := p.pending[:0]
	for _, f := range p.pending {
		if t := f.When; t.Client == key.Client && t.Op == key.Op && t.On == key.On && t.Nth == n {
			e := p.w.strike(f, at)
			eff.taken = eff.taken || e.taken
			eff.delay += e.delay
			continue
		}
		kept = append(kept, f)
	}
	p.pending = kept
	return eff
}

// strike carries out f now. For a fault tied to an event, at says where the
// event happened; strike says what becomes of the triggering message.
func (w *World) strike(f fault.Fault, at hit) effect {
	if name := w.absentClient(f); name != "" {
		w.s.record(trace.Record{Kind: trace.KNote, From: trace.WorldActor, Path: fmt.Sprintf("fault %q: no client %s yet: it does nothing", f, name)})
		return effect{}
	}
	w.s.recordFault(f, f.String())
	w.struck, w.struckAt = append(w.struck, f), append(w.struckAt, w.s.now)
	switch f.Kind {
	case fault.Crash:
		return w.strikeCrash(f, at)
	case fault.Restart:
		w.restart(w.serverOf(f.A, at))
	case fault.Partition:
		w.setCut(f.A, f.B, true)
		if f.For > 0 {
			w.s.at(w.s.now+Time(f.For), func() { w.strike(fault.Fault{Kind: fault.Heal, A: f.A, B: f.B}, hit{}) })
		}
	case fault.OneWay:
		w.cutOneWay(f.A, f.B)
		if f.For > 0 {
			w.s.at(w.s.now+Time(f.For), func() { w.strike(fault.Fault{Kind: fault.Heal, A: f.A, B: f.B}, hit{}) })
		}
	case fault.Isolate:
		w.isolate(f)
	case fault.Heal:
		if f.A.Kind == fault.NoTarget {
			w.healAll()
		} else {
			w.setCut(f.A, f.B, false)
		}
		w.electionAt = 0
		w.needElection()
	case fault.Pause:
		if f.A.Kind != fault.ClientT {
			w.pauseServer(w.serverOf(f.A, at), Time(f.D))
		} else {
			w.clients[f.A.Index].Pause(f.D)
		}
	case fault.Spike:
		until := w.s.now + Time(f.For)
		w.eachLink(func(l *link) { l.spike, l.spikeUntil = Time(f.D), until })
	case fault.Disconnect:
		w.disconnect(f)
	case fault.Expire:
		w.expire(f.A.Index)
	case fault.Lag:
		w.lag(w.serverOf(f.A, at), Time(f.For))
	case fault.LoseReply, fault.LoseRequest:
		if at.cn != nil && at.s != nil {
			at.s.closeConn(at.cn)
			return effect{taken: true}
		}
	case fault.Delay:
		return effect{delay: Time(f.D)}
	}
	return effect{}
}

// serverOf is the server a target names when a fault strikes.
func (w *World) serverOf(t fault.Target, at hit) *server {
	switch t.Kind {
	case fault.ServerT:
		return w.servers[t.Index]
	case fault.ApplierT:
		return at.s
	case fault.LeaderT:
		for _, x := range w.servers {
			if x.role == trace.RoleLeading {
				return x
			}
		}
	}
	return nil
}

// strikeCrash crashes the server f names.
func (w *World) strikeCrash(f fault.Fault, at hit) effect {
	target := w.serverOf(f.A, at)
	if target == nil {
		w.s.record(trace.Record{Kind: trace.KNote, From: trace.WorldActor, Path: "no leader to crash"})
		return effect{}
	}
	if f.For > 0 {
		w.s.at(w.s.now+Time(f.For), func() { w.restart(target) })
	}
	if target == at.s {
		// Crash right after the event, before answering: the crash is
		// carried out as the next event of this instant, once the server
		// has finished the transaction it is applying. It answers nothing
		// more meanwhile: the connection of the request whose answer it
		// never sends closes now (a later answer on it would overtake the
		// lost one).
		if at.cn != nil {
			at.s.closeConn(at.cn)
		}
		w.s.at(w.s.now, func() { w.crash(target) })
		return effect{taken: true}
	}
	w.crash(target)
	return effect{}
}

// isolate cuts a server from every server and client, for f.For if set.
func (w *World) isolate(f fault.Fault) { w.cutOff(f.A, Time(f.For), "isolation over") }

// pauseServer stops server s for d, as SIGSTOP stops its process:
// nothing it was sent is read and nothing it would send leaves until it
// resumes, its connections staying open (what was sent waits, as TCP
// keeps it). The others see it as cut off, and it is modelled as such: an
// isolation for f.D, which they notice by their own timeouts (a follower
// gives its leader up after syncLimit ticks without a ping, a client after
// its read timeout). Unlike a stopped process, the server keeps its own
// timers meanwhile: a paused leader steps down during the pause rather
// than at its first tick after it, which nobody can tell apart, since it
// sends nothing in between.
func (w *World) pauseServer(s *server, d Time) {
	if s == nil {
		w.s.record(trace.Record{Kind: trace.KNote, From: trace.WorldActor, Path: "no leader to pause"})
		return
	}
	w.cutOff(fault.Target{Kind: fault.ServerT, Index: s.idx}, d, "pause over")
}

// cutOff cuts server t from every server and client, for d if set; over
// is what the trace says when it ends.
func (w *World) cutOff(t fault.Target, d Time, over string) {
	x := w.servers[t.Index]
	cutAll := func(cut bool) {
		for _, o := range w.servers {
			if o != x {
				w.setCut(t, fault.Target{Kind: fault.ServerT, Index: o.idx}, cut)
			}
		}
		for _, c := range w.clients {
			w.setCut(t, fault.Target{Kind: fault.ClientT, Index: c.idx}, cut)
		}
	}
	cutAll(true)
	if d > 0 {
		w.s.at(w.s.now+d, func() {
			w.s.recordFault(fault.Fault{At: w.s.now.Std(), Kind: fault.Heal, A: t}, "heal "+t.String()+" ("+over+")")
			cutAll(false)
			w.electionAt = 0
			w.needElection()
		})
	}
}

// disconnect cuts a client process from every server, for f.For if set:
// the cable pulled out of the client's machine.
func (w *World) disconnect(f fault.Fault) {
	cutAll := func(cut bool) {
		for _, s := range w.servers {
			w.setCut(fault.Target{Kind: fault.ServerT, Index: s.idx}, f.A, cut)
		}
	}
	cutAll(true)
	if f.For > 0 {
		w.s.at(w.s.now+Time(f.For), func() {
			w.s.recordFault(fault.Fault{At: w.s.now.Std(), Kind: fault.Heal, A: f.A}, "heal "+f.A.String()+" (disconnect over)")
			cutAll(false)
		})
	}
}

// Expire has the leader expire client's sessions now (0-based), as the
// fault "expire cN" does: what a live test does by resuming the session on
// a second connection and closing it there (live.ExpireSession). It is
// called from a client process or a World.At callback, during Run.
func (w *World) Expire(client int) { w.expire(client) }

// expire has the leader expire every session client idx's process opened
// that it still tracks, as its session tracker does when a timeout passes:
// it proposes closeSession, the session's ephemeral nodes go, and the
// client learns of it when it next reaches a server.
func (w *World) expire(idx int) {
	var ld *leaderState
	for _, s := range w.servers {
		if s.role == trace.RoleLeading {
			ld = s.ld
		}
	}
	if ld == nil {
		w.s.record(trace.Record{Kind: trace.KNote, From: trace.WorldActor, Path: fmt.Sprintf("no leader to expire c%d's session", idx+1)})
		return
	}
	expired := 0
	for _, o := range w.owners {
		t := ld.tracker[o.id]
		if o.client != idx || t == nil || t.closing {
			continue
		}
		w.s.record(trace.Record{Kind: trace.KExpire, From: ld.s.actor, Sess: o.id})
		t.closing = true
		ld.s.propose(&txn{op: client.OpCloseSession, sess: o.id, origin: -1})
		expired++
	}
	if expired == 0 {
		w.s.record(trace.Record{Kind: trace.KNote, From: trace.WorldActor, Path: fmt.Sprintf("c%d has no session to expire", idx+1)})
	}
}

// lag makes s apply nothing for d: it goes on logging, acknowledging and
// answering reads from its tree as it stands, and catches up when d has
// passed (a slow disk, a long collection on the server). A sync through it
// is answered only once it has caught up. A crash or a new leader ends the
// lag.
func (w *World) lag(s *server, d Time) {
	if s == nil || s.role == trace.RoleDown {
		return
	}
	s.lagUntil, s.lagGen = w.s.now+d, s.gen
	gen := s.gen
	w.s.at(s.lagUntil, func() {
		if s.gen != gen || s.role == trace.RoleDown {
			return
		}
		w.s.record(trace.Record{Kind: trace.KNote, From: s.actor, Path: "catches up"})
		s.applyUpTo(s.commit)
	})
}

// lagging reports whether s applies nothing now.
func (s *server) lagging() bool { return s.lagGen == s.gen && s.w.s.now < s.lagUntil }

// setCut cuts (or heals) both directions between a and b.
func (w *World) setCut(a, b fault.Target, cut bool) {
	if a.Kind == fault.ClientT {
		a, b = b, a
	}
	var ls []*link
	switch {
	case a.Kind == fault.ServerT && b.Kind == fault.ServerT:
		ls = []*link{w.peers[a.Index][b.Index], w.peers[b.Index][a.Index]}
	case a.Kind == fault.ServerT && b.Kind == fault.ClientT:
		lp := &w.clients[b.Index].links[a.Index]
		ls = []*link{&lp.up, &lp.down}
	}
	for _, l := range ls {
		if cut {
			l.cut = true
		} else {
			w.heal(l)
		}
	}
}

// cutOneWay cuts the link from a to b alone: what a sends b is held until
// the link heals, what b sends a goes on.
func (w *World) cutOneWay(a, b fault.Target) {
	switch {
	case a.Kind == fault.ServerT && b.Kind == fault.ServerT:
		w.peers[a.Index][b.Index].cut = true
	case a.Kind == fault.ServerT && b.Kind == fault.ClientT:
		w.clients[b.Index].links[a.Index].down.cut = true
	case a.Kind == fault.ClientT && b.Kind == fault.ServerT:
		w.clients[a.Index].links[b.Index].up.cut = true
	}
}

func (w *World) healAll() {
	w.eachLink(func(l *link) { w.heal(l) })
}

// eachLink visits every link, servers' first, in a fixed order.
func (w *World) eachLink(fn func(*link)) {
	for _, row := range w.peers {
		for _, l := range row {
			fn(l)
		}
	}
	for _, c := range w.clients {
		for i := range c.links {
			fn(&c.links[i].up)
			fn(&c.links[i].down)
		}
	}
}

// Struck is the faults that struck, in the order they did.
func (w *World) Struck() fault.Schedule { return w.struck }

// StruckAt is when each fault of Struck struck, in the same order.
func (w *World) StruckAt() []Time { return w.struckAt }
