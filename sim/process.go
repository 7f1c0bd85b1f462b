package sim

import (
	"context"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/trace"
)

// process is a client process: its tasks (the first runs the workload's
// body, the others it starts with Go), its network (a link to each server)
// and its pauses. It runs the session it was spawned with and any it opens
// with NewSession; they share its links, its clock and its pauses, as the
// sessions of one real process share its network card and its garbage
// collector.
type process struct {
	s        *Scheduler
	t        *Task   // its first task: the process ends when it returns
	tasks    []*Task // every task it started, t first
	alive    int     // how many of them have not ended
	links    []linkPair
	sessions []*Client // in the order they were opened; sessions[0] is the first
	paused   bool
	buffered []func() // what arrived or fell due while paused, in order
	// guids counts the guids its sessions' protected creates drew
	// (protected.go).
	guids int
}

// Pause stops the client's process for d of virtual time: its code does not
// run, none of its sessions sends heartbeats or handles what it receives
// until it resumes. On resuming each session first notices a connection
// silent for longer than its receive timeout, as a real client whose read
// deadline passed would.
func (c *Client) Pause(d time.Duration) {
	if c.outside != nil {
		c.outside.pause(Time(d))
		return
	}
	p := c.p
	if p.paused || p.t.state == taskDone {
		return
	}
	p.paused = true
	for _, t := range p.tasks {
		t.freeze()
	}
	c.w.s.record(trace.Record{Kind: trace.KPause, From: c.actor, Arg: int64(d)})
	c.w.s.after(Time(d), func() { p.resume(c) })
}

func (p *process) resume(c *Client) {
	if !p.paused {
		return
	}
	p.paused = false
	c.w.s.record(trace.Record{Kind: trace.KResume, From: c.actor})
	for _, t := range p.tasks {
		t.thaw()
	}
	buffered := p.buffered
	p.buffered = nil
	for _, sess := range p.sessions {
		sess.resumed()
	}
	for _, fn := range buffered {
		fn()
	}
}

// wake wakes every task of the process that waits: what one waits for
// (a watch, a session event, a timer, a mutex, another task) has come, or
// may have; each re-checks what it waits for.
func (p *process) wake() {
	for _, t := range p.tasks {
		t.wake()
	}
}

// wakeFor wakes the task of the process that waits for obj (a call's
// request); a process of one task, whatever it waits for.
func (p *process) wakeFor(obj any) {
	if len(p.tasks) == 1 {
		p.t.wake()
		return
	}
	for _, t := range p.tasks {
		if t.waitObj == obj {
			t.wake()
		}
	}
}

// current is the task of p running now. It panics unless one is: a
// session, a mutex or an event used from outside its own process (another
// goroutine, another client) would break the one-at-a-time rule silently.
// A task killed as its process ended unwinds instead.
func (p *process) current() *Task {
	t := p.s.cur
	if t != nil && t.killed {
		panic(killedSignal{})
	}
	if t == nil || t.p != p {
		panic(fmt.Sprintf("sim: client %s's session used outside its own process "+
			"(from another goroutine or another client)", p.t.name))
	}
	return t
}

// endTasks ends the process's other tasks where they wait, as its first
// task has returned.
func (p *process) endTasks() {
	for _, t := range p.tasks[1:] {
		p.s.kill(t)
	}
}

// resumed is a session's part of its process resuming: its receive
// deadline is checked, and a ping owed is sent.
func (c *Client) resumed() {
	if c.exited {
		return
	}
	if c.cn != nil && c.state == zk.StateHasSession {
		if idle := c.w.s.now - c.lastRecv; idle >= c.recvTO {
			c.w.s.record(trace.Record{Kind: trace.KTimeout, From: c.actor, To: c.cn.srv.actor, Arg: int64(idle)})
			c.drop(zk.ErrConnectionClosed)
			return
		}
		c.startReceiveDeadline()
		if c.pingOwed {
			c.ping()
		}
	}
	c.pingOwed = false
}

// exit ends every session when the process returns, as a process calling
// Close on each does as it ends, without waiting for the answers.
func (p *process) exit() {
	for _, c := range p.sessions {
		c.end()
	}
}

// end closes the session without waiting: a closeSession request if it has
// a session and a connection, otherwise nothing (a session left behind
// expires on the servers).
func (c *Client) end() {
	if c.exited {
		return
	}
	if c.cn != nil && c.state == zk.StateHasSession {
		c.xid++
		c.w.s.record(trace.Record{Kind: trace.KSend, From: c.actor, To: c.cn.srv.actor, Op: client.OpCloseSession, Arg: int64(c.xid)})
		c.cn.toServer(false, &request{op: client.OpCloseSession, xid: c.xid})
	}
	c.exited = true
	c.setState(zk.StateDisconnected)
}

// closeWait is how long Close waits for the server to answer its
// closeSession request, as go-zookeeper/zk's Close does.
const closeWait = Time(time.Second)

// Close implements client.Conn: it sends closeSession and waits up to a
// second for the answer (the server then has deleted the session's
// ephemeral nodes), then ends the session: its watches fire NotWatching
// with zk.ErrClosing, its state becomes Disconnected and later calls fail
// with zk.ErrConnectionClosed.
func (c *Client) Close() {
	t := c.p.current()
	if c.exited || c.closing {
		return
	}
	c.closing = true
	if c.sessionID != 0 && c.state == zk.StateHasSession && c.cn != nil {
		ctx, cancel := c.w.s.withTimeout(context.Background(), closeWait)
		req := &request{op: client.OpCloseSession}
		c.xid++
		req.xid = c.xid
		c.send(req)
		for !req.done {
			t.waitObj = req
			if t.park(ctx, waitReply, client.OpCloseSession, "") != nil {
				break
			}
		}
		cancel()
	}
	c.w.s.record(trace.Record{Kind: trace.KNote, From: c.actor, Path: "session closed by its process", Sess: c.sessionID})
	c.hangUp()
	c.exited = true
	c.invalidateWatches(zk.ErrClosing)
	c.failAll(zk.ErrConnectionClosed)
	if c.state != zk.StateDisconnected {
		c.setState(zk.StateDisconnected)
	}
}

// NewSession implements client.Conn: a new session of the same process,
// connecting to the servers in an order of its own. It has seen nothing
// (its last zxid is 0), so any server accepts it, a lagging one included.
func (c *Client) NewSession(ctx context.Context) (client.Conn, error) {
	c.p.current()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n := c.w.newSession(c.p, c.idx, c.name, c.only)
	c.w.s.record(trace.Record{Kind: trace.KNote, From: c.actor, Path: "opens a new session"})
	n.start()
	return n, nil
}
