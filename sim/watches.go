package sim

import (
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/jute"
	"github.com/zksim/zksim/trace"
)

// watchTable is a server's record of who watches what: data watches (set by
// exists and getData) and child watches (set by getChildren), each a set of
// sessions per path, kept in registration order so that notifications go out
// in a fixed order. A session registered twice on a path is notified once,
// as ZooKeeper keys watches by connection.
//
// Persistent watches (addWatch) stay after they fire: a persistent one
// hears every event on its path, NodeChildrenChanged included; a recursive
// one every event on its path and below it, but NodeChildrenChanged. As in
// the 3.8 server, each watch is two halves, one in the data watches and one
// in the child watches, and a session has one mode per path in each: a
// persistent or recursive addWatch sets both halves, a one-shot watch the
// half it belongs to, and the last one set wins. So a persistent watch
// followed by a recursive one on the same path is recursive only, and a
// getData watch on a path with a persistent watch makes its data half
// one-shot (its events stop after the next one), the child half staying.
type watchTable struct {
	data  map[string][]*session
	child map[string][]*session
	// The persistent halves, by mode and by half.
	persistData, persistChild map[string][]*session
	recData, recChild         map[string][]*session
	// spare are emptied lists of sessions, for add to use again: a
	// one-shot watch is set and fired on every turn of a waiter, and its
	// list need not be made each time (see notified).
	spare [][]*session
}

func newWatchTable() watchTable {
	return watchTable{data: map[string][]*session{}, child: map[string][]*session{},
		persistData: map[string][]*session{}, persistChild: map[string][]*session{},
		recData: map[string][]*session{}, recChild: map[string][]*session{}}
}

func (w *watchTable) add(table map[string][]*session, own map[string]bool, path string, s *session) {
	if own[path] {
		return
	}
	own[path] = true
	list, ok := table[path]
	if n := len(w.spare); !ok && n > 0 {
		list, w.spare = w.spare[n-1], w.spare[:n-1]
	}
	table[path] = append(list, s)
}

// notified takes back a list fire returned, once its sessions have been
// notified: fire's lists belong to nobody else (a one-shot list is taken
// out of its table, anything else is a copy).
func (w *watchTable) notified(list []*session) {
	if cap(list) > 0 {
		clear(list)
		w.spare = append(w.spare, list[:0])
	}
}

// addData sets s's one-shot data watch on path, in place of a persistent
// data half; addChild its one-shot child watch, in place of a persistent
// child half.
func (w *watchTable) addData(path string, s *session) {
	if h := s.persistent; h != nil { // most sessions have no persistent watch
		w.drop1(w.persistData, h.persistData, path, s)
		w.drop1(w.recData, h.recData, path, s)
	}
	w.add(w.data, s.dataWatches, path, s)
}

func (w *watchTable) addChild(path string, s *session) {
	if h := s.persistent; h != nil {
		w.drop1(w.persistChild, h.persistChild, path, s)
		w.drop1(w.recChild, h.recChild, path, s)
	}
	w.add(w.child, s.childWatches, path, s)
}

// addPersistent sets s's persistent watch on path (recursive or not):
// both halves, in place of whatever mode each had.
func (w *watchTable) addPersistent(path string, s *session, recursive bool) {
	h := s.halves()
	w.drop1(w.data, s.dataWatches, path, s)
	w.drop1(w.child, s.childWatches, path, s)
	if recursive {
		w.drop1(w.persistData, h.persistData, path, s)
		w.drop1(w.persistChild, h.persistChild, path, s)
		w.add(w.recData, h.recData, path, s)
		w.add(w.recChild, h.recChild, path, s)
		return
	}
	w.drop1(w.recData, h.recData, path, s)
	w.drop1(w.recChild, h.recChild, path, s)
	w.add(w.persistData, h.persistData, path, s)
	w.add(w.persistChild, h.persistChild, path, s)
}

// drop1 takes s's entry for path out of table, if it has one, and
// reports whether it had.
func (w *watchTable) drop1(table map[string][]*session, own map[string]bool, path string, s *session) bool {
	if !own[path] {
		return false
	}
	delete(own, path)
	w.unlist(table, path, s)
	return true
}

// persistentHalves are a session's persistent watches by path, by mode
// and half.
type persistentHalves struct {
	persistData, persistChild, recData, recChild map[string]bool
}

// halves are s's persistent watches, made on first use (few sessions have
// any).
func (s *session) halves() *persistentHalves {
	if s.persistent == nil {
		s.persistent = &persistentHalves{persistData: map[string]bool{}, persistChild: map[string]bool{},
			recData: map[string]bool{}, recChild: map[string]bool{}}
	}
	return s.persistent
}

// remove removes s's watches of every kind on path, and reports whether
// it had any.
func (w *watchTable) remove(path string, s *session) bool {
	removed := false
	for _, pair := range w.tables(s) {
		removed = w.drop1(pair.table, pair.own, path, s) || removed
	}
	return removed
}

// removeKind removes s's watches of watcher type typ on path, as
// removeWatches asks (jute.WatcherType): its child half (children), its
// data half (data) or both (any), whatever their mode; a persistent or
// recursive watch that loses one half goes on with the other. It answers
// NoWatcher when s had none of that type there, and MarshallingError for
// a type that is none (the server fails reading it).
func (w *watchTable) removeKind(path string, s *session, typ int32) int32 {
	var removed bool
	switch jute.WatcherType(typ) {
	case jute.WatcherChildren, jute.WatcherData:
		data := jute.WatcherType(typ) == jute.WatcherData
		for _, pair := range w.halfTables(s, data) {
			removed = w.drop1(pair.table, pair.own, path, s) || removed
		}
	case jute.WatcherAny:
		removed = w.remove(path, s)
	default:
		return trace.CodeMarshallingError
	}
	if !removed {
		return trace.CodeNoWatcher
	}
	return trace.CodeOK
}

// halfTables are the tables of one half (the data half, or the child
// half) and s's own record of its entries in each: one-shot, persistent,
// recursive.
func (w *watchTable) halfTables(s *session, data bool) []ownedTable {
	if data {
		out := []ownedTable{{w.data, s.dataWatches}}
		if h := s.persistent; h != nil {
			out = append(out, ownedTable{w.persistData, h.persistData}, ownedTable{w.recData, h.recData})
		}
		return out
	}
	out := []ownedTable{{w.child, s.childWatches}}
	if h := s.persistent; h != nil {
		out = append(out, ownedTable{w.persistChild, h.persistChild}, ownedTable{w.recChild, h.recChild})
	}
	return out
}

// check is checkWatches' answer for watcher type typ on path, as
// ZooKeeper 3.8's server gives it: for children or data, that half's
// (holds); for any, OK if either half holds a watch, MarshallingError if
// either fails; for a type that is none, MarshallingError.
func (w *watchTable) check(path string, typ int32) int32 {
	switch jute.WatcherType(typ) {
	case jute.WatcherChildren:
		return w.holds(path, false)
	case jute.WatcherData:
		return w.holds(path, true)
	case jute.WatcherAny:
		c, d := w.holds(path, false), w.holds(path, true)
		switch {
		case c == trace.CodeMarshallingError || d == trace.CodeMarshallingError:
			return trace.CodeMarshallingError
		case c == trace.CodeOK || d == trace.CodeOK:
			return trace.CodeOK
		}
		return trace.CodeNoWatcher
	}
	return trace.CodeMarshallingError
}

// holds is what the server's watch manager of one half (the data
// watches, or the child watches) answers when asked whether a session
// watches path (WatchManager.containsWatcher, 3.8.0): OK when any session
// of this server has a watch of that half on path, of any mode: it looks
// for the path's list of watchers, not for the session in it. It walks
// from path up to the root while it finds none, taking each step's
// parent as it goes, and fails (MarshallingError) where a step has no
// '/' to cut at: at once for a path without '/' (but "", which it does
// not walk: NoWatcher), and for a path not beginning with '/' it holds no
// watch on while the half has a recursive watch anywhere on this server
// (without one, it looks at the path alone).
func (w *watchTable) holds(path string, data bool) int32 {
	one, persist, rec := w.child, w.persistChild, w.recChild
	if data {
		one, persist, rec = w.data, w.persistData, w.recData
	}
	switch {
	case path == "":
		return trace.CodeNoWatcher
	case !strings.Contains(path, "/"):
		return trace.CodeMarshallingError
	case len(one[path])+len(persist[path])+len(rec[path]) > 0:
		return trace.CodeOK
	case len(rec) > 0 && path[0] != '/':
		return trace.CodeMarshallingError
	}
	return trace.CodeNoWatcher
}

// tables are the tables and s's own record of its entries in each.
func (w *watchTable) tables(s *session) []ownedTable {
	out := []ownedTable{{w.data, s.dataWatches}, {w.child, s.childWatches}}
	if h := s.persistent; h != nil {
		out = append(out, ownedTable{w.persistData, h.persistData}, ownedTable{w.persistChild, h.persistChild},
			ownedTable{w.recData, h.recData}, ownedTable{w.recChild, h.recChild})
	}
	return out
}

type ownedTable struct {
	table map[string][]*session
	own   map[string]bool
}

// unlist takes s out of table's list for path.
func (w *watchTable) unlist(table map[string][]*session, path string, s *session) {
	list := table[path]
	for i, o := range list {
		if o == s {
			list = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(table, path)
	} else {
		table[path] = list
	}
}

// take removes and returns the sessions watching path in table (one-shot).
func take(table map[string][]*session, path string, own func(*session) map[string]bool) []*session {
	list := table[path]
	if list == nil {
		return nil
	}
	delete(table, path)
	for _, s := range list {
		delete(own(s), path)
	}
	return list
}

func dataOf(s *session) map[string]bool  { return s.dataWatches }
func childOf(s *session) map[string]bool { return s.childWatches }

// fire returns the sessions to notify of trigger tr, removing their
// one-shot watches, each session once: the one-shot ones (fireOneShot),
// then the persistent halves on the path, then the recursive ones on the
// path and on each of its ancestors (but for NodeChildrenChanged). The
// event decides the halves, as the server's two watch managers do:
// NodeCreated and NodeDataChanged the data half, NodeChildrenChanged the
// child half, NodeDeleted both.
func (w *watchTable) fire(tr trigger) []*session {
	out := w.fireOneShot(tr)
	if len(w.persistData) == 0 && len(w.persistChild) == 0 && len(w.recData) == 0 && len(w.recChild) == 0 {
		return out
	}
	add := func(list []*session) {
		for _, s := range list {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	data := tr.typ != zk.EventNodeChildrenChanged
	child := tr.typ == zk.EventNodeChildrenChanged || tr.typ == zk.EventNodeDeleted
	if data {
		add(w.persistData[tr.path])
	}
	if child {
		add(w.persistChild[tr.path])
	}
	if tr.typ != zk.EventNodeChildrenChanged && len(w.recData)+len(w.recChild) > 0 {
		for p := tr.path; ; {
			add(w.recData[p])
			if child {
				add(w.recChild[p])
			}
			if p == "/" {
				break
			}
			p, _ = parentOf(p)
		}
	}
	return out
}

// fireOneShot returns the sessions whose one-shot watches tr fires,
// removing them, following ZooKeeper's table: NodeCreated and
// NodeDataChanged go to data watches; NodeChildrenChanged to child
// watches; NodeDeleted to data watches, then to child watches except
// sessions already notified.
func (w *watchTable) fireOneShot(tr trigger) []*session {
	switch tr.typ {
	case zk.EventNodeCreated, zk.EventNodeDataChanged:
		return take(w.data, tr.path, dataOf)
	case zk.EventNodeChildrenChanged:
		return take(w.child, tr.path, childOf)
	case zk.EventNodeDeleted:
		out := take(w.data, tr.path, dataOf)
		for _, s := range take(w.child, tr.path, childOf) {
			notified := false
			for _, o := range out {
				if o == s {
					notified = true
					break
				}
			}
			if !notified {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// drop forgets every watch of a closed session.
func (w *watchTable) drop(s *session) {
	for _, pair := range w.tables(s) {
		for path := range pair.own {
			w.unlist(pair.table, path, s)
		}
		clear(pair.own)
	}
}
