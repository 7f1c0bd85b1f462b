package recipes

import (
	"context"
	"errors"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// ErrSuspended says the session disconnected while the lease was held: the
// holder's node still exists unless the session expires meanwhile, so the
// lease may be lost. A careful holder stops acting on what the lease
// protects until Verify says it still holds it.
var ErrSuspended = errors.New("recipes: the session disconnected: the lease may be lost")

// ErrLost says the session expired: the holder's ephemeral node is gone and
// someone else may hold the lease now.
var ErrLost = errors.New("recipes: the session expired: the lease is lost")

// Lease is what the holder of a lock, or a leader, holds: its node, and
// the fencing token a fenced resource compares to reject a stale holder.
//
// Policy on losing it: the lease follows the session. A disconnect
// suspends it (Check answers ErrSuspended): the holder cannot know whether
// its session survives, so it must not act on the protected resource until
// Verify confirms its node is still there, owned by its session. An expiry
// loses it (Check answers ErrLost) for good. Neither is noticed while the
// holder's process is paused; that is what fencing tokens are for.
type Lease struct {
	// Node is the path of the holder's node.
	Node string
	// Token is the node's sequence number: it grows with each grant, so a
	// resource that remembers the highest token it accepted rejects a
	// holder that lost the lease without knowing it.
	Token int64
	// Czxid is the zxid that created the node, also increasing.
	Czxid int64

	conn     client.Conn
	session  int64
	events   client.Subscription
	state    error // nil, ErrSuspended or ErrLost
	careless bool  // a teaching variant's lease: it never reports a loss
	// adopts is a teaching variant's lease: back with a session after a
	// loss, it takes its node's existence as proof that it still holds
	// the lease, whoever owns the node.
	adopts bool
	// holds, when set, is the recipe's own word on whether it still holds
	// (While).
	holds func() bool
}

// While has the lease end when holds says the holder no longer holds,
// besides when its session may be lost: the recipe's own flag, for a
// recipe whose holding can end while its session lives on (a leader latch
// a listener clears, a lock revoked by its own protocol). Check then
// reports ErrLost once holds returns false, and the holding workload, the
// checks and a fenced resource judge the flag, not only the session. It
// returns l.
func (l *Lease) While(holds func() bool) *Lease {
	l.holds = holds
	return l
}

// NewLease starts a lease on node for the session of conn, with the given
// fencing token (it must grow with each grant: a node's sequence number or
// its czxid will do). A lock or an election written outside this package
// grants its holder one, so that the holder, a workload or a fenced
// resource can tell when it may be lost.
func NewLease(conn client.Conn, node string, token, czxid int64) *Lease {
	l := newLease(conn, node, czxid)
	l.Token = token
	return l
}

// newLease starts following the session of conn for the lease on node.
func newLease(conn client.Conn, node string, czxid int64) *Lease {
	l := &Lease{Node: node, Token: sequenceOf(node), Czxid: czxid,
		conn: conn, session: conn.SessionID(), events: conn.SessionEvents()}
	// The subscription hears only what follows it: a disconnect handled
	// with the answer that granted the lease shows in the state alone.
	if conn.State() != zk.StateHasSession {
		l.state = ErrSuspended
	}
	return l
}

// Check reports, without blocking, whether the lease may be lost: nil,
// ErrSuspended or ErrLost.
func (l *Lease) Check() error {
	if l.careless {
		return nil
	}
	if l.holds != nil && !l.holds() {
		l.state = ErrLost
	}
	for {
		ev, ok := l.events.Poll()
		if !ok {
			return l.state
		}
		l.observe(ev)
	}
}

func (l *Lease) observe(ev zk.Event) {
	switch {
	case l.adopts && l.state != nil && ev.State == zk.StateHasSession:
		l.adopt()
	case l.state == ErrLost:
	case ev.State == zk.StateExpired || l.conn.SessionID() != l.session:
		l.state = ErrLost
	case ev.State == zk.StateDisconnected:
		l.state = ErrSuspended
	}
}

// adopt is the lease-adopts-old-node mistake: with a session again, it
// looks for its node and, finding it, holds the lease again under the
// session it has now. The node may belong to a session the client gave up
// while the servers still hold it: they will delete it when they expire
// that session, and hand the lock on. Lease.Verify compares the node's
// ephemeralOwner with the session, and an expiry is never undone.
func (l *Lease) adopt() {
	ok, _, err := l.conn.Exists(context.Background(), l.Node)
	if err == nil && ok {
		l.state, l.session = nil, l.conn.SessionID()
	}
}

// WaitLost blocks until the lease may be lost, and says how (ErrSuspended
// or ErrLost), or returns the context's error.
func (l *Lease) WaitLost(ctx context.Context) error {
	if l.careless {
		for { // it hears of the session's changes, and ignores them
			if _, err := l.events.Next(ctx); err != nil {
				return err
			}
		}
	}
	for l.Check() == nil {
		ev, err := l.events.Next(ctx)
		if err != nil {
			return err
		}
		l.observe(ev)
	}
	return l.state
}

// Verify checks, after a disconnect, that the holder's node still exists
// and belongs to the same session: then the lease holds again.
func (l *Lease) Verify(ctx context.Context) error {
	if err := l.Check(); err == ErrLost {
		return err
	}
	ok, st, err := l.conn.Exists(ctx, l.Node)
	if err != nil {
		return err
	}
	if !ok || st.EphemeralOwner != l.session || l.conn.SessionID() != l.session {
		l.state = ErrLost
		return ErrLost
	}
	l.state = nil
	return nil
}

// release stops following the session.
func (l *Lease) release() { l.events.Close() }
