package recipes

import (
	"context"
	"time"
)

// Locker is an exclusive lock.
//
// What the workloads do with its errors (the holding workload of the
// lock, the election, the read-write lock and the semaphore alike): a
// Lock that returns an error is recorded as a failed acquire, with the
// error, and the caller holds nothing; when the error is one a caller
// must expect under faults (zk.ErrSessionExpired, ErrConnectionClosed,
// ErrNoServer, ErrSessionMoved, ErrNodeVanished, ErrLost, ErrSuspended, a
// context's deadline) the workload calls Lock again, and with any other
// error the client fails. An Unlock that returns an error is recorded as a
// failed release, with the error; the holder has let go all the same (it
// acts on the lock no more), and the workload goes on after an expected
// error and fails the client after any other.
type Locker interface {
	// Lock blocks until the caller holds the lock, and returns its Lease.
	Lock(ctx context.Context) (*Lease, error)
	// Unlock releases the lock.
	Unlock(ctx context.Context) error
}

// SharedLocker is a read-write lock: any number of readers, or one writer.
// Its workload does with the errors of RLock, Lock and Unlock what the
// lock's does with those of Lock and Unlock (see Locker).
type SharedLocker interface {
	// RLock blocks until the caller holds a read lock.
	RLock(ctx context.Context) (*Lease, error)
	// Lock blocks until the caller holds the write lock.
	Lock(ctx context.Context) (*Lease, error)
	// Unlock releases whichever lock the caller holds.
	Unlock(ctx context.Context) error
}

// RevocableLocker is a shared lock whose holders can be asked to release
// it: a holder looks for a request between units of work and consents by
// unlocking. Its workload does with the errors of Lock and Unlock what
// the lock's does (see Locker).
type RevocableLocker interface {
	SharedLocker
	// RevokePending reports, without blocking, whether the holder has
	// been asked to release the lock. A holder whose RevokePending
	// returns an error stops working and unlocks, as if asked (the
	// workload records the holding, not this call).
	RevokePending(ctx context.Context) (bool, error)
	// Holders lists the nodes that hold the lock now. After an error a
	// caller must expect under faults, or zk.ErrNoNode, the revoker tries
	// again at its next round (the call is not recorded: the history
	// records revocations); after any other it fails.
	Holders(ctx context.Context) ([]string, error)
	// Revoke asks the holder of node to release the lock, and waits until
	// it has. One that returns an error is recorded failed, with the
	// error; the revoker asks again at its next round after an error a
	// caller must expect under faults or zk.ErrNoNode (the holder's node
	// gone), and fails after any other.
	Revoke(ctx context.Context, node string) error
}

// Semaphore is a counting semaphore: at most its max holders at once,
// each holding a lease. Its workload does with the errors of Acquire and
// Release what the lock's does with those of Lock and Unlock (see
// Locker).
type Semaphore interface {
	// Acquire blocks until the caller holds a lease, and returns it.
	Acquire(ctx context.Context) (*Lease, error)
	// Release gives the caller's lease up.
	Release(ctx context.Context) error
}

// Elector is one candidate in a leader election. Its workload does with
// the errors of Campaign and Resign what the lock's does with those of
// Lock and Unlock (see Locker); a candidate that gives up waiting (its
// deadline, in some rounds) is recorded as withdrawn.
type Elector interface {
	// Campaign blocks until the candidate leads, and returns its Lease on
	// leadership.
	Campaign(ctx context.Context) (*Lease, error)
	// Resign gives leadership (or candidacy) up.
	Resign(ctx context.Context) error
}

// Barrier holds processes until it is removed.
//
// What the barrier's workload does with its errors: each call of Set,
// Remove and Wait is recorded, one that returns an error with the error.
// After an error a caller must expect under faults (those Locker's doc
// lists) the call is recorded failed and the workload calls again, and
// the checks take the calls as one Set, Remove or Wait, from the first (a
// Remove whose delete was applied before its connection was lost lowered
// the barrier then). After any other error the client fails, its Set or
// Remove recorded of unknown outcome (the node may have been created or
// deleted), its Wait failed (it did not pass).
type Barrier interface {
	// Set raises the barrier.
	Set(ctx context.Context) error
	// Remove lowers it, letting every waiting process through.
	Remove(ctx context.Context) error
	// Wait blocks while the barrier is up.
	Wait(ctx context.Context) error
}

// DoubleBarrier synchronises the start and the end of a computation among
// a fixed number of processes.
//
// What the double barrier's workload does with its errors: each call of
// Enter and Leave is recorded, one that returns an error as failed, with
// the error. ErrNodeVanished (the process's node went with its session)
// stops the process for good, recorded as its failure. After another
// error a caller must expect under faults (those Locker's doc lists) the
// workload calls again, and the checks take the calls as one Enter (or
// one Leave), from the first. After any other error the client fails, and
// the double-barrier check reports the process that could not enter or
// leave.
type DoubleBarrier interface {
	// Enter blocks until enough processes have entered.
	Enter(ctx context.Context) error
	// Leave blocks until every process has left.
	Leave(ctx context.Context) error
}

// Queue is a distributed FIFO queue.
//
// What the queue's workload does with its errors (the priority queue's
// alike): a Put that returns an error is recorded of unknown outcome,
// with the error (the item may be in the queue or not, and the checks
// allow both); after an error a caller must expect under faults (those
// Locker's doc lists) the producer goes on to its next item (putting the
// same one again could put it twice), and after any other it fails. A
// Take that returns an error is recorded of unknown outcome, with the
// error, where it returned (it may have removed an item: the checks count
// it to have taken any one item put before it returned, or none); after
// an expected error the consumer takes again, and after any other it
// fails. A Take the workload gives up on its own deadline (a second) took
// nothing, as Take must promise (it settles a delete on its way before it
// returns): it is recorded as a take that got nothing, with the
// deadline's error, unless a write of the take's was still in doubt, when
// it is of unknown outcome.
type Queue interface {
	// Put appends an item.
	Put(ctx context.Context, data []byte) error
	// Take removes and returns the oldest item, blocking while the queue is
	// empty.
	Take(ctx context.Context) ([]byte, error)
}

// PriorityQueue is a distributed queue ordered by priority, lower first,
// and by age within a priority. Its workload does with the errors of Put
// and Take what the queue's does (see Queue).
type PriorityQueue interface {
	Put(ctx context.Context, data []byte, priority int) error
	Take(ctx context.Context) ([]byte, error)
}

// Decision is the outcome of a two-phased commit.
type Decision string

// The outcomes.
const (
	Commit Decision = "commit"
	Abort  Decision = "abort"
)

// Coordinator runs two-phased commits.
//
// What the two-phased commit's workload does with its errors: a Propose
// that returns an error is recorded of unknown outcome, with the error
// (the transaction may have begun, and been decided); after an error a
// caller must expect under faults (those Locker's doc lists) the
// coordinator goes on to the next transaction (proposing the same one
// again would be refused, ErrTxExists), and after any other the client
// fails.
type Coordinator interface {
	// Propose starts transaction tx among sites and blocks until it is
	// decided.
	Propose(ctx context.Context, tx string, sites []string) (Decision, error)
}

// Site takes part in two-phased commits.
//
// What the workload does with its errors: a Vote (or, for a site that
// announces itself first, as TwoPhaseSite does, its Join) that returns an
// error a caller must expect under faults (those Locker's doc lists) is
// recorded as a failed vote, with the error, and the site calls again (the
// checks take its calls as one vote, from its first). After any other
// error the client fails, its vote recorded as failed when Join returned
// the error (it never voted), and of unknown outcome when Vote did (it may
// have voted).
type Site interface {
	// Vote votes on transaction tx (commit true, abort false) and blocks
	// until it is decided.
	Vote(ctx context.Context, tx string, commit bool) (Decision, error)
}

// Counter is a shared counter.
//
// What the counter's workload does with its errors: an Add that returns
// an error is recorded of unknown outcome, with the error (it may have
// been applied or not, and the counter check allows both); after an error
// a caller must expect under faults (those Locker's doc lists) the client
// goes on without adding again, as a retry would be another increment,
// and after any other it fails. A Get that returns an error is recorded
// as a failed count, with the error (it read nothing); after an expected
// error the client calls Get again, as a new count, and after any other it
// fails.
type Counter interface {
	// Add adds delta to the counter, once, and returns the value it made.
	Add(ctx context.Context, delta int64) (int64, error)
	// Get returns the counter's value, no older than any Add that returned
	// before the call.
	Get(ctx context.Context) (int64, error)
}

// cleanupTimeout bounds how long a recipe tries to remove its nodes after
// its caller's context ended.
const cleanupTimeout = 30 * time.Second
