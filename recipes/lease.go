package recipes

import (
	"context"
	"errors"
	"slices"
	"strings"

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

// sequenceOf is the sequence number a sequential node's name ends with (its
// last ten characters: an optional sign, then digits), or -1.
func sequenceOf(name string) int64 {
	if len(name) < 10 {
		return -1
	}
	s := name[len(name)-10:]
	neg := false
	switch s[0] {
	case '-':
		neg, s = true, s[1:]
	case '+':
		s = s[1:]
	}
	var n int64
	for i := 0; i < len(s); i++ {
		d := s[i] - '0'
		if d > 9 {
			return -1
		}
		n = n*10 + int64(d)
	}
	if neg {
		return -n
	}
	return n
}

// bySequence orders node names by their sequence suffix, whatever their
// prefix (read-, write-, a guid ...), as the recipes compare them.
func bySequence(a, b string) int {
	return compareSequenced(sequenceOf(a), a, sequenceOf(b), b)
}

func compareSequenced(sa int64, a string, sb int64, b string) int {
	switch {
	case sa < sb:
		return -1
	case sa > sb:
		return 1
	}
	return strings.Compare(a, b)
}

// sortBySequence sorts node names as bySequence orders them, reading each
// name's sequence number once.
func sortBySequence(names []string) {
	type keyed struct {
		seq  int64
		name string
	}
	ks := make([]keyed, len(names))
	for i, n := range names {
		ks[i] = keyed{sequenceOf(n), n}
	}
	slices.SortFunc(ks, func(a, b keyed) int { return compareSequenced(a.seq, a.name, b.seq, b.name) })
	for i, k := range ks {
		names[i] = k.name
	}
}

// base is the last component of a path.
func base(path string) string { return path[strings.LastIndexByte(path, '/')+1:] }

// recoverable reports whether err leaves the outcome of a write unknown:
// the connection was lost after the request went out (the recipes'
// "recoverable error").
func recoverable(err error) bool { return errors.Is(err, zk.ErrConnectionClosed) }

// retryable reports whether a request failed without being applied and can
// simply be sent again once the session reconnects.
func retryable(err error) bool { return errors.Is(err, zk.ErrNoServer) }

// ensurePath creates path and its missing parents as persistent nodes.
func ensurePath(ctx context.Context, conn client.Conn, path string) error {
	for i := 1; i <= len(path); i++ {
		if i < len(path) && path[i] != '/' {
			continue
		}
		p := path[:i]
		for {
			_, err := conn.Create(ctx, p, nil, 0, zk.WorldACL(zk.PermAll))
			if err == nil || errors.Is(err, zk.ErrNodeExists) {
				break
			}
			if !recoverable(err) && !retryable(err) && !errors.Is(err, zk.ErrSessionExpired) {
				return err
			}
			// The outcome is unknown, or it was not sent, or the session
			// expired (the client opens another, and one that gives a
			// session up by its own clock does so after a timeout without
			// a server): try again; a create that did happen answers
			// NodeExists. A persistent node outlives any session.
		}
	}
	return nil
}

// cleanup is the context for removing what a call created after its own
// context ended: not cancelled with it, but bounded.
func cleanup(ctx context.Context, conn client.Conn) (context.Context, context.CancelFunc) {
	return conn.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
}
