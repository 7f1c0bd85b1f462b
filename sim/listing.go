package sim

import (
	"cmp"
	"slices"
)

// listing keeps a node's child names sorted by a salted hash of the name,
// the order getChildren answers in: unsorted by name, as a real server's
// hash order is, but fixed for a run. It is kept up to date on every create
// and delete. The names are handed out as a shared snapshot (see snapshot),
// so listing costs nothing until the next change, which copies them once:
// thousands of waiters listing one lock directory between two writes share
// one copy.
type listing struct {
	keys   []uint64
	names  []string
	shared bool // names has been handed out: copy before changing it
}

// snapshot is the names as they are now, to be read and never changed:
// later changes to the listing leave it as it is.
func (l *listing) snapshot() []string {
	l.shared = true
	return l.names[:len(l.names):len(l.names)]
}

// own makes the names the listing's own again before a change.
func (l *listing) own() {
	if l.shared {
		// Room for the change about to be made, and a few more.
		l.names = append(make([]string, 0, len(l.names)+1+len(l.names)/4), l.names...)
		l.shared = false
	}
}

func (l *listing) find(key uint64, name string) (int, bool) {
	i, _ := slices.BinarySearch(l.keys, key) // the first entry with this key
	for ; i < len(l.keys) && l.keys[i] == key; i++ {
		if c := cmp.Compare(l.names[i], name); c >= 0 {
			return i, c == 0
		}
	}
	return i, false
}

func (l *listing) add(key uint64, name string) {
	i, found := l.find(key, name)
	if found {
		return
	}
	l.own()
	l.keys = slices.Insert(l.keys, i, key)
	l.names = slices.Insert(l.names, i, name)
}

func (l *listing) remove(key uint64, name string) {
	if i, found := l.find(key, name); found {
		l.own()
		l.keys = slices.Delete(l.keys, i, i+1)
		l.names = slices.Delete(l.names, i, i+1)
	}
}
