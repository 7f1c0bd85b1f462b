package recipes

import (
	"context"
	"errors"
	"maps"
	"slices"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// CachedGroup is group membership whose watchers keep their view of the
// group from a recursive persistent watch on the group node, as current
// libraries build their caches (ZooKeeper 3.6's addWatch; Curator's
// CuratorCache): one listing of the members, then the watch's events, a
// member's node created or deleted each, with no watch to set again after
// each one. Joining and leaving are Group's.
//
// A persistent watch is set again by the client on each new connection of
// the session, but hears nothing of what changed while the client was
// away: the cache lists the members again each time the session is back
// (zk.StateHasSession after a disconnection). After its session expired
// the watch is gone: the cache sets it again, and lists again, in the new
// session.
type CachedGroup struct {
	*Group
	events client.Subscription // the recursive watch on the group node
	states client.Subscription // the session's state changes
	view   map[string]bool     // the members as the cache knows them
	away   bool                // disconnected since the last listing
	// noResync is the membership-cache-no-resync variant's mistake: it
	// trusts the watch across a disconnection.
	noResync bool
}

var _ Membership = (*CachedGroup)(nil)

// NewCachedGroup returns member name's handle on the group whose node is
// dir, its view kept from a persistent watch.
func NewCachedGroup(conn client.Conn, dir, name string) *CachedGroup {
	return &CachedGroup{Group: NewGroup(conn, dir, name)}
}

// Members lists the group's members, sorted, from a fresh listing, with
// the persistent watch set first (so that no change after the listing
// goes unheard).
func (g *CachedGroup) Members(ctx context.Context) ([]string, error) {
	if err := g.rejoin(ctx); err != nil {
		return nil, err
	}
	if err := g.relist(ctx); err != nil {
		return nil, err
	}
	g.seen, g.known = g.sorted(), true
	return slices.Clone(g.seen), nil
}

// Watch blocks until the members differ from the last list Members or
// Watch returned, and returns the new list: it applies the watch's events
// to its view, and lists again when the session comes back after a
// disconnection or a new session begins.
func (g *CachedGroup) Watch(ctx context.Context) ([]string, error) {
	for {
		if err := g.rejoin(ctx); err != nil {
			return nil, err
		}
		if g.events == nil || g.view == nil { // no watch, or no listing since (a call cut short)
			if err := g.relist(ctx); err != nil {
				return nil, err
			}
		}
		if now := g.sorted(); !g.known || !slices.Equal(now, g.seen) {
			known := g.known
			g.seen, g.known = now, true
			if known {
				return slices.Clone(now), nil
			}
		}
		i, ev, err := g.conn.Select(ctx, g.events, g.states)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			g.apply(ev)
			continue
		}
		switch ev.State {
		case zk.StateDisconnected:
			g.away = true
		case zk.StateHasSession:
			if g.away && !g.noResync {
				g.view = nil // list again, above
			}
			g.away = false
		}
	}
}

// apply is one event of the persistent watch: a member's node created or
// deleted, the group node deleted; or the watch ended with the session
// (set it again, and list again, in the next).
func (g *CachedGroup) apply(ev zk.Event) {
	name := base(ev.Path)
	switch {
	case ev.Type == zk.EventNotWatching:
		g.events.Close()
		g.events, g.view = nil, nil
	case ev.Path == g.dir && ev.Type == zk.EventNodeDeleted:
		clear(g.view)
	case ev.Path != g.dir+"/"+name: // not a member's node
	case ev.Type == zk.EventNodeCreated:
		g.view[name] = true
	case ev.Type == zk.EventNodeDeleted:
		delete(g.view, name)
	}
}

// relist sets the persistent watch (and the session's subscription) if
// it is not set, then lists the members.
func (g *CachedGroup) relist(ctx context.Context) error {
	if g.states == nil {
		g.states = g.conn.SessionEvents()
	}
	for g.events == nil {
		sub, err := g.conn.AddWatch(ctx, g.dir, true)
		switch {
		case transient(err), expired(err):
			continue
		case err != nil:
			return err
		}
		g.events = sub
	}
	g.away = false
	return g.list(ctx)
}

// list reads the members into the view: getChildren() on the group node,
// without a watch (the persistent one hears what follows). A missing
// group node is created.
func (g *CachedGroup) list(ctx context.Context) error {
	for {
		kids, _, err := g.conn.Children(ctx, g.dir)
		switch {
		case transient(err), expired(err):
			continue
		case errors.Is(err, zk.ErrNoNode):
			if err := ensurePath(ctx, g.conn, g.dir); err != nil {
				return err
			}
			continue
		case err != nil:
			return err
		}
		g.view = map[string]bool{}
		for _, k := range kids {
			g.view[k] = true
		}
		return nil
	}
}

// sorted is the view's members, sorted.
func (g *CachedGroup) sorted() []string { return slices.Sorted(maps.Keys(g.view)) }
