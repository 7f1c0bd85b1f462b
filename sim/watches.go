package sim

import (
	"slices"

	"github.com/go-zookeeper/zk"
)

// watchTable is a server's record of who watches what: data watches (set by
// exists and getData) and child watches (set by getChildren), each a set of
// sessions per path, kept in registration order so that notifications go out
// in a fixed order. A session registered twice on a path is notified once,
// as ZooKeeper keys watches by connection.
//
// Persistent watches (addWatch) stay after they fire: a persistent one
// hears every event on its path, NodeChildrenChanged included; a recursive
// one every event on its path and below it, but NodeChildrenChanged.
type watchTable struct {
	data  map[string][]*session
	child map[string][]*session
	// persist and recursive are the persistent watches, by path.
	persist, recursive map[string][]*session
	// spare are emptied lists of sessions, for add to use again: a
	// one-shot watch is set and fired on every turn of a waiter, and its
	// list need not be made each time (see notified).
	spare [][]*session
}

func newWatchTable() watchTable {
	return watchTable{data: map[string][]*session{}, child: map[string][]*session{},
		persist: map[string][]*session{}, recursive: map[string][]*session{}}
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

func (w *watchTable) addData(path string, s *session)  { w.add(w.data, s.dataWatches, path, s) }
func (w *watchTable) addChild(path string, s *session) { w.add(w.child, s.childWatches, path, s) }

// addPersistent sets s's persistent watch on path (recursive or not).
func (w *watchTable) addPersistent(path string, s *session, recursive bool) {
	if recursive {
		w.add(w.recursive, s.ownRecursive(), path, s)
	} else {
		w.add(w.persist, s.ownPersist(), path, s)
	}
}

// ownPersist and ownRecursive are s's persistent watches by path, made
// on first use (few sessions have any).
func (s *session) ownPersist() map[string]bool {
	if s.persistWatches == nil {
		s.persistWatches = map[string]bool{}
	}
	return s.persistWatches
}

func (s *session) ownRecursive() map[string]bool {
	if s.recursiveWatches == nil {
		s.recursiveWatches = map[string]bool{}
	}
	return s.recursiveWatches
}

// remove removes s's watches of every kind on path, and reports whether
// it had any.
func (w *watchTable) remove(path string, s *session) bool {
	removed := false
	for _, pair := range w.tables(s) {
		if pair.own[path] {
			delete(pair.own, path)
			w.unlist(pair.table, path, s)
			removed = true
		}
	}
	return removed
}

// tables are the four tables and s's own record of its entries in each.
func (w *watchTable) tables(s *session) []ownedTable {
	return []ownedTable{{w.data, s.dataWatches}, {w.child, s.childWatches},
		{w.persist, s.persistWatches}, {w.recursive, s.recursiveWatches}}
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
// then the persistent watches on the path, then the recursive ones on the
// path and on each of its ancestors (but for NodeChildrenChanged).
func (w *watchTable) fire(tr trigger) []*session {
	out := w.fireOneShot(tr)
	if len(w.persist) == 0 && len(w.recursive) == 0 {
		return out
	}
	add := func(list []*session) {
		for _, s := range list {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	add(w.persist[tr.path])
	if tr.typ != zk.EventNodeChildrenChanged && len(w.recursive) > 0 {
		for p := tr.path; ; {
			add(w.recursive[p])
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
