package recipes

import (
	"context"
	"slices"

	"github.com/zksim/zksim/client"
)

// The semaphore's teaching variants, each a real library's mistake.

func init() {
	register(Variant{Name: "semaphore-check-then-create", Kind: "semaphore", Fails: "safety",
		Impl: Implementation{Semaphore: func(c client.Conn, p string, n int) Semaphore {
			return NewCheckThenCreateSemaphore(c, p, n)
		}},
		Lesson: "It counts the leases first and creates its own only if there are fewer than max, without " +
			"the internal lock around the count and the create (kazoo #213: \"Non-blocking semaphore can lead " +
			"to double acquire\"). Two clients that count before either creates both see a free slot, both " +
			"create, and max+1 clients hold leases at once. The recipe creates first and counts after, its own " +
			"node included: of two clients that create at once, the second to count sees both."})
	register(Variant{Name: "semaphore-orphan-on-error", Kind: "semaphore", Fails: "liveness",
		Impl: Implementation{Semaphore: func(c client.Conn, p string, n int) Semaphore {
			return NewOrphaningSemaphore(c, p, n)
		}},
		Lesson: "When the count after its create fails (getChildren answered ConnectionLoss), it returns the " +
			"error without deleting the lease node it created (CURATOR-335, and CURATOR-315 before it). The " +
			"session lives on, and so does the node: a lease nobody holds, counted by everyone. The caller " +
			"tries again with a new node; each such error takes a slot away for as long as the session lives, " +
			"until no slot is left and every client waits for ever. The recipe returns its lease on every path " +
			"that does not end holding it."})
	register(Variant{Name: "semaphore-every-waiter-watches", Kind: "semaphore", Fails: "herd",
		Impl: Implementation{Semaphore: func(c client.Conn, p string, n int) Semaphore {
			return NewEveryWaiterWatchesSemaphore(c, p, n)
		}},
		Lesson: "No internal lock: each client creates its lease node, holds if its node is among the max " +
			"lowest, and otherwise watches the whole lease directory. It is safe and fair, but every release " +
			"(and every create) wakes every waiter, which all list the leases again to find that one of them " +
			"may go: the herd effect. The recipe's internal lock lets only its holder watch the leases; the " +
			"others wait in the lock's queue, each watching one node."})
	register(Variant{Name: "semaphore-watch-nth-ahead", Kind: "semaphore", Fails: "liveness",
		Impl: Implementation{Semaphore: func(c client.Conn, p string, n int) Semaphore {
			return NewNthAheadSemaphore(c, p, n)
		}},
		Lesson: "Curator's first semaphore (InterProcessSemaphore, deprecated): a client holds if its node is " +
			"among the max lowest, and otherwise watches the node max places ahead of it. But leases are not " +
			"given back in order: when another node ahead of it goes, a slot is free, and the waiter sleeps on " +
			"until the one node it watches goes, for as long as that holder holds (\"potential starvation if a " +
			"given client does not release a lease\"). The recipe's waiter watches the whole lease list, and " +
			"only one waiter at a time does."})
}

// CheckThenCreateSemaphore is the semaphore-check-then-create teaching
// variant: count, then create if there is room, with no lock around both.
type CheckThenCreateSemaphore struct{ s *LeaseSemaphore }

var _ Semaphore = (*CheckThenCreateSemaphore)(nil)

// NewCheckThenCreateSemaphore returns the semaphore-check-then-create
// teaching variant.
func NewCheckThenCreateSemaphore(conn client.Conn, path string, max int) *CheckThenCreateSemaphore {
	return &CheckThenCreateSemaphore{NewSemaphore(conn, path, max)}
}

// Acquire lists the leases with a watch; with fewer than max, it creates
// its node and holds (the mistake: another client may have counted the
// same slot meanwhile); otherwise it waits for the watch and lists again.
func (v *CheckThenCreateSemaphore) Acquire(ctx context.Context) (*Lease, error) {
	s := v.s
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	for {
		kids, _, watch, err := s.conn.ChildrenW(ctx, s.leases)
		if transient(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if len(kids) >= s.max {
			if _, err := watch.Wait(ctx); err != nil {
				return nil, err
			}
			continue
		}
		guid, err := nextGUID(ctx, s.conn, &s.tries)
		if err != nil {
			return nil, err
		}
		node, err := createGUIDNode(ctx, s.conn, s.leases, guid+"-lease-", nil, guidMistakes{})
		if err != nil {
			return nil, err
		}
		lease, err := grantLease(ctx, s.conn, node)
		if err != nil {
			abandonNode(ctx, s.conn, node)
			return nil, err
		}
		s.node, s.lease = node, lease
		return lease, nil
	}
}

// Release gives the lease up.
func (v *CheckThenCreateSemaphore) Release(ctx context.Context) error { return v.s.Release(ctx) }

// NewOrphaningSemaphore returns the semaphore-orphan-on-error teaching
// variant: the recipe, but a count that fails leaves its lease node.
func NewOrphaningSemaphore(conn client.Conn, path string, max int) *LeaseSemaphore {
	s := NewSemaphore(conn, path, max)
	s.mistakes.orphanOnError = true
	return s
}

// RankedSemaphore is a semaphore without an internal lock: a client holds
// when its node is among the max lowest. Its waiters watch the whole lease
// directory (semaphore-every-waiter-watches) or the node max places ahead
// (semaphore-watch-nth-ahead).
type RankedSemaphore struct {
	s        *LeaseSemaphore
	nthAhead bool
}

var _ Semaphore = (*RankedSemaphore)(nil)

// NewEveryWaiterWatchesSemaphore returns the
// semaphore-every-waiter-watches teaching variant.
func NewEveryWaiterWatchesSemaphore(conn client.Conn, path string, max int) *RankedSemaphore {
	return &RankedSemaphore{s: NewSemaphore(conn, path, max)}
}

// NewNthAheadSemaphore returns the semaphore-watch-nth-ahead teaching
// variant.
func NewNthAheadSemaphore(conn client.Conn, path string, max int) *RankedSemaphore {
	return &RankedSemaphore{s: NewSemaphore(conn, path, max), nthAhead: true}
}

// Acquire creates its lease node (with the guid), then waits until the
// node is among the max lowest.
func (v *RankedSemaphore) Acquire(ctx context.Context) (*Lease, error) {
	s := v.s
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	guid, err := nextGUID(ctx, s.conn, &s.tries)
	if err != nil {
		return nil, err
	}
	node, err := createGUIDNode(ctx, s.conn, s.leases, guid+"-lease-", nil, guidMistakes{})
	if err != nil {
		return nil, err
	}
	lease, err := v.await(ctx, node)
	if err != nil {
		abandonNode(ctx, s.conn, node)
		return nil, err
	}
	s.node, s.lease = node, lease
	return lease, nil
}

// await lists the leases (with a watch on them, unless it watches the
// node max places ahead) until node is among the max lowest.
func (v *RankedSemaphore) await(ctx context.Context, node string) (*Lease, error) {
	s := v.s
	owner := s.conn.SessionID()
	for {
		var kids []string
		var watch client.Watch
		var err error
		if v.nthAhead {
			kids, _, err = s.conn.Children(ctx, s.leases)
		} else {
			kids, _, watch, err = s.conn.ChildrenW(ctx, s.leases) // the mistake: every waiter
		}
		if transient(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		sortBySequence(kids)
		i := slices.Index(kids, base(node))
		if i < 0 || s.conn.SessionID() != owner {
			return nil, ErrNodeVanished
		}
		if i < s.max {
			return grantLease(ctx, s.conn, node)
		}
		if v.nthAhead { // the mistake: one node, max places ahead
			ok, _, w, err := s.conn.ExistsW(ctx, s.leases+"/"+kids[i-s.max])
			if transient(err) || err == nil && !ok {
				continue
			}
			if err != nil {
				return nil, err
			}
			watch = w
		}
		if err := s.wait(ctx, watch, owner); err != nil {
			return nil, err
		}
	}
}

// Release gives the lease up.
func (v *RankedSemaphore) Release(ctx context.Context) error { return v.s.Release(ctx) }
