package recipes

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// revokeMark is what a revoker writes into a holder's node: the holder
// must release the lock.
const revokeMark = "unlock"

// RevocableLock is the revocable shared lock recipe ("Revocable Shared
// Locks"): the shared lock, with one addition to step 1 of both protocols:
// right after create(), getData() with a watch on the node just created.
// When that watch fires the client calls getData() again, with a watch,
// and looks for the string "unlock", which asks it to release the lock.
//
// Revocation is cooperative: the holder must consent. The revoker asks
// (Revoke writes "unlock" into the holder's node) and the holder, which
// learns of it through Revoked or RevokePending, releases with Unlock.
// ForceRevoke is the variant that does not wait for consent forever.
//
// It needs no goroutine: the holder learns of a request by blocking in
// Revoked (on the watch), or by polling RevokePending between units of
// work.
type RevocableLock struct {
	shared *SharedLock

	watch client.Watch // the data watch on our node, one-shot
	data  []byte       // our node's data, as last read
}

var _ RevocableLocker = (*RevocableLock)(nil)

// NewRevocableLock returns the revocable shared lock whose lock node is
// dir. A revoker that holds nothing uses one only for Holders, Revoke and
// ForceRevoke.
func NewRevocableLock(conn client.Conn, dir string) *RevocableLock {
	r := &RevocableLock{shared: NewSharedLock(conn, dir)}
	r.shared.onCreate = r.read
	return r
}

// RLock obtains a read lock: SharedLock.RLock, with getData() and a watch
// on our node right after step 1.
func (r *RevocableLock) RLock(ctx context.Context) (*Lease, error) {
	r.watch, r.data = nil, nil
	return r.shared.RLock(ctx)
}

// Lock obtains the write lock: SharedLock.Lock, with getData() and a watch
// on our node right after step 1.
func (r *RevocableLock) Lock(ctx context.Context) (*Lease, error) {
	r.watch, r.data = nil, nil
	return r.shared.Lock(ctx)
}

// Unlock releases the lock: the holder's consent to a revocation.
func (r *RevocableLock) Unlock(ctx context.Context) error {
	r.watch, r.data = nil, nil
	return r.shared.Unlock(ctx)
}

// Holders lists the nodes that hold the lock now (see SharedLock.Holders).
func (r *RevocableLock) Holders(ctx context.Context) ([]string, error) {
	return r.shared.Holders(ctx)
}

// read is getData() on our node with a watch: the addition to step 1, and
// what the client does again whenever that watch fires.
func (r *RevocableLock) read(ctx context.Context, node string) error {
	for {
		data, _, w, err := r.shared.conn.GetW(ctx, node)
		switch {
		case err == nil:
			r.watch, r.data = w, data
			return nil
		case transient(err):
			continue
		case errors.Is(err, zk.ErrNoNode):
			return ErrNodeVanished
		}
		return err
	}
}

// Revoked blocks until the holder is asked to release the lock (it returns
// nil: the holder should Unlock), or its node vanished (ErrNodeVanished:
// a forced revocation, or the session expired), or the session expired
// (ErrLost), or ctx ends (ctx's error). A request written while the client
// still waited for the lock is reported as soon as it holds it.
func (r *RevocableLock) Revoked(ctx context.Context) error {
	_, err := r.check(ctx, true)
	return err
}

// RevokePending reports, without waiting for a notification, whether the
// holder has been asked to release the lock: if our node's watch fired, it
// reads the node again (one getData() with a watch). Its errors are
// Revoked's.
func (r *RevocableLock) RevokePending(ctx context.Context) (bool, error) {
	return r.check(ctx, false)
}

// check looks for "unlock" in our node's data; while it is not there, it
// waits for the node's watch (or, when !block, takes it only if it fired),
// then reads the node again with a watch.
func (r *RevocableLock) check(ctx context.Context, block bool) (bool, error) {
	if r.shared.node == "" || r.watch == nil {
		return false, fmt.Errorf("%w: no revocable lock held or sought", ErrNotHeld)
	}
	for {
		if string(r.data) == revokeMark {
			return true, nil
		}
		ev, fired := r.watch.Poll()
		if !fired && !block {
			return false, nil // no notification yet
		}
		if !fired {
			var err error
			if ev, err = r.watch.Wait(ctx); err != nil {
				return false, err
			}
		}
		switch ev.Type {
		case zk.EventNotWatching:
			return false, ErrLost
		case zk.EventNodeDeleted:
			return false, ErrNodeVanished
		}
		if err := r.read(ctx, r.shared.node); err != nil {
			return false, err
		}
	}
}

// Revoke asks the holder of node to release the lock, and waits until it
// has: it writes "unlock" into the node with setData(), then waits, with
// exists() and a watch, for the node to be deleted. A node already gone
// is not an error. If ctx ends first the request stays written: the holder
// may still consent later.
func (r *RevocableLock) Revoke(ctx context.Context, node string) error {
	conn := r.shared.conn
	for {
		_, err := conn.Set(ctx, node, []byte(revokeMark), -1)
		if err == nil {
			break
		}
		if errors.Is(err, zk.ErrNoNode) {
			return nil
		}
		if transient(err) {
			continue // writing "unlock" twice does no harm
		}
		return err
	}
	for {
		ok, _, w, err := conn.ExistsW(ctx, node)
		if transient(err) {
			continue
		}
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if _, err := w.Wait(ctx); err != nil {
			return err
		}
	}
}

// ForceRevoke is forced revocation (the revocable-lock-force-revoke
// teaching variant): Revoke, and if the holder has not released the lock
// within grace (in the session's clock), delete its node ourselves. forced
// says whether we deleted it.
//
// The danger: deleting the node takes the lock away in ZooKeeper, not in
// the holder's head. A holder that did not consent (a long pause, a slow
// unit of work between two checks) goes on believing it holds the lock
// while the next client holds it too: the two act at once. Its Lease does
// not notice, for its session is fine; RevokePending and Revoked report
// ErrNodeVanished only when it next looks. The remedy is a fenced
// resource: it remembers the highest fencing token (Lease.Token) it has
// accepted and rejects the stale holder's lower one.
func (r *RevocableLock) ForceRevoke(ctx context.Context, node string, grace time.Duration) (forced bool, err error) {
	gctx, cancel := r.shared.conn.WithTimeout(ctx, grace)
	err = r.Revoke(gctx, node)
	cancel()
	switch {
	case ctx.Err() != nil:
		return false, ctx.Err()
	case err == nil, !errors.Is(err, context.DeadlineExceeded):
		return false, err // released by consent, or failed
	}
	// The holder did not consent in time: delete its node.
	unsure := false
	for {
		err := r.shared.conn.Delete(ctx, node, -1)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, zk.ErrNoNode):
			return unsure, nil // released meanwhile, or our earlier try
		case recoverable(err):
			unsure = true
			continue
		case retryable(err):
			continue
		}
		return false, err
	}
}
