package recipes

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// The lock's teaching variants.

func init() {
	register(Variant{Name: "lock-herd", Kind: "lock", Fails: "herd",
		Impl: Implementation{Locker: func(c client.Conn, p string) Locker { return NewHerdLock(c, p) }},
		Lesson: "Every waiter watches the lock node's children, so every release wakes every waiter, " +
			"which all call getChildren again to find that one of them got the lock: the herd effect. " +
			"The recipe has each waiter watch only the next lower node, so a release wakes one client."})
	register(Variant{Name: "lock-noguid", Kind: "lock", Fails: "liveness",
		Impl: Implementation{Locker: func(c client.Conn, p string) Locker { return NewNoGUIDLock(c, p) }},
		Lesson: "After a connection loss during create() it creates again, blindly. If the first create " +
			"was applied, its node is orphaned: nobody will delete it while the session lives, and every " +
			"later waiter, its own creator included, waits for it forever. The recipe puts a guid in the " +
			"node's name and looks for its own node before creating another."})
	register(Variant{Name: "lock-ignores-session-loss", Kind: "lock", Fails: "safety",
		Impl: Implementation{Locker: func(c client.Conn, p string) Locker { return NewCarelessLock(c, p) }},
		Lesson: "The holder never checks its lease, so after a disconnect or an expiry (a partition, a " +
			"long pause) it goes on acting as the holder while the next client holds the lock. The recipe's " +
			"lease reports a disconnect (suspended) and an expiry (lost); a holder must stop, and a fenced " +
			"resource must reject its stale token."})
	register(Variant{Name: "lock-adopts-old-node", Kind: "lock", Fails: "safety",
		Impl: Implementation{Locker: func(c client.Conn, p string) Locker { return NewAdoptingLock(c, p) }},
		Lesson: "Back with a new session after losing the old one, the holder finds its lock node still " +
			"there and goes on as the holder. A client library that gives a session up by its own clock " +
			"(Curator's policy) starts the new session while the servers still hold the old one, and its " +
			"ephemeral node, until they expire it, later (a leader failover restarts their timers); then " +
			"the node goes, the next client gets the lock, and the old holder still acts on it. The recipe's " +
			"lease is lost for good on an expiry, and Verify checks the node's ephemeralOwner, not only " +
			"that it exists."})
	register(Variant{Name: "lock-unsorted", Kind: "lock", Fails: "safety",
		Impl: Implementation{Locker: func(c client.Conn, p string) Locker { return NewUnsortedLock(c, p) }},
		Lesson: "It takes getChildren's answer to be in sequence order. ZooKeeper lists children in no " +
			"particular order, so a client can see its node first while it is not the lowest, and two " +
			"clients hold the lock at once. The recipe sorts by sequence number."})
}

// NewHerdLock is the lock-herd teaching variant.
func NewHerdLock(conn client.Conn, dir string) *Lock {
	l := NewLock(conn, dir)
	l.mistakes.watchAll = true
	return l
}

// NewNoGUIDLock is the lock-noguid teaching variant.
func NewNoGUIDLock(conn client.Conn, dir string) *Lock {
	l := NewLock(conn, dir)
	l.mistakes.noGUID = true
	return l
}

func init() {
	register(Variant{Name: "lock-breaks-stale", Kind: "lock", Fails: "safety",
		Impl: Implementation{Locker: func(c client.Conn, p string) Locker { return NewStaleBreakingLock(c, p) }},
		Lesson: "A waiter that has waited 5s for the node ahead of it takes that node's holder for dead and " +
			"deletes the node, to break a lock it believes stale, as locks with a timeout do. But a holder " +
			"that is slow, paused or cut off is not dead until ZooKeeper expires its session, and then its " +
			"ephemeral node goes by itself: deleting it takes the lock from a live holder, and two clients " +
			"hold it at once. The recipe waits for the node to go."})
}

// staleAfter is how long the lock-breaks-stale variant waits for the node
// ahead before it deletes it.
const staleAfter = 5 * time.Second

// NewStaleBreakingLock is the lock-breaks-stale teaching variant.
func NewStaleBreakingLock(conn client.Conn, dir string) *Lock {
	l := NewLock(conn, dir)
	l.mistakes.breakAfter = staleAfter
	return l
}

// NewUnsortedLock is the lock-unsorted teaching variant.
func NewUnsortedLock(conn client.Conn, dir string) *Lock {
	l := NewLock(conn, dir)
	l.mistakes.unsorted = true
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
		Impl: Implementation{Locker: func(c client.Conn, p string) Locker {
			return NewReleaseTrustingLock(c, p)
		}},
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
		return fmt.Errorf("%w: Unlock without Lock", ErrNotHeld)
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

func init() {
	register(Variant{Name: "lock-requeues-on-disconnect", Kind: "lock", Fails: "liveness",
		Impl: Implementation{Locker: func(c client.Conn, p string) Locker { return NewRequeuingLock(c, p) }},
		Lesson: "While it waits it also follows its session (one Select on its predecessor's watch and " +
			"its session's events), and when the connection drops it takes its node for lost and queues " +
			"again with a new one. But Disconnected is not Expired: a session outlives a disconnect " +
			"shorter than its timeout, and with it the old node, now ahead of the new one; nobody will " +
			"delete it, and the client waits behind itself for ever. The recipe keeps its node through a " +
			"disconnect and gives it up only when the session expires (its watch then fires with " +
			"ErrSessionExpired, and its node is gone)."})
}

// errRequeue is the lock-requeues-on-disconnect variant's reason to queue
// again.
var errRequeue = errors.New("recipes: the connection dropped; queueing again")

// RequeuingLock is the lock-requeues-on-disconnect teaching variant: the
// recipe's lock, whose waiter queues again with a new node when its
// connection drops.
type RequeuingLock struct{ lock *Lock }

var _ Locker = (*RequeuingLock)(nil)

// NewRequeuingLock returns the lock-requeues-on-disconnect teaching
// variant.
func NewRequeuingLock(conn client.Conn, dir string) *RequeuingLock {
	return &RequeuingLock{NewLock(conn, dir)}
}

// Lock is the recipe's steps 1 to 5, waiting in step 5 for the first of
// the predecessor's watch and a session event; a disconnect sends it back
// to step 1 (the mistake).
func (l *RequeuingLock) Lock(ctx context.Context) (*Lease, error) {
	return l.lock.variantAcquire(ctx, l.lock.create, l.await, func(err error) (bool, error) {
		return errors.Is(err, errRequeue), nil // our node "went with the connection": a new one
	})
}

// await is steps 2 to 5, waiting with Select.
func (l *RequeuingLock) await(ctx context.Context, node string) (*Lease, error) {
	conn, dir := l.lock.conn, l.lock.dir
	for {
		kids, _, err := conn.Children(ctx, dir)
		if transient(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		prev, found := predecessor(kids, base(node))
		if !found {
			return nil, ErrNodeVanished
		}
		if prev == "" {
			return grantLease(ctx, conn, node)
		}
		sub := conn.SessionEvents()
		ok, _, w, err := conn.ExistsW(ctx, dir+"/"+prev)
		if err != nil || !ok {
			sub.Close()
			if err != nil && !transient(err) {
				return nil, err
			}
			continue
		}
		i, ev, err := conn.Select(ctx, w, sub)
		sub.Close()
		if err != nil {
			return nil, err
		}
		if i == 1 && ev.State == zk.StateDisconnected {
			return nil, errRequeue
		}
	}
}

// Unlock releases the lock.
func (l *RequeuingLock) Unlock(ctx context.Context) error { return l.lock.Unlock(ctx) }

func init() {
	register(Variant{Name: "lock-impatient-create", Kind: "lock", Fails: "liveness",
		Impl: Implementation{Locker: func(c client.Conn, p string) Locker { return NewImpatientLock(c, p) }},
		Lesson: "It gives each create() a deadline of a second and takes a create that missed it for " +
			"one that did not happen, creating its node again under a new guid. But a slow answer is not a " +
			"failed request: the server may have applied the create and its reply be on its way (a busy " +
			"server, a slow link). The first node stays, ahead of the second, held by a live session, and " +
			"the client waits behind its own node for ever. A request whose answer did not come has an " +
			"unknown outcome: the recipe looks for its node by its guid before creating another."})
}

// ImpatientLock is the lock-impatient-create teaching variant: the
// recipe's lock, whose create has a deadline of its own, after which it
// creates again under a new guid.
type ImpatientLock struct{ lock *Lock }

var _ Locker = (*ImpatientLock)(nil)

// NewImpatientLock returns the lock-impatient-create teaching variant.
func NewImpatientLock(conn client.Conn, dir string) *ImpatientLock {
	l := NewLock(conn, dir)
	l.mistakes.impatient = true
	return &ImpatientLock{l}
}

// createPatience is how long the variant waits for a create's answer.
const createPatience = time.Second

// Lock is the recipe's steps 1 to 5, step 1 with a deadline (the mistake).
func (l *ImpatientLock) Lock(ctx context.Context) (*Lease, error) {
	lk := l.lock
	create := func(ctx context.Context, guid string) (string, error) {
		cctx, cancel := lk.conn.WithTimeout(ctx, createPatience)
		defer cancel()
		return lk.create(cctx, guid)
	}
	return lk.variantAcquire(ctx, create, lk.await, func(err error) (bool, error) {
		// "It did not happen": create again, under a new guid.
		return errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil, nil
	})
}

// Unlock releases the lock.
func (l *ImpatientLock) Unlock(ctx context.Context) error { return l.lock.Unlock(ctx) }

func init() {
	register(Variant{Name: "lock-leaks-old-session", Kind: "lock", Fails: "liveness",
		Impl: Implementation{Locker: func(c client.Conn, p string) Locker { return NewLeakingLock(c, p) }},
		Lesson: "When its connection drops while it waits, it starts afresh with a new session " +
			"(NewSession) and queues again in it, and forgets the old session without closing it. But " +
			"the old handle reconnects and goes on sending heartbeats: its session never expires, and its " +
			"node stays in the queue, ahead of the new one, for ever. A library that replaces a session " +
			"closes the old one first (Close: the servers delete its ephemeral nodes at once), or keeps " +
			"it: a disconnect shorter than the session timeout loses nothing."})
}

// LeakingLock is the lock-leaks-old-session teaching variant: the
// requeuing waiter of lock-requeues-on-disconnect, which moreover moves to
// a new session of its own on a disconnect and leaves the old one open.
type LeakingLock struct{ RequeuingLock }

var _ Locker = (*LeakingLock)(nil)

// NewLeakingLock returns the lock-leaks-old-session teaching variant.
func NewLeakingLock(conn client.Conn, dir string) *LeakingLock {
	return &LeakingLock{RequeuingLock{NewLock(conn, dir)}}
}

// Lock is the recipe's steps 1 to 5; a disconnect while it waits sends it
// to a new session (not closing the old: the mistake) and back to step 1.
func (l *LeakingLock) Lock(ctx context.Context) (*Lease, error) {
	lk := l.lock
	return lk.variantAcquire(ctx, lk.create, l.await, func(err error) (bool, error) {
		if !errors.Is(err, errRequeue) {
			return false, nil
		}
		fresh, err := lk.conn.NewSession(ctx)
		if err != nil {
			return false, err
		}
		lk.conn = fresh // the old session is left open
		return true, nil
	})
}

// variantAcquire is the recipe's steps 1 to 5 as the variants above take
// them: create makes our node under a guid (step 1), await waits for our
// turn (steps 2 to 5), and again, given either's error, says whether to
// start over at step 1 with a new guid (each variant's mistake) or fails.
func (lk *Lock) variantAcquire(ctx context.Context, create func(context.Context, string) (string, error),
	await func(context.Context, string) (*Lease, error), again func(error) (bool, error)) (*Lease, error) {
	if err := lk.prepare(ctx, lk.conn, lk.dir); err != nil {
		return nil, err
	}
	for {
		guid, err := nextGUID(ctx, lk.conn, &lk.tries)
		if err != nil {
			return nil, err
		}
		node, err := create(ctx, guid)
		if err == nil {
			lk.node = node
			var lease *Lease
			if lease, err = await(ctx, node); err == nil {
				lk.lease = lease
				return lease, nil
			}
		}
		retry, aerr := again(err)
		switch {
		case aerr != nil:
			return nil, aerr
		case retry:
			continue
		}
		if node != "" {
			lk.abandon(ctx, lk.conn, node)
		}
		return nil, err
	}
}
