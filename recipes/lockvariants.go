package recipes

import (
	"context"
	"errors"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// The lock's teaching variants.

func init() {
	register(Variant{Name: "lock-herd", Kind: "lock", Fails: "herd",
		Lesson: "Every waiter watches the lock node's children, so every release wakes every waiter, " +
			"which all call getChildren again to find that one of them got the lock: the herd effect. " +
			"The recipe has each waiter watch only the next lower node, so a release wakes one client."})
	register(Variant{Name: "lock-noguid", Kind: "lock", Fails: "liveness",
		Lesson: "After a connection loss during create() it creates again, blindly. If the first create " +
			"was applied, its node is orphaned: nobody will delete it while the session lives, and every " +
			"later waiter, its own creator included, waits for it forever. The recipe puts a guid in the " +
			"node's name and looks for its own node before creating another."})
	register(Variant{Name: "lock-ignores-session-loss", Kind: "lock", Fails: "safety",
		Lesson: "The holder never checks its lease, so after a disconnect or an expiry (a partition, a " +
			"long pause) it goes on acting as the holder while the next client holds the lock. The recipe's " +
			"lease reports a disconnect (suspended) and an expiry (lost); a holder must stop, and a fenced " +
			"resource must reject its stale token."})
	register(Variant{Name: "lock-adopts-old-node", Kind: "lock", Fails: "safety",
		Lesson: "Back with a new session after losing the old one, the holder finds its lock node still " +
			"there and goes on as the holder. A client library that gives a session up by its own clock " +
			"(Curator's policy) starts the new session while the servers still hold the old one, and its " +
			"ephemeral node, until they expire it, later (a leader failover restarts their timers); then " +
			"the node goes, the next client gets the lock, and the old holder still acts on it. The recipe's " +
			"lease is lost for good on an expiry, and Verify checks the node's ephemeralOwner, not only " +
			"that it exists."})
	register(Variant{Name: "lock-unsorted", Kind: "lock", Fails: "safety",
		Lesson: "It takes getChildren's answer to be in sequence order. ZooKeeper lists children in no " +
			"particular order, so a client can see its node first while it is not the lowest, and two " +
			"clients hold the lock at once. The recipe sorts by sequence number."})
}

// NewHerdLock is the lock-herd teaching variant.
func NewHerdLock(conn client.Conn, dir string) *Lock {
	l := NewLock(conn, dir)
	l.watchAll = true
	return l
}

// NewNoGUIDLock is the lock-noguid teaching variant.
func NewNoGUIDLock(conn client.Conn, dir string) *Lock {
	l := NewLock(conn, dir)
	l.noGUID = true
	return l
}

// NewUnsortedLock is the lock-unsorted teaching variant.
func NewUnsortedLock(conn client.Conn, dir string) *Lock {
	l := NewLock(conn, dir)
	l.unsorted = true
	return l
}

// CarelessLock is the lock-ignores-session-loss teaching variant: the
// recipe's lock, whose leases never report a loss.
type CarelessLock struct{ lock *Lock }

var _ Locker = (*CarelessLock)(nil)

// NewCarelessLock returns the lock-ignores-session-loss teaching variant.
func NewCarelessLock(conn client.Conn, dir string) *CarelessLock {
	return &CarelessLock{NewLock(conn, dir)}
}

// Lock acquires the lock and returns a lease that ignores the session.
func (l *CarelessLock) Lock(ctx context.Context) (*Lease, error) {
	lease, err := l.lock.Lock(ctx)
	if lease != nil {
		lease.careless = true
	}
	return lease, err
}

// Unlock releases the lock.
func (l *CarelessLock) Unlock(ctx context.Context) error { return l.lock.Unlock(ctx) }

// AdoptingLock is the lock-adopts-old-node teaching variant: the recipe's
// lock, whose lease survives a session loss whenever its node is still
// there.
type AdoptingLock struct{ lock *Lock }

var _ Locker = (*AdoptingLock)(nil)

// NewAdoptingLock returns the lock-adopts-old-node teaching variant.
func NewAdoptingLock(conn client.Conn, dir string) *AdoptingLock {
	return &AdoptingLock{NewLock(conn, dir)}
}

// Lock acquires the lock and returns a lease that adopts its node again
// after a session loss.
func (l *AdoptingLock) Lock(ctx context.Context) (*Lease, error) {
	lease, err := l.lock.Lock(ctx)
	if lease != nil {
		lease.adopts = true
	}
	return lease, err
}

// Unlock releases the lock.
func (l *AdoptingLock) Unlock(ctx context.Context) error { return l.lock.Unlock(ctx) }

func init() {
	register(Variant{Name: "lock-release-trusts-connection-loss", Kind: "lock", Fails: "liveness",
		Lesson: "Its release takes a delete that failed with ConnectionLoss to have gone through, as it " +
			"usually has: the server applied it and only the answer was lost. But the request itself can be " +
			"lost before any server applies it (the connection drops while it is on its way), and then the " +
			"lock node stays, held by a session that is alive and never deletes it: every other client " +
			"waits for ever. The client cannot tell the two apart, so the recipe's release retries the " +
			"delete until it succeeds or the node is gone (NoNode)."})
}

// ReleaseTrustingLock is the lock-release-trusts-connection-loss teaching
// variant: the recipe's lock, whose release gives up after one delete that
// failed with a connection error.
type ReleaseTrustingLock struct{ lock *Lock }

var _ Locker = (*ReleaseTrustingLock)(nil)

// NewReleaseTrustingLock returns the lock-release-trusts-connection-loss
// teaching variant.
func NewReleaseTrustingLock(conn client.Conn, dir string) *ReleaseTrustingLock {
	return &ReleaseTrustingLock{NewLock(conn, dir)}
}

// Lock acquires the lock as the recipe does.
func (l *ReleaseTrustingLock) Lock(ctx context.Context) (*Lease, error) { return l.lock.Lock(ctx) }

// Unlock deletes the lock node once; a connection error counts as done
// (the mistake).
func (l *ReleaseTrustingLock) Unlock(ctx context.Context) error {
	lk := l.lock
	if lk.node == "" {
		return errors.New("recipes: Unlock without Lock")
	}
	err := lk.conn.Delete(ctx, lk.node, -1)
	if errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrNoNode) {
		err = nil // "it must have gone through"
	}
	lk.node = ""
	if lk.lease != nil {
		lk.lease.release()
		lk.lease = nil
	}
	return err
}
