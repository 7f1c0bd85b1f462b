package recipes

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// Membership is one process's place in a group, and its view of the group.
// A member that joined stays in the group until it leaves: if its session
// expires (and its ephemeral node with it), it is back in the group, in
// its new session, by the time its next Members or Watch returns.
//
// What the group's workload does with its errors: each call of Join and
// Leave is recorded, one that returns an error as failed, with the error;
// after an error a caller must expect under faults (those Locker's doc
// lists), or a Join's ErrMemberExists (a node of its name that another
// session of its own still holds; it tries again a second later), the
// member calls again, and after any other the client fails. A watcher's
// Members and Watch calls are recorded as its views, one that returns an
// error as failed, with the error (it listed nothing), and the watcher
// calls again, or fails, likewise; it calls Watch with a deadline of its
// own, a second at a time, and a Watch that returns once that deadline has
// passed is not recorded (the workload gave the wait up; the watch stays
// set). A member's own Members and Watch calls, by which it follows its
// session, are not recorded, answers or errors; an error no fault explains
// fails it all the same.
type Membership interface {
	// Join adds the caller to the group, with data for the others to read.
	Join(ctx context.Context, data []byte) error
	// Leave takes the caller out of the group.
	Leave(ctx context.Context) error
	// Members lists the group's members, sorted.
	Members(ctx context.Context) ([]string, error)
	// Watch blocks until the group's members change, and returns the new
	// list, sorted.
	Watch(ctx context.Context) ([]string, error)
}

// ErrMemberExists says a member of that name is in the group already,
// under another session. It wraps zk.ErrNodeExists.
var ErrMemberExists = fmt.Errorf("recipes: a member of that name is in the group already: %w", zk.ErrNodeExists)

// ErrNotMember says a name is not a member of the group. It wraps
// zk.ErrNoNode.
var ErrNotMember = fmt.Errorf("recipes: not a member of the group: %w", zk.ErrNoNode)

// Group is group membership ("Out of the box Applications: Group
// Membership"): the group is a node; each member creates an ephemeral
// child of it, named for the member and holding its data; the members are
// the children. A member that fails abnormally is removed by ZooKeeper
// itself: its node goes with its session, once the session expires.
//
// A watcher lists the children with a watch, and lists them again, with a
// new watch, after each notification, so it misses no change: every
// change after a listing fires that listing's watch.
//
// A member whose session expired is no longer in the group, and learns it
// only when it reconnects. Its Group rejoins then, in the new session,
// the next time it is used (Members or Watch): the member is back in the
// group as soon as it can say so.
type Group struct {
	conn client.Conn
	dir  string
	name string
	acl  []zk.ACL

	data    []byte
	joined  bool
	session int64 // the session our node belongs to

	watch client.Watch // armed by the last listing, nil if none
	seen  []string     // the last list returned
	known bool         // seen holds a list

	// persistent joins with a persistent node (the membership-persistent
	// variant's mistake); forgets never rejoins after an expiry (the
	// membership-forgets-expiry variant's). Only the teaching variants set
	// them.
	persistent, forgets bool
}

var _ Membership = (*Group)(nil)

// NewGroup returns member name's handle on the group whose node is dir.
func NewGroup(conn client.Conn, dir, name string) *Group {
	return &Group{conn: conn, dir: dir, name: name, acl: zk.WorldACL(zk.PermAll)}
}

func (g *Group) path() string { return g.dir + "/" + g.name }

// Join adds the member to the group: create() dir/name, ephemeral, holding
// data (creating dir first if it is missing).
//
// If create() fails with a recoverable error, the node may exist: the
// retry says NodeExists, and the node is ours if its ephemeral owner is
// our session. A node of that name owned by another session is
// ErrMemberExists (perhaps our own previous session's, not yet expired:
// try again later). If ctx ends while a create()'s outcome is unknown, our
// node, if we made one, is deleted, and ctx's error is returned.
func (g *Group) Join(ctx context.Context, data []byte) error {
	g.data = data
	if err := g.create(ctx); err != nil {
		return err
	}
	g.joined = true
	return nil
}

// create creates our node, recognising it after a lost reply.
func (g *Group) create(ctx context.Context) error {
	flags := int32(zk.FlagEphemeral)
	if g.persistent {
		flags = zk.FlagPersistent
	}
	unsure := false // a create() may have been applied without our hearing of it
	for {
		if err := ctx.Err(); err != nil {
			return g.abandon(ctx, unsure, err)
		}
		_, err := g.conn.Create(ctx, g.path(), g.data, flags, g.acl)
		switch {
		case err == nil:
			g.session = g.conn.SessionID()
			return nil
		case retryable(err):
			continue // not sent: send again
		case recoverable(err):
			unsure = true
			continue // it may have been applied: then the retry says NodeExists
		case expired(err):
			unsure = false // a node made in the old session went with it
			continue
		case ctx.Err() != nil:
			return g.abandon(ctx, true, err)
		case errors.Is(err, zk.ErrNoNode):
			if err := ensurePath(ctx, g.conn, g.dir); err != nil {
				return g.abandon(ctx, unsure, err)
			}
			continue
		case !errors.Is(err, zk.ErrNodeExists):
			return g.abandon(ctx, unsure, err)
		case g.persistent:
			g.session = g.conn.SessionID()
			return nil // the variant cannot tell whose node it is, and takes it
		}
		ok, st, err := g.conn.Exists(ctx, g.path())
		switch {
		case transient(err):
			continue
		case err != nil:
			return g.abandon(ctx, unsure, err)
		case !ok:
			continue // gone since: create again
		case st.EphemeralOwner == g.conn.SessionID():
			g.session = st.EphemeralOwner
			return nil // our own create was applied
		}
		return fmt.Errorf("%w: %s", ErrMemberExists, g.name)
	}
}

// abandon ends a failed create: if ctx ended while a create()'s outcome
// was unknown, it deletes our node, if there is one. It returns err.
func (g *Group) abandon(ctx context.Context, unsure bool, err error) error {
	if ctx.Err() == nil || !unsure {
		return err
	}
	cctx, cancel := cleanup(ctx, g.conn)
	defer cancel()
	_ = g.deleteOwn(cctx)
	return err
}

// Leave takes the member out of the group: delete() its node, if the node
// is ours (a node of that name owned by another session is left alone).
func (g *Group) Leave(ctx context.Context) error {
	g.joined = false
	return g.deleteOwn(ctx)
}

func (g *Group) deleteOwn(ctx context.Context) error {
	for {
		ok, st, err := g.conn.Exists(ctx, g.path())
		switch {
		case transient(err):
			continue
		case err != nil:
			return err
		case !ok:
			return nil
		case !g.persistent && st.EphemeralOwner != g.conn.SessionID():
			return nil // not ours: ours went with an expired session
		}
		err = g.conn.Delete(ctx, g.path(), st.Version)
		switch {
		case err == nil, errors.Is(err, zk.ErrNoNode):
			return nil
		case transient(err), errors.Is(err, zk.ErrBadVersion):
			continue
		}
		return err
	}
}

// rejoin creates our node again if we joined and our session has been
// replaced since (the old one expired, and our node with it).
func (g *Group) rejoin(ctx context.Context) error {
	if !g.joined || g.conn.SessionID() == g.session || g.forgets {
		return nil
	}
	return g.create(ctx)
}

// Members lists the group's members, sorted: getChildren() on the group
// node, with a watch that a following Watch waits on. A missing group
// node is created.
func (g *Group) Members(ctx context.Context) ([]string, error) {
	if err := g.rejoin(ctx); err != nil {
		return nil, err
	}
	kids, err := g.list(ctx)
	if err != nil {
		return nil, err
	}
	g.seen, g.known = kids, true
	return slices.Clone(kids), nil
}

// Watch blocks until the members differ from the last list Members or
// Watch returned (on the first call, from the members when it is called),
// and returns the new list: it waits for the watch of the last
// getChildren(), then lists the children again with a new watch. A member
// that leaves and comes back between two listings is no change. It carries
// on through connection losses and session expiry (rejoining the group
// after an expiry, if the member had joined). If ctx ends first it
// returns ctx's error, and the watch stays for the next call.
func (g *Group) Watch(ctx context.Context) ([]string, error) {
	for {
		if err := g.rejoin(ctx); err != nil {
			return nil, err
		}
		if g.watch == nil {
			kids, err := g.list(ctx)
			if err != nil {
				return nil, err
			}
			if g.known && !slices.Equal(kids, g.seen) {
				g.seen = kids
				return slices.Clone(kids), nil
			}
			g.seen, g.known = kids, true
		}
		// An expired session fires the watch with EventNotWatching: list
		// again, in the new session, after rejoining.
		if _, err := g.watch.Wait(ctx); err != nil {
			return nil, err
		}
		g.watch = nil
	}
}

// list is getChildren() on the group node with a watch, sorted.
func (g *Group) list(ctx context.Context) ([]string, error) {
	for {
		kids, _, w, err := g.conn.ChildrenW(ctx, g.dir)
		switch {
		case transient(err), expired(err):
			continue
		case errors.Is(err, zk.ErrNoNode):
			if err := ensurePath(ctx, g.conn, g.dir); err != nil {
				return nil, err
			}
			continue
		case err != nil:
			return nil, err
		}
		slices.Sort(kids)
		g.watch = w
		return kids, nil
	}
}

// Data returns the data member joined with, or an error wrapping
// ErrNotMember.
func (g *Group) Data(ctx context.Context, member string) ([]byte, error) {
	for {
		data, _, err := g.conn.Get(ctx, g.dir+"/"+member)
		switch {
		case transient(err):
			continue
		case errors.Is(err, zk.ErrNoNode):
			return nil, fmt.Errorf("%w: %s", ErrNotMember, member)
		}
		return data, err
	}
}
