package sim

import (
	"context"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/trace"
)

// Client is one simulated client process and its ZooKeeper session. It
// implements client.Conn, and on the client side it behaves as
// go-zookeeper/zk does:
//
//   - It connects to the servers in an order drawn from the run's source,
//     moving on to the next after a connection is lost; when it comes back
//     round to the server it last had a session with, it first fails the
//     requests queued meanwhile with zk.ErrNoServer and waits a second.
//   - It pings every third of the negotiated session timeout and declares
//     the connection lost after two thirds of it without hearing from the
//     server, failing in-flight requests with zk.ErrConnectionClosed.
//   - Requests made while disconnected are queued and sent on reconnection.
//   - On reconnection it re-registers its watches with the last zxid it saw;
//     the server fires those whose nodes changed meanwhile.
//   - It learns that its session expired only when it reconnects: it then
//     reports zk.StateExpired, fires every watcher with an
//     zk.EventNotWatching event carrying zk.ErrSessionExpired, and opens a
//     new session.
//   - A watch event goes to every watcher the library would give it to:
//     NodeCreated to exists watchers, NodeDataChanged to exists and data
//     watchers, NodeChildrenChanged to child watchers, NodeDeleted to all.
type Client struct {
	w     *World
	idx   int
	name  string
	actor trace.Actor

	hosts      []int // server indices in connection order
	only       []int // the servers its connect string names (nil: all)
	curr, last int
	cn         *conn
	state      zk.State
	sessionID  int64
	timeoutMs  int32
	recvTO     Time
	pingEvery  Time
	lastZxid   int64
	xid        int32
	inflight   []*request
	queued     []*request
	watchers   map[watchKey][]*simWatch
	// spareWatchers are emptied lists of watchers, for addWatcher to use
	// again (see fireWatchers).
	spareWatchers [][]*simWatch
	subs          []*subscription
	lastRecv      Time
	links         []linkPair // to each server: the process's, shared by its sessions
	connGen       uint64
	pingOwed      bool // a ping fell due while paused
	exited        bool // the session is over: closed, or its process returned
	closing       bool // Close has begun

	// creds are the credentials AddAuth added, sent again on each new
	// connection as go-zk does.
	creds []authCred
	// persistent are the session's persistent watches (persistent.go).
	persistent []*persistentWatch

	p *process // the process the session belongs to
	// lostAt is when the session last stopped being usable (left
	// zk.StateHasSession), for Config.LocalSessionLoss.
	lostAt Time
	// onNote is told of each watch notification as it arrives
	// (OnNotification).
	onNote func(zk.Event)
	// outside is set when the client process is outside the simulator
	// (outside.go): what reaches it goes to the front end.
	outside *Outside
}

// OnNotification has fn told of every watch notification the session
// receives from its server, in the order they arrive, before any watcher
// fires (fn must not block): the order a live client sees on the wire
// (live.ClientFaults.OnNotification), which the differential tests
// compare.
func (c *Client) OnNotification(fn func(zk.Event)) { c.onNote = fn }

var (
	_ client.Conn   = (*Client)(nil)
	_ client.Pauser = (*Client)(nil)
)

// Name is the client's name in traces and reports.
func (c *Client) Name() string { return c.name }

// ---- session state and connection ----------------------------------------

// ---- watches -----------------------------------------------------------

var eventWatchTypes = map[zk.EventType][]watchType{
	zk.EventNodeCreated:         {watchExist},
	zk.EventNodeDataChanged:     {watchExist, watchData},
	zk.EventNodeChildrenChanged: {watchChild},
	zk.EventNodeDeleted:         {watchExist, watchData, watchChild},
}

// ---- subscriptions -----------------------------------------------------

// SessionTimeout is the session timeout the server negotiated, or before
// the first session the one the client asks for.
func (c *Client) SessionTimeout() time.Duration {
	return time.Duration(c.timeoutMs) * time.Millisecond
}

// Server names the server the client is connected to ("s2"), or "" when it
// has no connection, as go-zookeeper/zk's Server names its host.
func (c *Client) Server() string {
	if c.cn == nil {
		return ""
	}
	return c.w.trace.ActorName(c.cn.srv.actor)
}

// SessionID implements client.Conn.
func (c *Client) SessionID() int64 { return c.sessionID }

// State implements client.Conn.
func (c *Client) State() zk.State { return c.state }

// ---- time --------------------------------------------------------------

// Now implements client.Clock: the virtual time as a wall-clock instant.
func (c *Client) Now() time.Time { return c.w.s.now.Wall() }

// Sleep implements client.Clock in virtual time.
func (c *Client) Sleep(ctx context.Context, d time.Duration) error {
	return c.p.current().sleep(ctx, Time(d))
}

// WithTimeout implements client.Clock in virtual time.
func (c *Client) WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return c.w.s.withTimeout(ctx, Time(d))
}

// ---- the operations ------------------------------------------------------
