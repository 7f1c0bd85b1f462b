package recipes

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// ErrBarrierNameTaken says another live session holds a process node of the
// same name in the double barrier: two processes were given one name.
var ErrBarrierNameTaken = errors.New("recipes: another process entered the double barrier under this name")

// doubleBarrierReady is the name of the ready node, the flag Enter waits
// for. It is a child of the barrier node but never a process node.
const doubleBarrierReady = "ready"

// NodeDoubleBarrier is the double barrier recipe ("Double Barriers"): size
// processes (the recipe's x) enter the barrier node (b) together, compute,
// and leave together. (The kind's interface, in kinds.go, is
// DoubleBarrier.)
//
// Process nodes. Process p's node is b/p, named for the process as in the
// recipe's step 1 (n = b+"/"+p), ephemeral and not sequential; every other
// child of b except "ready" is a process node. "Lowest" and "highest" in
// Leave compare process names (byte order): any order every process agrees
// on does, since it only picks which process plays the lowest. Names must
// be distinct, non-empty, without '/', and not "ready".
//
// Failures. Process nodes are ephemeral, so a process whose session
// expires (it crashed, or was paused or cut off past its session timeout)
// loses its node and stops counting: the others, who wait on process nodes
// going away, are not blocked by it. Such a process learns it from Enter
// or Leave as ErrNodeVanished: the others did not wait for it.
//
// One round per barrier node: the ready node is never deleted, so a barrier
// node that was entered once stays open. Use a fresh path for each round
// (b/round-1, b/round-2, ...).
type NodeDoubleBarrier struct {
	conn client.Conn
	dir  string
	name string
	size int
	acl  []zk.ACL

	node    string // b/p while entered
	session int64  // the session that created node

	// tried is every session of ours a create of our node may have been
	// applied in (noted around each attempt). A client that gives its
	// session up on its own clock (Curator's policy) opens a new one while
	// the servers still hold the old one, and our node with it: a node of
	// our name owned by one of these sessions is ours, from a session lost.
	tried []int64
	// since is the czxid of the first node of our name we have held
	// without a gap (an adoption replaces a node atomically), 0 if unknown;
	// mine is the czxid of the one we hold now.
	since, mine int64
	// told is how many of tried the caller has been told about: an Enter
	// that returned ErrNodeVanished ends the doubt of the attempts before,
	// and the next Enter is a fresh (late) entry.
	told int

	mistakes doubleBarrierMistakes
}

// doubleBarrierMistakes are the teaching variants' switches
// (doublebarriervariants.go sets them; the recipe never does): herd makes
// every leaving process watch b's children; trustLowest leaves as soon as
// the lowest process node goes; countReady takes the ready node for a
// process node.
type doubleBarrierMistakes struct {
	herd, trustLowest, countReady bool
	existsTaken                   bool // double-barrier-exists-taken: NodeExists means another process's name
}

var _ DoubleBarrier = (*NodeDoubleBarrier)(nil)

// NewDoubleBarrier returns process name's handle on the double barrier
// whose node is path, which size processes must enter before any computes.
func NewDoubleBarrier(conn client.Conn, path, name string, size int) *NodeDoubleBarrier {
	return &NodeDoubleBarrier{conn: conn, dir: path, name: name, size: size, acl: zk.WorldACL(zk.PermAll)}
}

// Enter blocks until size processes have entered:
//
//  1. create a name n = b+"/"+p;
//  2. set a watch: exists(b+"/ready", true);
//  3. create the child: create(n, EPHEMERAL);
//  4. L = getChildren(b, false);
//  5. if L holds fewer process nodes than x, wait for the watch event;
//  6. else create(b+"/ready", REGULAR).
//
// If ready already exists at step 2 the barrier is open: Enter returns once
// its node is created. A create() whose reply was lost is retried, and a
// NodeExists answer owned by our own session, or by a former session of
// this handle (given up by the client while the servers still hold it), is
// our node. When the client moves to a new session while waiting, our node
// is claimed again (see create); if it vanished and the barrier opened
// without it, Enter returns ErrNodeVanished; the caller may Enter again (a
// late entry). If ctx ends, our node is deleted.
func (d *NodeDoubleBarrier) Enter(ctx context.Context) error {
	err := d.enter(ctx)
	if errors.Is(err, ErrNodeVanished) {
		d.told = len(d.tried)
	}
	return err
}

// enter is Enter.
func (d *NodeDoubleBarrier) enter(ctx context.Context) error {
	if err := d.check(); err != nil {
		return err
	}
	if d.node != "" {
		return fmt.Errorf("%w: Enter while already in the double barrier", ErrAlreadyHeld)
	}
	if err := ensurePath(ctx, d.conn, d.dir); err != nil {
		return err
	}
	node := d.dir + "/" + d.name // step 1
	ready := d.dir + "/" + doubleBarrierReady
	open, w, err := d.watchReady(ctx, ready) // step 2
	if err != nil {
		return err
	}
	if err := d.create(ctx, node, ready); err != nil { // step 3
		if ctx.Err() != nil || errors.Is(err, ErrNodeVanished) {
			d.abandon(ctx, node)
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
		return err
	}
	d.node, d.session = node, d.conn.SessionID()
	if open {
		return nil
	}
	if err := d.await(ctx, node, ready, w); err != nil {
		// Our node is normally gone with our session; but a create queued
		// across an expiry runs in the next session, so delete it if ours.
		d.abandon(ctx, node)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	return nil
}

// check validates the process name and the size.
func (d *NodeDoubleBarrier) check() error {
	if d.name == "" || d.name == "." || d.name == ".." || d.name == doubleBarrierReady ||
		strings.ContainsAny(d.name, "/\x00") {
		return fmt.Errorf("recipes: %q cannot name a process of a double barrier", d.name)
	}
	if d.size < 1 {
		return fmt.Errorf("recipes: a double barrier for %d processes", d.size)
	}
	return nil
}

// watchReady is step 2: exists(b+"/ready", true). It reports whether ready
// exists, and the watch.
func (d *NodeDoubleBarrier) watchReady(ctx context.Context, ready string) (bool, client.Watch, error) {
	for {
		ok, _, w, err := d.conn.ExistsW(ctx, ready)
		if transient(err) || expired(err) {
			continue
		}
		return ok, w, err
	}
}

// await is steps 4 to 6. When the client moves to another session (it
// gave the old one up, or the servers expired it), our node is claimed
// again (create: adopted if the old session's node is still there, made
// again if not and the barrier has not opened without it), and the watch
// on ready set again in the new session.
func (d *NodeDoubleBarrier) await(ctx context.Context, node, ready string, w client.Watch) error {
	for {
		if d.conn.SessionID() != d.session {
			if err := d.create(ctx, node, ready); err != nil {
				return err
			}
			d.session = d.conn.SessionID()
			open, nw, err := d.watchReady(ctx, ready)
			if err != nil || open {
				return err
			}
			w = nw
			continue
		}
		kids, err := d.children(ctx) // step 4
		if expired(err) {
			continue
		}
		if err != nil {
			return err
		}
		if d.conn.SessionID() != d.session {
			continue
		}
		procs := d.processes(kids)
		if !slices.Contains(procs, d.name) {
			return ErrNodeVanished
		}
		if len(procs) >= d.size { // step 6
			if err := d.createReady(ctx, ready); err != nil {
				return err
			}
			if d.conn.SessionID() != d.session {
				// Our session was lost while ready was being created: our
				// node may have gone with it, and the round with it (the
				// others passed, counting it, and left once it went).
				// Claim it again, above: reopen says whether we are in.
				continue
			}
			return nil
		}
		ev, err := w.Wait(ctx) // step 5
		if err != nil {
			return err
		}
		switch ev.Type {
		case zk.EventNodeCreated:
			return nil
		case zk.EventNotWatching:
			if d.conn.SessionID() != d.session {
				continue // claim our node again, above
			}
			// The watch was set in a session before the one our node lives
			// in (create outlived an expiry): set it again, below.
		}
		// Another event on ready (it was changed or deleted): watch again.
		open, nw, err := d.watchReady(ctx, ready)
		if err != nil || open {
			return err
		}
		w = nw
	}
}

// createReady is step 6: create(b+"/ready", REGULAR). Whoever creates it
// first wins; NodeExists is success. The same multi sets b's (empty) data,
// bumping its version: a process adopting its node from a former session
// checks that version, so that it never replaces a node the others, out
// of the barrier, may be waiting on (see create).
func (d *NodeDoubleBarrier) createReady(ctx context.Context, ready string) error {
	for {
		_, err := d.conn.Multi(ctx,
			&zk.CreateRequest{Path: ready, Acl: d.acl},
			&zk.SetDataRequest{Path: d.dir, Version: -1})
		switch {
		case err == nil, errors.Is(err, zk.ErrNodeExists):
			return nil
		case transient(err), expired(err):
			// ready is persistent: the next session creates it as well
			// (failing, our node, maybe still held, would be abandoned).
			continue
		}
		return err
	}
}

// children lists b, retrying through connection losses. A missing b has no
// children.
func (d *NodeDoubleBarrier) children(ctx context.Context) ([]string, error) {
	for {
		kids, _, err := d.conn.Children(ctx, d.dir)
		switch {
		case err == nil:
			return kids, nil
		case errors.Is(err, zk.ErrNoNode):
			return nil, nil
		case transient(err):
			continue
		}
		return nil, err
	}
}

// processes is the process nodes among b's children, lowest first. The
// ready node is not one (unless the counts-ready variant says so).
func (d *NodeDoubleBarrier) processes(kids []string) []string {
	var procs []string
	for _, k := range kids {
		if k != doubleBarrierReady || d.mistakes.countReady {
			procs = append(procs, k)
		}
	}
	slices.Sort(procs)
	return procs
}

// Leave blocks until every process has left:
//
//  1. L = getChildren(b, false);
//  2. if L has no process node, return;
//  3. if p is the only process node in L, delete(n) and return;
//  4. if p is the lowest process node in L, wait on the highest one;
//  5. else delete(n) if it still exists, and wait on the lowest one;
//  6. go to 1.
//
// "Wait on" is exists() with a watch, then its event. The lowest process
// node is the exit flag: the others, done, wait for it alone, and its owner
// waits for the others one at a time; so each deletion wakes one process,
// except the last, which wakes all.
//
// If our node is gone by the time Leave first reads the children (our
// session expired, likely during the computation), the others may not have
// waited for us: Leave returns ErrNodeVanished at once. A session that expires during Leave does not
// matter (we were done): Leave brings the new session's server up to date, so that it
// reads nothing older than what the old session saw, and goes on. If ctx
// ends, our node is deleted.
func (d *NodeDoubleBarrier) Leave(ctx context.Context) error {
	if d.node == "" {
		return fmt.Errorf("%w: Leave without Enter", ErrNotHeld)
	}
	if d.mistakes.herd {
		return d.leaveHerd(ctx)
	}
	session, first := d.session, true
	if d.doubt() {
		// Our node may still be the one a former session of ours created
		// (kept once the barrier had opened, see create), and the servers
		// expire that session on their own clock: our node may be gone
		// already while our server, lagging, still shows it. Sync before
		// the first listing (as after a session lost, below), so that a
		// node gone before this call is seen gone: ErrNodeVanished.
		session = 0
	}
	for {
		procs, err := d.leaveList(ctx, &session) // step 1
		if errors.Is(err, errListAgain) {
			continue
		}
		if err != nil {
			return d.quit(ctx, err)
		}
		i := slices.Index(procs, d.name)
		if first && i < 0 {
			d.node = ""
			return ErrNodeVanished
		}
		first = false
		done, err := d.leaveRound(ctx, procs, i) // steps 2 to 6
		if err != nil {
			return d.quit(ctx, err)
		}
		if done {
			d.node = ""
			return nil
		}
	}
}

// errListAgain says a listing must be made again.
var errListAgain = errors.New("list again")

// leaveList is Leave's step 1: the process nodes, listed by the session
// *session names (after a session lost, its server is brought up to date
// first: see Leave).
// errListAgain: the listing is to be made again (the session expired,
// or the answer may come from a new one).
func (d *NodeDoubleBarrier) leaveList(ctx context.Context, session *int64) ([]string, error) {
	if s := d.conn.SessionID(); s != *session {
		// Our node may outlive the session we lost: the client may have
		// given it up on its own clock while the servers still hold it.
		// Read, up to date, whether it is still there.
		if err := barrierSync(ctx, d.conn); err != nil {
			return nil, err
		}
		*session = s
	}
	kids, err := d.children(ctx)
	if expired(err) {
		return nil, errListAgain
	}
	if err != nil {
		return nil, err
	}
	if d.conn.SessionID() != *session {
		return nil, errListAgain // the answer may come from the new session: see above
	}
	return d.processes(kids), nil
}

// leaveRound is Leave's steps 2 to 6 on one listing, procs, in which our
// node is procs[i] (i < 0: gone). done: we have left (no process node is
// left, or ours was the last and is deleted). Otherwise it returns when
// the node waited on is gone, for a new listing.
func (d *NodeDoubleBarrier) leaveRound(ctx context.Context, procs []string, i int) (done bool, err error) {
	switch {
	case len(procs) == 0: // step 2
		return true, nil
	case i == 0 && len(procs) == 1: // step 3
		return true, deleteNodeAnySession(ctx, d.conn, d.node)
	}
	target := procs[0]
	if i == 0 {
		target = procs[len(procs)-1] // step 4
	} else if i > 0 {
		// step 5, on condition that the lowest node is still there: our
		// listing may be old (its reply delayed), and if the lowest has
		// gone since (its session ended), the others wait on whoever is
		// lowest now, maybe us, and deleting our node would wake them
		// all. A check op makes the delete atomic with that.
		gone, err := d.leaveBelow(ctx, target)
		if err != nil || gone {
			return false, err // gone: step 6, list again
		}
	}
	ok, _, w, err := d.conn.ExistsW(ctx, d.dir+"/"+target)
	if transient(err) || expired(err) || (err == nil && !ok) {
		return false, nil // gone already: step 6
	}
	if err != nil {
		return false, err
	}
	ev, err := w.Wait(ctx)
	if err != nil {
		return false, err
	}
	// The teaching variant's mistake: the lowest node is gone, so everyone
	// must be done. (Not if its owner failed.)
	return d.mistakes.trustLowest && i != 0 && ev.Type == zk.EventNodeDeleted, nil // else step 6: go to 1
}

// leaveBelow is step 5 for a process that is not the lowest: delete our
// node, in one multi with a check that the lowest process node is still
// there. retry is true when the multi was not applied, or its outcome is
// unknown (the lowest went, our node went already, a connection loss):
// list again, which tells.
func (d *NodeDoubleBarrier) leaveBelow(ctx context.Context, lowest string) (retry bool, err error) {
	_, err = d.conn.Multi(ctx,
		&zk.CheckVersionRequest{Path: d.dir + "/" + lowest, Version: -1},
		&zk.DeleteRequest{Path: d.node, Version: -1})
	switch {
	case err == nil:
		return false, nil
	case errors.Is(err, zk.ErrNoNode), (transient(err) || expired(err)):
		return true, nil
	}
	return false, err
}

// leaveHerd is the double-barrier-herd variant's Leave: delete our node,
// then watch b's children until no process node is left. Every deletion
// wakes every process still waiting.
func (d *NodeDoubleBarrier) leaveHerd(ctx context.Context) error {
	if d.conn.SessionID() != d.session {
		d.node = ""
		return ErrNodeVanished
	}
	if err := deleteNodeAnySession(ctx, d.conn, d.node); err != nil {
		return d.quit(ctx, err)
	}
	for {
		kids, _, w, err := d.conn.ChildrenW(ctx, d.dir)
		if transient(err) || expired(err) {
			continue
		}
		if errors.Is(err, zk.ErrNoNode) {
			kids, err = nil, nil
		}
		if err != nil {
			return d.quit(ctx, err)
		}
		if len(d.processes(kids)) == 0 {
			d.node = ""
			return nil
		}
		if _, err := w.Wait(ctx); err != nil {
			return d.quit(ctx, err)
		}
	}
}

// quit ends a Leave that failed or whose ctx ended: our node is deleted, so
// that the others are not held by a process that gave up leaving, and the
// context's error wins over err.
func (d *NodeDoubleBarrier) quit(ctx context.Context, err error) error {
	d.abandon(ctx, d.node)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// abandon deletes our node, if our session or a former one of ours (given
// up while the servers still hold it) owns it, after a failed or cancelled
// call.
func (d *NodeDoubleBarrier) abandon(ctx context.Context, node string) {
	d.node = ""
	if node == "" {
		return
	}
	cctx, cancel := cleanup(ctx, d.conn)
	defer cancel()
	for {
		ok, st, err := d.conn.Exists(cctx, node)
		if transient(err) || expired(err) {
			continue
		}
		if err != nil || !ok || st.EphemeralOwner != d.conn.SessionID() && !d.former(st.EphemeralOwner) {
			return
		}
		err = d.conn.Delete(cctx, node, st.Version)
		if transient(err) || expired(err) {
			continue
		}
		return
	}
}
