package recipes

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// LeaseSemaphore is a counting semaphore with leases, as Curator's
// InterProcessSemaphoreV2 builds it (Ben Bangert's algorithm): at most max
// clients hold a lease at once. Create, then count:
//
//  1. take the internal lock: a lock (the lock recipe's steps, with its
//     guid) whose nodes are the children of the semaphore's node, held
//     while acquiring only, never while the lease is held;
//  2. create "guid-lease-" under leases, sequential and ephemeral, with
//     the guid that recovers a lost create() reply;
//  3. getChildren on leases (with a watch when it is to be waited on);
//  4. if our node is among at most max children, we hold a lease;
//  5. otherwise wait for the watch's notification (or a session event)
//     and go to 3.
//
// Then release the internal lock, whatever happened. On every path that
// does not end holding, our lease node is deleted (Curator's
// returnLease), so that no lease outlives a failed acquisition.
//
// Only the internal lock's holder watches leases; every other waiter
// queues in the lock, watching only its predecessor: a release wakes one
// client, no herd. Counting after creating makes it safe by itself (of two
// clients that create at once, the second to list sees both nodes); the
// internal lock makes it live: without it, two waiters whose nodes both
// count can block each other (semaphore-every-waiter-watches shows the
// other way out, and its cost).
//
// A lease's node is ephemeral and its Lease follows the session as the
// lock's does (a disconnect suspends it, an expiry loses it). Every client
// must pass the same max: as Curator's javadoc warns, nothing stops one
// from acting as if max were larger.
type LeaseSemaphore struct {
	conn client.Conn
	// dir is the semaphore's node, whose children are the internal lock's
	// nodes and the directory leases; leases holds one node per lease.
	dir, leases string
	max         int

	held

	mistakes semaphoreMistakes
}

// semaphoreMistakes are the teaching variants' switches (the recipe never
// sets them): orphanOnError returns a failed count's error without
// deleting the lease node it created (CURATOR-335).
type semaphoreMistakes struct {
	orphanOnError bool
}

// SemaphoreLeases is the directory of a semaphore's lease nodes: the
// children of dir/leases, one per lease held or sought. It is the object
// the semaphore's checks judge (its deletions are the releases the herd
// check counts).
func SemaphoreLeases(dir string) string { return dir + "/leases" }

var _ Semaphore = (*LeaseSemaphore)(nil)

// NewSemaphore returns the semaphore whose node is path, of which at most
// n clients hold a lease at once (fewer than 1 counts as 1).
func NewSemaphore(conn client.Conn, path string, n int) *LeaseSemaphore {
	return &LeaseSemaphore{conn: conn, dir: path, leases: SemaphoreLeases(path), max: max(n, 1)}
}

// Acquire blocks until the caller holds a lease, and returns it: steps 1
// to 5 (see LeaseSemaphore), the internal lock released on the way out.
func (s *LeaseSemaphore) Acquire(ctx context.Context) (*Lease, error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	guid, err := nextGUID(ctx, s.conn, &s.tries)
	if err != nil {
		return nil, err
	}
	lockNode, err := s.lock(ctx, guid) // step 1
	if err != nil {
		return nil, err
	}
	// The session our lock node, and our lease node, belong to.
	owner := s.conn.SessionID()
	node, err := createGUIDNode(ctx, s.conn, s.leases, guid+"-lease-", nil, guidMistakes{}) // step 2
	var lease *Lease
	if err == nil {
		lease, err = s.count(ctx, node, owner)
	}
	// The internal lock is held while acquiring only. Its release retries
	// through connection losses, and the lease may be lost meanwhile (the
	// session expiring while the client is cut off): a lease lost before
	// Acquire returns is not granted.
	abandonNode(ctx, s.conn, lockNode)
	if err == nil && lease.Check() == ErrLost {
		lease.release()
		err = ErrNodeVanished
	}
	if err != nil {
		if node != "" && !s.mistakes.orphanOnError {
			abandonNode(ctx, s.conn, node) // return the lease
		}
		return nil, err
	}
	s.node, s.lease = node, lease
	return lease, nil
}

// begin is what every acquisition begins with: no lease held already,
// and the semaphore's nodes in place.
func (s *LeaseSemaphore) begin(ctx context.Context) error {
	if s.node != "" {
		return fmt.Errorf("%w: Acquire while holding a lease: Release first", ErrAlreadyHeld)
	}
	return s.prepare(ctx, s.conn, s.leases)
}

// lock is step 1: the lock recipe's steps 1 to 5 on the semaphore's node,
// whose lock nodes are "guid-lock-": the node that blocks ours is the next
// lower lock node (the directory leases, also a child, is not one). It
// returns our lock node; on failure none is left.
func (s *LeaseSemaphore) lock(ctx context.Context, guid string) (string, error) {
	node, err := createGUIDNode(ctx, s.conn, s.dir, guid+"-lock-", nil, guidMistakes{})
	if err != nil {
		return "", err
	}
	lease, err := turn{blocker: lowerLockNode}.await(ctx, s.conn, s.dir, node)
	if err != nil {
		abandonNode(ctx, s.conn, node)
		return "", err
	}
	lease.release() // the internal lock needs no lease: it is held for a moment
	return node, nil
}

// lowerLockNode is the internal lock's blocker: the next lower lock node
// below kids[i] (kids sorted by sequence), or "" if ours is the lowest.
func lowerLockNode(kids []string, i int) string {
	for j := i - 1; j >= 0; j-- {
		if strings.Contains(kids[j], "-lock-") {
			return kids[j]
		}
	}
	return ""
}

// count is steps 3 to 5: list the leases; hold if our node is among at
// most max; otherwise list them again, now with a watch, and unless that
// listing finds room, wait for the watch, or for a session event,
// whichever comes first, and list again. The watch is set only to wait on
// it: a holder that kept the watch of the listing that granted its lease
// would be woken by a later release, beside the one waiter that can
// proceed (the herd check counts it). Our node missing from a listing, or
// the session a listing was read in not the one that made it, means the
// node went with an expired session (ErrNodeVanished; Curator's
// RETRY_DUE_TO_MISSING_NODE). owner is the session the internal lock was
// taken in: once the client is in another, its lock node has gone with the
// old one and another client may hold the lock and watch the leases, so
// it gives up and queues again rather than count beside that client. A connection lost meanwhile is listed
// through; the orphan-on-error variant returns it instead.
func (s *LeaseSemaphore) count(ctx context.Context, node string, owner int64) (*Lease, error) {
	watched := false // list with a watch
	for {
		var kids []string
		var watch client.Watch
		var err error
		if watched {
			kids, _, watch, err = s.conn.ChildrenW(ctx, s.leases) // step 3, to wait
		} else {
			kids, _, err = s.conn.Children(ctx, s.leases) // step 3
		}
		if transient(err) && !s.mistakes.orphanOnError {
			continue
		}
		if err != nil {
			return nil, err
		}
		if s.conn.SessionID() != owner {
			if watched {
				s.unwatch(ctx)
			}
			return nil, ErrNodeVanished
		}
		if !slices.Contains(kids, base(node)) {
			return nil, ErrNodeVanished
		}
		if len(kids) <= s.max { // step 4
			if watched {
				s.unwatch(ctx) // a lease came free between the two listings
			}
			return grantLease(ctx, s.conn, node)
		}
		if !watched {
			watched = true
			continue
		}
		if err := s.wait(ctx, watch, owner); err != nil { // step 5
			return nil, err
		}
		watched = false
	}
}

// unwatch removes the watch a listing set on leases that nobody will wait
// on: the listing found room after all, or it was sent in the old session,
// queued while the client reconnected, and answered in a new one after the
// old one expired. The watch would outlive our attempt and wake this
// client at some later release beside the one waiter that can proceed.
// Best effort: a client library without removeWatches (go-zk, live) leaves
// it, to fire once.
func (s *LeaseSemaphore) unwatch(ctx context.Context) {
	cctx, cancel := cleanup(ctx, s.conn)
	defer cancel()
	_ = s.conn.RemoveWatches(cctx, s.leases)
}

// wait is step 5's wait: for the watch on leases, or a session event.
// A disconnect leaves the watch in place (it is set again when the
// session reconnects); an expiry, or a session that is no longer ours,
// has taken our node.
func (s *LeaseSemaphore) wait(ctx context.Context, watch client.Watch, owner int64) error {
	sub := s.conn.SessionEvents()
	defer sub.Close()
	for {
		i, ev, err := s.conn.Select(ctx, watch, sub)
		switch {
		case err != nil && expired(err):
			return ErrNodeVanished
		case err != nil:
			return err
		case i == 0:
			return nil
		case ev.State == zk.StateExpired || s.conn.SessionID() != owner:
			return ErrNodeVanished
		}
	}
}

// Release gives the lease up: delete its node (through connection losses)
// and stop following the session.
func (s *LeaseSemaphore) Release(ctx context.Context) error {
	return s.release(ctx, s.conn, "Release without Acquire")
}
