package recipes

import (
	"context"
	"errors"
	"time"

	"github.com/zksim/zksim/client"
)

// ErrNodeVanished says a recipe's own ephemeral node disappeared while it
// waited: its session expired.
var ErrNodeVanished = errors.New("recipes: our node vanished (the session expired)")

// Lock is the lock recipe ("Locks"): fully distributed, no herd effect,
// fair (first come, first served), with the guid that makes it safe
// against a lost create() reply.
type Lock struct {
	conn client.Conn
	dir  string

	held

	mistakes lockMistakes
}

// lockMistakes are the teaching variants' switches (lockvariants.go sets
// them; the recipe never does): watchAll makes every waiter watch the
// lock node's children (the herd lock's mistake); noGUID retries create()
// blindly after a connection loss (the orphaned node's mistake); unsorted
// trusts getChildren's order; breakAfter deletes the node ahead once it
// has been waited for that long; impatient leaves the node of a create
// it gave up on (lock-impatient-create's create deadline).
type lockMistakes struct {
	watchAll, noGUID, unsorted, impatient bool
	breakAfter                            time.Duration
}

var _ Locker = (*Lock)(nil)

// NewLock returns the lock whose node is dir ("_locknode_" in the recipe).
func NewLock(conn client.Conn, dir string) *Lock {
	return &Lock{conn: conn, dir: dir}
}

// Lock acquires the lock:
//
//  1. create "guid-lock-" under the lock node, sequential and ephemeral;
//  2. getChildren on the lock node, without a watch;
//  3. if our node has the lowest sequence number, we hold the lock;
//  4. otherwise exists(), with a watch, on the node with the next lower
//     sequence number;
//  5. if it does not exist, go to 2; otherwise wait for its notification
//     and go to 2.
//
// If create() fails with a recoverable error (the connection was lost and
// the node may exist), we look for our node by its guid before creating
// another. If ctx ends first, our node is deleted.
func (l *Lock) Lock(ctx context.Context) (*Lease, error) {
	if err := l.prepare(ctx, l.conn, l.dir); err != nil {
		return nil, err
	}
	guid, err := nextGUID(ctx, l.conn, &l.tries)
	if err != nil {
		return nil, err
	}
	node, err := l.create(ctx, guid) // step 1
	if err != nil {
		return nil, err
	}
	l.node = node
	lease, err := l.await(ctx, node)
	if err != nil {
		l.abandon(ctx, l.conn, node)
		return nil, err
	}
	l.lease = lease
	return lease, nil
}

// create is step 1, with the guid recovery.
func (l *Lock) create(ctx context.Context, guid string) (string, error) {
	return createGUIDNode(ctx, l.conn, l.dir, guid+"-lock-", nil, guidMistakes{blind: l.mistakes.noGUID, forget: l.mistakes.impatient})
}

// await is steps 2 to 5: it returns once node is the lowest.
func (l *Lock) await(ctx context.Context, node string) (*Lease, error) {
	return turn{mistakes: turnMistakes{unsorted: l.mistakes.unsorted, watchAll: l.mistakes.watchAll,
		breakAfter: l.mistakes.breakAfter}}.await(ctx, l.conn, l.dir, node)
}

// Unlock releases the lock: delete our node.
func (l *Lock) Unlock(ctx context.Context) error {
	return l.release(ctx, l.conn, "Unlock without Lock")
}
