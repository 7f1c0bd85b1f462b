package zksimtest_test

import (
	"context"
	"errors"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/recipes"
)

// nodeLock is a user's own lock, the simplest there is: the holder owns
// one ephemeral node, and a waiter waits for that node to go. It recovers
// from a lost create() reply by asking whose the node is: its own
// session's means it got the lock.
type nodeLock struct {
	conn     client.Conn
	dir      string
	careless bool // a mistake the tests make: trust NodeExists after a lost reply
	// blind is another: Unlock deletes the node and, after a lost reply,
	// deletes it again without looking whose it is now.
	blind bool
}

func (l *nodeLock) node() string { return l.dir + "/holder" }

func (l *nodeLock) Lock(ctx context.Context) (*recipes.Lease, error) {
	if err := l.ensureDir(ctx); err != nil {
		return nil, err
	}
	for {
		_, err := l.conn.Create(ctx, l.node(), nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
		switch {
		case err == nil:
			lease, err := l.grant(ctx)
			if errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrNoServer) {
				// The node is ours but the check's answer was lost: the
				// next create says NodeExists, and only its owner tells
				// whether it is ours (zksimtest found this mistake too,
				// with a fault tied to the read: the first version waited
				// behind its own node for ever).
				continue
			}
			return lease, err
		case errors.Is(err, zk.ErrConnectionClosed), errors.Is(err, zk.ErrNoServer):
			continue // the create may have been applied: NodeExists and its owner will say
		case !errors.Is(err, zk.ErrNodeExists):
			return nil, err
		}
		ok, st, w, err := l.conn.ExistsW(ctx, l.node())
		if err != nil {
			if errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrNoServer) {
				continue
			}
			return nil, err
		}
		if ok && !l.careless && st.EphemeralOwner == l.conn.SessionID() {
			// Ours: a create of ours was applied after all, or a release
			// of ours gave up (its deadline passed while no server could
			// answer) and left it; the session that owns it is ours, so we
			// hold the lock. (zksimtest found the lock that asked this only
			// after a lost create reply waiting behind its own node, after
			// a release cut short by a loss of quorum.)
			return l.grant(ctx)
		}
		if ok {
			if _, err := w.Wait(ctx); err != nil {
				return nil, err
			}
		}
	}
}

func (l *nodeLock) grant(ctx context.Context) (*recipes.Lease, error) {
	ok, st, err := l.conn.Exists(ctx, l.node())
	if err != nil {
		return nil, err
	}
	if !ok || st.EphemeralOwner != l.conn.SessionID() {
		return nil, zk.ErrSessionExpired // lost it already: the caller retries
	}
	// The node's czxid grows with each grant: a fencing token.
	return recipes.NewLease(l.conn, l.node(), st.Czxid, st.Czxid), nil
}

// Unlock deletes the node, only while it is ours: after a lost delete
// reply the node may already be the next holder's, and a blind second
// delete would take the lock from it (zksimtest found that mistake in the
// first version of this lock). Nobody else can create the node while ours
// exists, so deleting right after seeing ours is safe, if what we see is
// up to date: after a lost reply the server we are on now may not have
// applied our delete yet, and shows our node where the next holder's is
// (zksimtest found that too, once the simulator's leader could apply a
// write after a follower had answered it): recipes.UpToDate first.
func (l *nodeLock) Unlock(ctx context.Context) error {
	if l.blind {
		return l.unlockBlindly(ctx)
	}
	for retry := false; ; retry = true {
		if retry {
			if err := recipes.UpToDate(ctx, l.conn); err != nil {
				if errors.Is(err, zk.ErrSessionExpired) {
					return nil // the node went with the session
				}
				return err
			}
		}
		ok, st, err := l.conn.Exists(ctx, l.node())
		switch {
		case errors.Is(err, zk.ErrConnectionClosed), errors.Is(err, zk.ErrNoServer):
			continue
		case errors.Is(err, zk.ErrSessionExpired):
			return nil // the node went with the session
		case err != nil:
			return err
		case !ok || st.EphemeralOwner != l.conn.SessionID():
			return nil // gone, or the next holder's
		}
		err = l.conn.Delete(ctx, l.node(), -1)
		if err == nil || errors.Is(err, zk.ErrNoNode) || errors.Is(err, zk.ErrSessionExpired) {
			return nil
		}
		if !errors.Is(err, zk.ErrConnectionClosed) && !errors.Is(err, zk.ErrNoServer) {
			return err
		}
	}
}

// unlockBlindly is the blind mistake: the first version of Unlock.
func (l *nodeLock) unlockBlindly(ctx context.Context) error {
	for {
		err := l.conn.Delete(ctx, l.node(), -1)
		if err == nil || errors.Is(err, zk.ErrNoNode) || errors.Is(err, zk.ErrSessionExpired) {
			return nil
		}
		if !errors.Is(err, zk.ErrConnectionClosed) && !errors.Is(err, zk.ErrNoServer) {
			return err
		}
	}
}

func (l *nodeLock) ensureDir(ctx context.Context) error {
	for _, p := range []string{"/zksim", l.dir} {
		for {
			_, err := l.conn.Create(ctx, p, nil, 0, zk.WorldACL(zk.PermAll))
			if err == nil || errors.Is(err, zk.ErrNodeExists) {
				break
			}
			if !errors.Is(err, zk.ErrConnectionClosed) && !errors.Is(err, zk.ErrNoServer) {
				return err
			}
		}
	}
	return nil
}
