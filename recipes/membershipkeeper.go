package recipes

import (
	"context"
	"errors"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// Keeper is group membership written callback-style, as Curator keeps a
// member's node (PersistentNode, beneath its GroupMember): Join creates
// the member's ephemeral node and watches it; callbacks on the client's
// event thread (client.Callbacks, a task of the member's process beside
// its caller's) create it again whenever it is gone while the member is in
// the group (its session expired and a new one took its place), and once
// more on every new connection; Leave deletes it. Members and Watch are
// Group's, which only views the group.
//
// The callbacks and the caller share one field, active, and race: a
// callback that found the member active goes on to create the node a call
// later, while the caller may have left in between. So the callbacks and
// Leave hold one mutex across the check and the calls that act on it, as
// a Java library holds its monitor: Leave waits for a keep in flight, and
// a keep that comes after it finds the member gone. Without it (the
// membership-keeper-unguarded variant) the node can come back after
// Leave: a member that left for good is still listed.
type Keeper struct {
	*Group // Members and Watch; the session, the node and its data

	cb     *client.Callbacks
	mu     client.Mutex
	active bool

	// unguarded is the membership-keeper-unguarded variant's mistake: the
	// callbacks and Leave do not take the mutex.
	unguarded bool
}

var _ Membership = (*Keeper)(nil)

// NewKeeper returns member name's keeper of its node in the group whose
// node is dir.
func NewKeeper(conn client.Conn, dir, name string) *Keeper {
	return &Keeper{Group: NewGroup(conn, dir, name)}
}

// lock takes the keeper's mutex (not the variant's).
func (k *Keeper) lock(ctx context.Context) error {
	if k.unguarded {
		return nil
	}
	return k.mu.Lock(ctx)
}

func (k *Keeper) unlock() {
	if !k.unguarded {
		k.mu.Unlock()
	}
}

// Join starts the event thread on first use, and keeps the node from now on.
func (k *Keeper) Join(ctx context.Context, data []byte) error {
	if k.cb == nil {
		k.mu = k.conn.NewMutex("keeper")
		k.cb = client.NewCallbacks(context.Background(), k.conn, "event-thread")
		k.cb.OnSession(k.onSession)
	}
	if err := k.lock(ctx); err != nil {
		return err
	}
	defer k.unlock()
	k.active, k.data = true, data
	return k.ensure(ctx)
}

// Leave stops keeping the node, and deletes it if its session is ours.
func (k *Keeper) Leave(ctx context.Context) error {
	if err := k.lock(ctx); err != nil {
		return err
	}
	defer k.unlock()
	k.active = false
	for {
		ok, st, err := k.conn.Exists(ctx, k.path())
		switch {
		case transient(err), expired(err):
			continue
		case err != nil:
			return err
		case !ok || st.EphemeralOwner != k.conn.SessionID():
			return nil // gone, or its session's: it goes with it
		}
		err = k.conn.Delete(ctx, k.path(), st.Version)
		if err == nil || errors.Is(err, zk.ErrNoNode) {
			return nil
		}
		if !transient(err) && !expired(err) && !errors.Is(err, zk.ErrBadVersion) {
			return err
		}
	}
}

// ensure creates the node unless it is there, and watches it, with a
// callback that creates it again when it goes.
func (k *Keeper) ensure(ctx context.Context) error {
	for {
		_, err := k.conn.Create(ctx, k.path(), k.data, zk.FlagEphemeral, k.acl)
		switch {
		case errors.Is(err, zk.ErrNoNode):
			if err := ensurePath(ctx, k.conn, k.dir); err != nil {
				return err
			}
			continue
		case transient(err), expired(err):
			continue
		case err != nil && !errors.Is(err, zk.ErrNodeExists):
			return err
		}
		// Ours, or an older session's still going: watch it either way.
		ok, _, w, err := k.conn.ExistsW(ctx, k.path())
		switch {
		case transient(err), expired(err), err == nil && !ok:
			continue
		case err != nil:
			return err
		}
		k.cb.OnWatch(w, k.onNode)
		return nil
	}
}

// onNode runs on the event thread when the node's watch fires.
func (k *Keeper) onNode(ctx context.Context, ev zk.Event) {
	if ev.Type == zk.EventNodeDeleted {
		k.keep(ctx)
	}
}

// onSession runs on the event thread on each session event: a session
// that comes (a new one, after an expiry) needs the node again.
func (k *Keeper) onSession(ctx context.Context, ev zk.Event) {
	if ev.State == zk.StateHasSession {
		k.keep(ctx)
	}
}

// keep creates the node again if the member is still in the group: the
// check and the calls that act on it under the mutex, so that no Leave
// comes between them.
func (k *Keeper) keep(ctx context.Context) {
	if err := k.lock(ctx); err != nil {
		return
	}
	defer k.unlock()
	if k.active {
		_ = k.ensure(ctx) // a failure is retried at the next event
	}
}
