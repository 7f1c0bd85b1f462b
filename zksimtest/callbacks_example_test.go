package zksimtest_test

import (
	"context"
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/zksimtest"
)

// keeper is a user's group member written the way callback-style
// libraries keep a node (Curator's PersistentNode, beneath its
// GroupMember): Join creates the member's ephemeral node and watches it;
// callbacks on the library's event thread (client.Callbacks) create it
// again whenever it is gone while the member is in the group (its session
// expired, and a new one took its place); Leave deletes it. Members and
// Watch are the recipe's own (recipes.Group), which only views the group.
//
// The callbacks and the caller share active, and race: a callback that
// found the member active goes on to create the node, a call later, while
// the caller may have left in between. With guarded, the callbacks and
// Leave hold one mutex across the check and the calls that act on it, as
// a Java library holds its monitor; without it, the node can come back
// after Leave, a member that left for good still listed.
type keeper struct {
	*recipes.Group // Members and Watch
	conn           client.Conn
	path           string
	data           []byte
	guarded        bool

	cb     *client.Callbacks
	mu     client.Mutex
	active bool
}

func newKeeper(conn client.Conn, dir, name string, guarded bool) *keeper {
	return &keeper{Group: recipes.NewGroup(conn, dir, name), conn: conn, path: dir + "/" + name, guarded: guarded}
}

// lock takes the keeper's mutex, if it is guarded.
func (k *keeper) lock(ctx context.Context) error {
	if !k.guarded {
		return nil
	}
	return k.mu.Lock(ctx)
}

func (k *keeper) unlock() {
	if k.guarded {
		k.mu.Unlock()
	}
}

// Join starts the event thread on first use, and keeps the node from now on.
func (k *keeper) Join(ctx context.Context, data []byte) error {
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
func (k *keeper) Leave(ctx context.Context) error {
	if err := k.lock(ctx); err != nil {
		return err
	}
	defer k.unlock()
	k.active = false
	for {
		ok, st, err := k.conn.Exists(ctx, k.path)
		switch {
		case transient(err):
			continue
		case err != nil:
			return err
		case !ok || st.EphemeralOwner != k.conn.SessionID():
			return nil // gone, or its session's: it goes with it
		}
		err = k.conn.Delete(ctx, k.path, st.Version)
		if err == nil || errors.Is(err, zk.ErrNoNode) {
			return nil
		}
		if !transient(err) && !errors.Is(err, zk.ErrBadVersion) {
			return err
		}
	}
}

// ensure creates the node unless it is there, and watches it, with a
// callback that creates it again when it goes.
func (k *keeper) ensure(ctx context.Context) error {
	for {
		_, err := k.conn.Create(ctx, k.path, k.data, zk.FlagEphemeral, lockACL)
		switch {
		case errors.Is(err, zk.ErrNoNode):
			if err := ensureDir(ctx, k.conn, k.path[:strings.LastIndex(k.path, "/")]); err != nil {
				return err
			}
			continue
		case transient(err):
			continue
		case err != nil && !errors.Is(err, zk.ErrNodeExists):
			return err
		}
		// Ours, or an older session's still going: watch it either way.
		ok, _, w, err := k.conn.ExistsW(ctx, k.path)
		switch {
		case transient(err), err == nil && !ok:
			continue
		case err != nil:
			return err
		}
		k.cb.OnWatch(w, k.onNode)
		return nil
	}
}

// onNode runs on the event thread when the node's watch fires.
func (k *keeper) onNode(ctx context.Context, ev zk.Event) {
	if ev.Type == zk.EventNodeDeleted {
		k.keep(ctx)
	}
}

// onSession runs on the event thread on each session event: a session
// that comes (a new one, after an expiry) needs the node again.
func (k *keeper) onSession(ctx context.Context, ev zk.Event) {
	if ev.State == zk.StateHasSession {
		k.keep(ctx)
	}
}

// keep creates the node again if the member is still in the group.
func (k *keeper) keep(ctx context.Context) {
	if err := k.lock(ctx); err != nil {
		return
	}
	defer k.unlock()
	if k.active {
		_ = k.ensure(ctx) // a failure is retried at the next event
	}
}

// TestKeeper checks the guarded keeper with zksimtest's defaults.
// (make soak runs it on 10,000 seeds).
func TestKeeper(t *testing.T) { keeperCheck(true)(t) }

// TestKeeperUnguarded is the keeper without its mutex: it runs only to
// replay (it fails, which is its point).
func TestKeeperUnguarded(t *testing.T) {
	if flag.Lookup("zksim.seed").Value.String() == "0" {
		t.Skip("the mistake, caught: run it with the -zksim flags of its replay line")
	}
	keeperCheck(false)(t)
}

// keeperCheck checks the keeper, guarded or not, with zksimtest's
// defaults, as the tutorial shows (docs/tutorial.md §9).
func keeperCheck(guarded bool) func(testing.TB) {
	return func(t testing.TB) {
		zksimtest.Check(t, "membership", recipes.Implementation{Membership: func(conn client.Conn, dir, name string) recipes.Membership {
			return newKeeper(conn, dir, name, guarded)
		}}, zksimtest.Options{})
	}
}

// The unguarded keeper is caught by the defaults: a member that left is
// still listed, its node made again by the event thread after its Leave;
// the replay line runs the counterexample again exactly, and is the line
// the tutorial prints.
func TestKeeperRaceIsCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("a search and a shrink: minutes under the race detector (make test's -race -short pass); the full pass runs it")
	}
	msg := run("TestKeeperUnguarded", keeperCheck(false))
	if !strings.Contains(msg, "membership (liveness)") || !strings.Contains(msg, "c4 in it and no member") {
		t.Fatalf("the defaults did not catch a member whose event thread makes its node again after Leave:\n%s", msg)
	}
	checkReplays(t, msg, keeperCheck(false))
	tutorialPrints(t, "§9", msg)
}
