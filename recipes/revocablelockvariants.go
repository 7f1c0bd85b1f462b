package recipes

import (
	"context"
	"time"

	"github.com/zksim/zksim/client"
)

// The revocable lock's teaching variant: a revoker that forces
// (ForceRevoke) when the holder has not consented within a grace period.

func init() {
	register(Variant{Name: "revocable-lock-force-revoke", Kind: "revocable-lock", Fails: "safety",
		Impl: Implementation{RevocableLocker: func(c client.Conn, p string) RevocableLocker {
			return NewForceRevokingLock(c, p)
		}},
		Lesson: "The revoker of a revocable lock does not wait for the holder's consent: after a grace period " +
			"it deletes the holder's node itself (ForceRevoke). ZooKeeper then grants the lock to the next " +
			"client, but the holder, paused or busy between two checks, still believes it holds it, and its " +
			"session is fine, so its lease does not warn it: two holders act at once. Revocation in the " +
			"recipe is cooperative; forcing it is safe only with a fenced resource that rejects the stale " +
			"holder's lower token."})
}

// forceRevokeGrace is how long the revocable-lock-force-revoke variant's
// revoker waits for the holder's consent before it deletes the holder's
// node.
const forceRevokeGrace = 50 * time.Millisecond

// ForceRevokingLock is the revocable-lock-force-revoke teaching variant:
// the revocable lock, whose Revoke forces after forceRevokeGrace.
type ForceRevokingLock struct {
	*RevocableLock
	grace time.Duration
}

var _ RevocableLocker = (*ForceRevokingLock)(nil)

// NewForceRevokingLock returns the revocable-lock-force-revoke teaching
// variant.
func NewForceRevokingLock(conn client.Conn, dir string) *ForceRevokingLock {
	return &ForceRevokingLock{RevocableLock: NewRevocableLock(conn, dir), grace: forceRevokeGrace}
}

// Revoke asks the holder of node to release the lock and, when it has not
// within the grace period, deletes its node (ForceRevoke).
func (f *ForceRevokingLock) Revoke(ctx context.Context, node string) error {
	_, err := f.ForceRevoke(ctx, node, f.grace)
	return err
}
