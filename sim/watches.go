package sim

import "github.com/go-zookeeper/zk"

// watchTable is a server's record of who watches what: data watches (set by
// exists and getData) and child watches (set by getChildren), each a set of
// sessions per path, kept in registration order so that notifications go out
// in a fixed order. A session registered twice on a path is notified once,
// as ZooKeeper keys watches by connection.
type watchTable struct {
	data  map[string][]*session
	child map[string][]*session
}

func newWatchTable() watchTable {
	return watchTable{data: map[string][]*session{}, child: map[string][]*session{}}
}

func (w *watchTable) add(table map[string][]*session, own map[string]bool, path string, s *session) {
	if own[path] {
		return
	}
	own[path] = true
	table[path] = append(table[path], s)
}

func (w *watchTable) addData(path string, s *session)  { w.add(w.data, s.dataWatches, path, s) }
func (w *watchTable) addChild(path string, s *session) { w.add(w.child, s.childWatches, path, s) }

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

// fire returns the sessions to notify of trigger tr, removing their watches,
// following ZooKeeper's table: NodeCreated and NodeDataChanged go to data
// watches; NodeChildrenChanged to child watches; NodeDeleted to data watches,
// then to child watches except sessions already notified.
func (w *watchTable) fire(tr trigger) []*session {
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
	for _, pair := range []struct {
		table map[string][]*session
		own   map[string]bool
	}{{w.data, s.dataWatches}, {w.child, s.childWatches}} {
		for path := range pair.own {
			list := pair.table[path]
			for i, o := range list {
				if o == s {
					list = append(list[:i:i], list[i+1:]...)
					break
				}
			}
			if len(list) == 0 {
				delete(pair.table, path)
			} else {
				pair.table[path] = list
			}
		}
		clear(pair.own)
	}
}
