package sim

import (
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/trace"
)

// A client process outside the simulator: a real ZooKeeper client (Java,
// Python, go-zookeeper/zk) whose frames a front end outside sim (package
// serve) decodes and hands in, and to which it writes back what the
// servers answer. The simulator holds what it holds of any client process:
// its name, its network (a link to each server, which partitions and
// disconnects cut) and the sessions the servers opened for it; the
// session's logic (connecting, pinging, timing out, reconnecting, the
// library's watch bookkeeping) is the real client's own. Faults strike it
// as they strike a simulated client, but a pause, which the front end
// carries out on the real process (Outside.OnPause).
//
// An outside client is driven, never run: nothing it does enters the
// world but through Wire.Send and Wire.Close, called by the front end
// between World.RunUntil steps, at the virtual time the frame arrived.

// Outside is one client process outside the simulator.
type Outside struct {
	c *Client // its record among the world's clients: name, index, actor, links
	// OnAnswer is told of every message that reaches the client's end of
	// one of its connections: a reply, a watch notification, a connect
	// answer, or the server closing the connection (Answer.EOF). It runs
	// inside World.RunUntil and must not block.
	OnAnswer func(*Wire, *Answer)
	// OnPause carries out "pause cN" on the real process (SIGSTOP, then
	// SIGCONT after d). Nil: the fault is noted in the trace and does
	// nothing (a process zksim did not start cannot be paused).
	OnPause func(d Time)
}

// Wire is one connection from an outside client to one server.
type Wire struct {
	o  *Outside
	cn *conn
}

// NewOutside adds a client process outside the simulator, named name (c<N>
// when empty, N its place among the world's clients). It may be added
// before or during a run; faults name it as cN from then on.
func (w *World) NewOutside(name string) *Outside {
	idx := len(w.clients)
	if name == "" {
		name = fmt.Sprintf("c%d", idx+1)
	}
	p := &process{s: w.s, links: make([]linkPair, len(w.servers))}
	c := &Client{w: w, idx: idx, name: name, actor: trace.ClientActor(idx), p: p, links: p.links,
		curr: -1, last: -1, state: zk.StateDisconnected}
	o := &Outside{c: c}
	c.outside = o
	p.sessions = []*Client{c}
	w.trace.AddClient(name)
	w.clients = append(w.clients, c)
	w.s.record(trace.Record{Kind: trace.KSpawn, From: c.actor})
	return o
}

// Index is the client's place among the world's clients (0-based: c1 is
// 0), as faults name it.
func (o *Outside) Index() int { return o.c.idx }

// Name is the client's name in traces and reports.
func (o *Outside) Name() string { return o.c.name }

// SessionID is the last session a server opened or resumed for the client.
func (o *Outside) SessionID() int64 { return o.c.sessionID }

// Dial opens a connection from the client to server i (0-based), now: the
// real client's TCP connection was accepted. A crashed server refuses it
// (false): the front end closes the real connection at once. Across a cut
// link the connection opens, and what is sent on it waits, as TCP keeps
// it, until the link heals or the client gives up.
func (o *Outside) Dial(i int) (*Wire, bool) {
	w := o.c.w
	srv := w.servers[i]
	lp := &o.c.links[i]
	cn := &conn{srv: srv, client: o.c, up: &lp.up, down: &lp.down, auth: []authID{{"ip", "127.0.0.1"}}}
	if !srv.accept(cn) {
		w.s.record(trace.Record{Kind: trace.KNote, From: o.c.actor, To: srv.actor, Path: "connection refused"})
		return nil, false
	}
	x := &Wire{o: o, cn: cn}
	cn.wire = x
	return x, true
}

// Server is the server the connection goes to (0-based).
func (x *Wire) Server() int { return x.cn.srv.idx }

// Close closes the connection from the client's side: the server detaches
// the session, which lives on until it reconnects or expires.
func (x *Wire) Close() {
	x.cn.toServer(false, nil)
}

// Send sends call on the connection, now.
func (x *Wire) Send(call *Call) {
	c := x.o.c
	req := call.request()
	if req.op == client.OpPing {
		c.w.s.record(trace.Record{Kind: trace.KPing, From: c.actor, To: x.cn.srv.actor})
		x.cn.toServer(true, req)
		return
	}
	c.w.s.record(trace.Record{Kind: trace.KSend, From: c.actor, To: x.cn.srv.actor, Op: req.op, Path: sendPath(req), Arg: int64(req.xid),
		Code: watchCode(req)})
	x.cn.toServer(false, req)
}

// deliver hands a message that reached the client's end of cn to the
// front end.
func (o *Outside) deliver(cn *conn, rep *reply) {
	defer o.c.w.recycle(rep)
	if cn.wire == nil || o.OnAnswer == nil {
		return
	}
	a := answerOf(rep)
	if rep.op == client.OpCreateSession {
		o.sessionAnswered(cn, rep.sessionID)
	}
	o.OnAnswer(cn.wire, a)
}

// sessionAnswered notes a connect answer that reached the client: the
// session it has now (its state, as the trace tells a simulated client's,
// so that a timeline and an explanation know whose session it is), or
// that the session it asked for is gone (Expired).
func (o *Outside) sessionAnswered(cn *conn, id int64) {
	state := zk.StateHasSession
	if id == 0 {
		state = zk.StateExpired
	} else {
		o.c.sessionID = id
	}
	o.c.w.s.record(trace.Record{Kind: trace.KState, From: o.c.actor, To: cn.srv.actor, Sess: id, Arg: int64(state)})
}

// pause carries out a pause fault on the real process, or notes that it
// cannot.
func (o *Outside) pause(d Time) {
	w := o.c.w
	if o.OnPause == nil {
		w.s.record(trace.Record{Kind: trace.KNote, From: trace.WorldActor, To: o.c.actor,
			Path: fmt.Sprintf("cannot pause %s: not a process zksim started", o.c.name)})
		return
	}
	w.s.record(trace.Record{Kind: trace.KPause, From: o.c.actor, Arg: int64(d)})
	o.OnPause(d)
	w.s.after(d, func() { w.s.record(trace.Record{Kind: trace.KResume, From: o.c.actor}) })
}

// ServerUp reports whether server i (0-based) is up: not crashed.
func (w *World) ServerUp(i int) bool { return w.servers[i].role != trace.RoleDown }

// Note puts free text in the trace, from the world about client o (nil:
// about none), now: what the front end did that the world cannot see (a
// connection closed over a frame it could not read).
func (w *World) Note(o *Outside, text string) {
	to := trace.WorldActor
	if o != nil {
		to = o.c.actor
	}
	w.s.record(trace.Record{Kind: trace.KNote, From: trace.WorldActor, To: to, Path: text})
}

// Clients are the names of the world's client processes, in order.
func (w *World) Clients() []string {
	names := make([]string, len(w.clients))
	for i, c := range w.clients {
		names[i] = c.name
	}
	return names
}

// Seed is the seed the world's choices are drawn from.
func (w *World) Seed() uint64 { return w.cfg.Seed }

// LongestSessionTimeout is the longest session timeout the servers
// granted any session of the run (0 before any): a served run's clients
// ask for their own (kazoo 10s, Curator 60s, which the servers cap), and
// the checks' liveness bound allows for the longest.
func (w *World) LongestSessionTimeout() time.Duration {
	var longest Time
	for _, o := range w.owners {
		longest = max(longest, o.timeout)
	}
	return longest.Std()
}
