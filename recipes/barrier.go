package recipes

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// NodeBarrier is the barrier recipe ("Barriers"): a barrier node, path,
// that blocks processing while it exists. (The kind's interface, in
// kinds.go, is Barrier.) Set creates it, Remove deletes it, and
// Wait blocks until it is gone.
//
// Wait brings the session's server up to date (UpToDate: sync() is not
// enough on the leader) before its first exists(), and again after its
// session was replaced: ZooKeeper lets a session read older data than
// another client has written, so a waiter who knows by other means that
// the barrier was set could otherwise read a state before Set and walk
// through. The recipe's own steps are unchanged.
type NodeBarrier struct {
	conn client.Conn
	path string
	acl  []zk.ACL

	sets int // numbers the Set calls, to tell our own node from another's

	noSync bool // the barrier-no-sync teaching variant: read without sync()
}

var _ Barrier = (*NodeBarrier)(nil)

// NewBarrier returns the barrier whose node is path (the recipe's barrier
// node, "b").
func NewBarrier(conn client.Conn, path string) *NodeBarrier {
	return &NodeBarrier{conn: conn, path: path, acl: zk.WorldACL(zk.PermAll)}
}

// Set raises the barrier: create the barrier node (a regular node: the
// barrier outlives whoever set it). A barrier that is already up is not an
// error. If ctx ends before Set knows the outcome, the node is removed if
// this call created it (its data names the call).
func (b *NodeBarrier) Set(ctx context.Context) error {
	if err := ensureParent(ctx, b.conn, b.path); err != nil {
		return err
	}
	b.sets++
	mark := []byte(fmt.Sprintf("%016x-%d", b.conn.SessionID(), b.sets))
	for {
		_, err := b.conn.Create(ctx, b.path, mark, 0, b.acl)
		switch {
		case err == nil, errors.Is(err, zk.ErrNodeExists):
			// Up, by us or by someone else; after a lost reply, NodeExists
			// may be our own earlier attempt. Either way the barrier is up.
			return nil
		case transient(err):
			continue
		case ctx.Err() != nil:
			b.unset(ctx, mark)
			return ctx.Err()
		}
		return err
	}
}

// unset deletes the barrier node after a cancelled Set, if Set created it.
func (b *NodeBarrier) unset(ctx context.Context, mark []byte) {
	cctx, cancel := cleanup(ctx, b.conn)
	defer cancel()
	for {
		data, st, err := b.conn.Get(cctx, b.path)
		if transient(err) {
			continue
		}
		if err != nil || string(data) != string(mark) {
			return // gone, someone else's, or we cannot tell: leave it
		}
		err = b.conn.Delete(cctx, b.path, st.Version)
		if transient(err) {
			continue
		}
		return
	}
}

// Remove lowers the barrier: delete the barrier node, letting every waiting
// process through. A barrier that is already down is not an error.
func (b *NodeBarrier) Remove(ctx context.Context) error {
	return deleteNode(ctx, b.conn, b.path)
}

// Wait blocks while the barrier is up:
//
//  1. call exists() on the barrier node, with a watch;
//  2. if exists() returns false, the barrier is gone: return;
//  3. otherwise wait for the watch event on the barrier node;
//  4. when it is triggered, go to 1.
//
// A watch that fires because the session expired (zk.EventNotWatching) is
// also an event: the exists() of step 1 is reissued in the new session.
func (b *NodeBarrier) Wait(ctx context.Context) error {
	session := int64(-1) // sync before the first read
	for {
		if s := b.conn.SessionID(); s != session && !b.noSync {
			if err := barrierSync(ctx, b.conn); err != nil {
				return err
			}
			session = s
		}
		up, _, w, err := b.conn.ExistsW(ctx, b.path) // step 1
		if transient(err) || expired(err) {
			continue
		}
		if err != nil {
			return err
		}
		if !up {
			return nil // step 2
		}
		if _, err := w.Wait(ctx); err != nil { // step 3
			return err
		}
		// step 4: reissue exists()
	}
}

// barrierSync brings the session's server up to date (UpToDate), so that
// the next read sees every write that returned before it, trying again
// in a new session when the session expires.
func barrierSync(ctx context.Context, conn client.Conn) error {
	for {
		err := UpToDate(ctx, conn)
		switch {
		case err == nil:
			return nil
		case transient(err), expired(err):
			continue
		}
		return err
	}
}
