package recipes

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/go-zookeeper/zk"
)

// The double barrier's step 3, create(n, EPHEMERAL), made safe: a create
// whose reply was lost, a node of ours owned by a session the client gave
// up, a node gone with an expired session before or after the barrier
// opened. Enter calls it as the recipe's step 3 (and await again when the
// session changes), so that Enter and Leave read as the recipe's steps.

// create is step 3, with the recovery of a lost reply: create again, and a
// NodeExists whose node our session owns means the first create was applied.
//
// A node of our name owned by a former session of ours (one we gave up
// while the servers still hold it) is ours too: it is the node the others
// may have counted. Before the barrier opens we adopt it, replacing it in
// one multi by a node of the current session, so that it never goes
// missing and does not go when the servers expire the old session (nobody
// watches process nodes while entering). Once it is open we keep it as it
// is (see below).
//
// An attempt made in a session since lost may have created our node: the
// barrier may have opened with it, and the others computed and left once
// it went. Our node, created again in the new session, then joins a round
// that may be over: if ready was created before our name was there without
// a gap since (a lower czxid), our node vanished (ErrNodeVanished). If
// ready came after it, whoever passed counted our node.
func (d *NodeDoubleBarrier) create(ctx context.Context, node, ready string) error {
	for {
		done, err := d.createOnce(ctx, node, ready)
		if done {
			return err
		}
	}
}

// createOnce is one attempt of create; done says create is over, with
// err, and otherwise it is to be tried again.
func (d *NodeDoubleBarrier) createOnce(ctx context.Context, node, ready string) (done bool, err error) {
	if d.doubt() {
		// Our node may be there from a session we lost. If the barrier is
		// open, a node made now would join a round that went on without
		// it (and deleting it again would wake whoever waits on it): only
		// the one we had counts.
		if done, err := d.reopen(ctx, node, ready); done || err != nil {
			return true, err
		}
	}
	d.note()
	_, err = d.conn.Create(ctx, node, nil, zk.FlagEphemeral, d.acl)
	d.note()
	switch {
	case err == nil:
		d.since, d.mine = 0, 0
		return d.settle(ctx, node, ready)
	case transient(err), expired(err):
		return false, nil
	case !errors.Is(err, zk.ErrNodeExists):
		return true, err
	case d.mistakes.existsTaken:
		return true, fmt.Errorf("%w: %s", ErrBarrierNameTaken, node) // without asking whose node it is
	}
	return d.existing(ctx, node, ready)
}

// settle finishes create with our node there: done, unless our node has
// become a former session's meanwhile, to be claimed again.
func (d *NodeDoubleBarrier) settle(ctx context.Context, node, ready string) (done bool, err error) {
	if err := d.created(ctx, node, ready); !errors.Is(err, errReclaim) {
		return true, err
	}
	return false, nil
}

// existing is create's answer to NodeExists: whose node is it? Ours (an
// attempt whose reply was lost), a former session's of ours
// (formerNode), or another process's (ErrBarrierNameTaken).
func (d *NodeDoubleBarrier) existing(ctx context.Context, node, ready string) (done bool, err error) {
	ok, st, err := d.conn.Exists(ctx, node)
	switch {
	case transient(err), expired(err):
		return false, nil
	case err != nil:
		return true, err
	case !ok:
		return false, nil // gone meanwhile: create it
	case st.EphemeralOwner == d.conn.SessionID() && st.EphemeralOwner != 0:
		if st.Czxid != d.mine {
			d.since, d.mine = 0, 0
		}
		return d.settle(ctx, node, ready) // our own, from an attempt whose reply was lost
	case d.former(st.EphemeralOwner):
		return d.formerNode(ctx, node, ready, st)
	}
	return true, fmt.Errorf("%w: %s", ErrBarrierNameTaken, node)
}

// formerNode is create's way with our node held by a former session of
// ours. Open already (after our node: the others counted it)? Then they
// may be leaving, waiting on our node: replacing it would wake them all
// for nothing. Keep it: if the servers expire its session before we
// leave, Leave finds it gone and says so. Not open: adopt it. b's
// version, read before ready, lets the adoption happen only if the
// barrier has not opened since (opening bumps it, see createReady): our
// read of ready may be old by the time the multi is applied, and
// replacing our node then would wake whoever waits on it in Leave.
func (d *NodeDoubleBarrier) formerNode(ctx context.Context, node, ready string, st *zk.Stat) (done bool, err error) {
	session := d.conn.SessionID()
	var r *zk.Stat
	var open bool
	_, bst, err := d.conn.Exists(ctx, d.dir)
	if err == nil {
		open, r, err = d.conn.Exists(ctx, ready)
	}
	switch {
	case transient(err), expired(err):
		return false, nil
	case err != nil:
		return true, err
	case open:
		if r.Czxid < d.heldSince(st.Czxid) && d.doubt() {
			return true, ErrNodeVanished // it opened before our node was there
		}
		return true, nil
	}
	if bst == nil || d.conn.SessionID() != session {
		return false, nil // read b and ready in one session: look again
	}
	adopted, err := d.adopt(ctx, node, st, bst.Version)
	if err != nil {
		return true, err
	}
	if adopted {
		return d.settle(ctx, node, ready)
	}
	return false, nil // it changed meanwhile: look again
}

// reopen is create's look before creating again after a session lost: if
// ready exists, we are in only with the node of ours that was there before
// it, still there (done, nil), else we vanished. done is false when ready
// does not exist (create our node, or adopt it).
//
// It brings its server up to date first (UpToDate): the new session has
// seen nothing and may read a lagging
// server, one that has not yet applied ready (we would create our node
// again, find it late and delete it, waking whoever waits on it).
func (d *NodeDoubleBarrier) reopen(ctx context.Context, node, ready string) (done bool, err error) {
	if err := barrierSync(ctx, d.conn); err != nil {
		return true, err
	}
	for {
		open, r, err := d.conn.Exists(ctx, ready)
		var ok bool
		var st *zk.Stat
		if err == nil && open {
			ok, st, err = d.conn.Exists(ctx, node)
		}
		switch {
		case transient(err), expired(err):
			continue
		case err != nil:
			return true, err
		case !open:
			return false, nil
		case !ok:
			return true, ErrNodeVanished
		case st.EphemeralOwner != d.conn.SessionID() && !d.former(st.EphemeralOwner):
			return true, fmt.Errorf("%w: %s", ErrBarrierNameTaken, node)
		}
		since := d.heldSince(st.Czxid)
		if r.Czxid < since {
			return true, ErrNodeVanished // it opened before our node was there
		}
		return true, nil
	}
}

// heldSince is the czxid of the first node we held without a gap, when
// our node now is the one of czxid: the node adopt replaced, if that is the
// node we hold, or the node itself.
func (d *NodeDoubleBarrier) heldSince(czxid int64) int64 {
	if d.since != 0 && czxid == d.mine {
		return d.since
	}
	return czxid
}

// doubt reports whether a create of our node may have been applied in a
// session of ours since lost, one the caller has not been told about.
func (d *NodeDoubleBarrier) doubt() bool {
	return slices.ContainsFunc(d.tried[d.told:], d.former)
}

// note remembers the current session among those a create of our node may
// be applied in.
func (d *NodeDoubleBarrier) note() {
	if s := d.conn.SessionID(); s != 0 && !slices.Contains(d.tried, s) {
		d.tried = append(d.tried, s)
	}
}

// former reports whether owner is a session of ours other than the
// current one, in which we may have created our node.
func (d *NodeDoubleBarrier) former(owner int64) bool {
	return owner != 0 && owner != d.conn.SessionID() && slices.Contains(d.tried, owner)
}

// adopt replaces st, our node owned by a former session of ours, by one of
// the current session, in one multi: the name never goes missing. The
// multi checks that b is still at version bver, read before ready was
// seen absent: the barrier has not opened since. It reports false when
// the node or b changed meanwhile (look again). since keeps the czxid of
// the first node we held without a gap.
func (d *NodeDoubleBarrier) adopt(ctx context.Context, node string, st *zk.Stat, bver int32) (bool, error) {
	since := d.heldSince(st.Czxid)
	for {
		d.note()
		_, err := d.conn.Multi(ctx,
			&zk.CheckVersionRequest{Path: d.dir, Version: bver},
			&zk.DeleteRequest{Path: node, Version: st.Version},
			&zk.CreateRequest{Path: node, Acl: d.acl, Flags: zk.FlagEphemeral})
		d.note()
		switch {
		case err == nil:
		case transient(err), expired(err):
			// Applied or not, look again: if it was, the node is ours (in
			// this session or a former one), though we cannot tell that it
			// was without a gap: created then judges by its own czxid.
			return false, nil
		case errors.Is(err, zk.ErrNoNode), errors.Is(err, zk.ErrBadVersion), errors.Is(err, zk.ErrNodeExists):
			return false, nil
		default:
			return false, err
		}
		for {
			ok, nst, err := d.conn.Exists(ctx, node)
			switch {
			case transient(err):
				continue
			case err == nil && ok:
				d.since, d.mine = since, nst.Czxid
			}
			return true, nil
		}
	}
}

// created checks, once our node is there, a create of it that may have
// been applied in a session since lost: see create. With no such session
// there is nothing to check.
func (d *NodeDoubleBarrier) created(ctx context.Context, node, ready string) error {
	if !d.doubt() {
		return nil
	}
	for {
		session := d.conn.SessionID()
		ok, mine, err := d.conn.Exists(ctx, node)
		if err == nil && !ok {
			return ErrNodeVanished
		}
		open := false
		var r *zk.Stat
		if err == nil {
			open, r, err = d.conn.Exists(ctx, ready)
		}
		switch {
		case transient(err), expired(err):
			continue
		case err != nil:
			return err
		}
		since := d.heldSince(mine.Czxid)
		if d.conn.SessionID() != session {
			continue // read node and ready in one session: look again
		}
		if open && r.Czxid < since {
			return ErrNodeVanished // it opened before our node was there again
		}
		if !open && mine.EphemeralOwner != session {
			// The session we created it in was lost since (this look
			// outlived it): the node goes when the servers expire that
			// session, and nobody watches it while entering. Claim it
			// again (adopt it) before the barrier opens.
			return errReclaim
		}
		return nil
	}
}

// errReclaim is created's answer when our node is owned by a former
// session of ours and the barrier has not opened: create claims it again.
var errReclaim = errors.New("recipes: double barrier node held by a former session")
