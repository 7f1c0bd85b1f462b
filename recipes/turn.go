package recipes

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// turn is how a recipe built on sequential nodes waits for its turn (the
// lock's steps 2–5, the shared lock's 2–6, the election's): list the
// children, sort them by sequence number, find our node; if nothing blocks
// it, take the lease; otherwise watch the node that blocks it (exists with
// a watch), and list again once it is gone.
type turn struct {
	// blocker names the child that keeps the node at index i of the sorted
	// children kids from its turn, or "" if none does. Nil means the next
	// lower node (the lock's and the election's step 4): predecessor.
	blocker  func(kids []string, i int) string
	mistakes turnMistakes
}

// turnMistakes are the teaching variants' switches in waiting for a turn
// (the recipe never sets them): unsorted trusts getChildren's order (the
// lock-unsorted variant's mistake); watchAll watches the parent's children
// instead of the blocker (the lock-herd variant's); trustDeletion takes
// the blocker's deletion for the turn, without listing again (the
// election-trusts-deletion variant's); breakAfter, when set, deletes the
// blocker once it has been waited for that long, taking its holder for
// dead (the lock-breaks-stale variant's).
type turnMistakes struct {
	unsorted, watchAll, trustDeletion bool
	breakAfter                        time.Duration
}

// predecessor is the node with the next lower sequence number than mine
// among kids, as bySequence orders them ("" if mine is the lowest), and
// whether mine is among them: one pass, without sorting (a waiter among
// thousands needs only its predecessor, not the whole order). Written
// plainly on purpose: a form tuned to read ten-digit suffixes as machine
// words was 3 times faster on a listing of 10,000 children (31 µs against
// 100 µs), which is about a second of the 10,000-client crowd's 5 to 6 s
// (zksim bench), within its target either way.
func predecessor(kids []string, mine string) (prev string, found bool) {
	ms, ps := sequenceOf(mine), int64(0)
	for _, k := range kids {
		if k == mine {
			found = true
			continue
		}
		ks := sequenceOf(k)
		if compareSequenced(ks, k, ms, mine) < 0 && (prev == "" || compareSequenced(ks, k, ps, prev) > 0) {
			prev, ps = k, ks
		}
	}
	return prev, found
}

// listedBefore is the node listed just before index i (the unsorted
// variant's idea of the predecessor), or "" for the first.
func listedBefore(kids []string, i int) string {
	if i == 0 {
		return ""
	}
	return kids[i-1]
}

// await waits until node, a child of dir, has its turn, and returns the
// lease on it. These are the lock recipe's steps 2 to 5 (the shared
// lock's 2 to 6, the election's: only the blocker differs):
//
//  2. call getChildren() on the lock node, without a watch;
//  3. if nothing blocks our node (the lock: it has the lowest sequence
//     number), we hold the lock;
//  4. otherwise call exists(), with a watch, on the node that blocks it
//     (the lock: the next lower one);
//  5. if exists() returns false, go to step 2; otherwise wait for its
//     notification, then go to step 2.
//
// Our node is ephemeral: once the client's session is another than the
// one that made it, the node is gone with the old one (ErrNodeVanished),
// even while a server still lists it.
func (t turn) await(ctx context.Context, conn client.Conn, dir, node string) (*Lease, error) {
	w := waiter{turn: t, conn: conn, dir: dir, node: node, owner: conn.SessionID()}
	for {
		kids, all, err := w.list(ctx) // step 2
		if transient(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		prev, err := w.blocker(kids)
		if err != nil {
			return nil, err
		}
		if prev == "" {
			return grantLease(ctx, conn, node) // step 3
		}
		if t.mistakes.watchAll { // the herd variant's step 4: the whole directory
			if _, err := all.Wait(ctx); err != nil {
				return nil, err
			}
			continue
		}
		watch, err := w.watch(ctx, prev) // step 4
		if transient(err) || err == nil && watch == nil {
			continue // step 5: gone already (or listed in a session since lost): back to 2
		}
		if err != nil {
			return nil, err
		}
		ev, err := w.wait(ctx, watch, prev) // step 5: its notification, then back to 2
		if errors.Is(err, errBroken) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if t.mistakes.trustDeletion && ev.Type == zk.EventNodeDeleted {
			return grantLease(ctx, conn, node)
		}
	}
}

// waiter is one wait for a turn: the node, the session that made it, and
// the session the last listing was read in.
type waiter struct {
	turn
	conn      client.Conn
	dir, node string
	owner     int64 // the session our node belongs to
	listedIn  int64 // the session the last listing was read in
}

// list is step 2: the lock node's children (with a watch on them for the
// herd variant), read in the session our node belongs to.
func (w *waiter) list(ctx context.Context) ([]string, client.Watch, error) {
	// A watch set in another session than the listing's (the old one
	// expired meanwhile, the client got a new one) would wait on a
	// listing in which our node may be gone with the old session.
	w.listedIn = w.conn.SessionID()
	var kids []string
	var all client.Watch
	var err error
	if w.mistakes.watchAll {
		kids, _, all, err = w.conn.ChildrenW(ctx, w.dir)
	} else {
		kids, _, err = w.conn.Children(ctx, w.dir)
	}
	if err == nil && w.conn.SessionID() != w.owner {
		err = ErrNodeVanished // our session is gone, and our node with it
	}
	return kids, all, err
}

// blocker is steps 3 and 4's question: which child blocks our node ("" for
// none: our turn). Our node missing from the listing is gone.
func (w *waiter) blocker(kids []string) (string, error) {
	mine := base(w.node)
	if w.turn.blocker == nil && !w.mistakes.unsorted {
		prev, found := predecessor(kids, mine)
		if !found {
			return "", ErrNodeVanished
		}
		return prev, nil
	}
	if !w.mistakes.unsorted {
		sortBySequence(kids)
	}
	i := slices.Index(kids, mine)
	if i < 0 {
		return "", ErrNodeVanished
	}
	if w.turn.blocker == nil {
		return listedBefore(kids, i), nil
	}
	return w.turn.blocker(kids, i), nil
}

// errBroken says the lock-breaks-stale variant deleted the blocker.
var errBroken = errors.New("recipes: the blocker's node was deleted as stale")

// wait is step 5's wait for the blocker prev's notification. The
// lock-breaks-stale variant waits only mistakes.breakAfter, then deletes
// prev, taking its holder for dead: errBroken.
func (w *waiter) wait(ctx context.Context, watch client.Watch, prev string) (zk.Event, error) {
	if w.mistakes.breakAfter == 0 {
		return watch.Wait(ctx)
	}
	wctx, cancel := w.conn.WithTimeout(ctx, w.mistakes.breakAfter)
	ev, err := watch.Wait(wctx)
	cancel()
	if err == nil || ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded) {
		return ev, err
	}
	_ = deleteNode(ctx, w.conn, w.dir+"/"+prev) // the mistake: its holder may be alive, and slow
	return ev, errBroken
}

// watch is step 4: exists() with a watch on the blocker prev. A nil watch
// without an error means step 5's "go to step 2": prev is gone already,
// or the listing was read in a session since lost.
func (w *waiter) watch(ctx context.Context, prev string) (client.Watch, error) {
	ok, _, watch, err := w.conn.ExistsW(ctx, w.dir+"/"+prev)
	if err != nil {
		return nil, err
	}
	if w.conn.SessionID() != w.owner {
		return nil, ErrNodeVanished // our session is gone, and our node with it
	}
	if !ok || w.conn.SessionID() != w.listedIn {
		return nil, nil
	}
	return watch, nil
}

// grantLease makes the lease of the holder of node, after checking that
// the node is still there and still belongs to this session.
func grantLease(ctx context.Context, conn client.Conn, node string) (*Lease, error) {
	for {
		ok, st, err := conn.Exists(ctx, node)
		if transient(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if !ok || st.EphemeralOwner != conn.SessionID() {
			return nil, ErrNodeVanished
		}
		return newLease(conn, node, st.Czxid), nil
	}
}
