package models

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// readerSet is a set of clients, encoded canonically so that equal sets
// are equal strings (porcupine compares states with ==): each client a
// 4-byte big-endian number, in increasing order.
type readerSet string

// readerWidth is the bytes one client takes in a readerSet.
const readerWidth = 4

func (s readerSet) at(i int) int {
	return int(binary.BigEndian.Uint32([]byte(s[i : i+readerWidth])))
}

// find is where client c is in s, or where it would go, and whether it is
// there.
func (s readerSet) find(c int) (int, bool) {
	for i := 0; i < len(s); i += readerWidth {
		switch r := s.at(i); {
		case r == c:
			return i, true
		case r > c:
			return i, false
		}
	}
	return len(s), false
}

func (s readerSet) has(c int) bool {
	_, ok := s.find(c)
	return ok
}

func (s readerSet) add(c int) readerSet {
	i, ok := s.find(c)
	if ok {
		return s
	}
	var b [readerWidth]byte
	binary.BigEndian.PutUint32(b[:], uint32(c))
	return s[:i] + readerSet(b[:]) + s[i:]
}

func (s readerSet) remove(c int) readerSet {
	i, ok := s.find(c)
	if !ok {
		return s
	}
	return s[:i] + s[i+readerWidth:]
}

func (s readerSet) String() string {
	var names []string
	for i := 0; i < len(s); i += readerWidth {
		names = append(names, fmt.Sprintf("c%d", s.at(i)+1))
	}
	return strings.Join(names, ", ")
}

// rwHolders is the state of a read-write lock: its writer, if any, and
// its readers. It is comparable.
type rwHolders struct {
	writer  lockHolder
	readers readerSet
}

func (h rwHolders) String() string {
	switch {
	case h.writer.held:
		return fmt.Sprintf("written by c%d", h.writer.client+1)
	case h.readers != "":
		return "read by " + h.readers.String()
	}
	return "free"
}

// holds reports whether client c holds the lock, to read or to write.
func (h rwHolders) holds(c int) bool {
	return (h.writer.held && h.writer.client == c) || h.readers.has(c)
}

// grant is h after client c takes the lock, shared or not, and whether it
// could.
func (h rwHolders) grant(c int, shared bool) (bool, rwHolders) {
	if shared {
		return !h.writer.held, rwHolders{writer: h.writer, readers: h.readers.add(c)}
	}
	return !h.writer.held && h.readers == "", rwHolders{writer: lockHolder{held: true, client: c}}
}

// rwStep is the sequential specification of a read-write lock as the
// clients that use it see it:
//
//   - An acquire that returned (OK) takes the lock: a shared one needs no
//     writer and adds its client to the readers; an exclusive one needs
//     neither writer nor readers.
//   - An acquire whose answer the caller never saw (Pending, Unknown) is
//     legal and changes nothing, as for the mutex (mutexStep): porcupine
//     may always place it last, and its client, never told it holds the
//     lock, must not act on it.
//   - A use the resource accepted (OK) needs its client to hold the lock,
//     to write or to read (a use under a read lock is a read).
//   - A use the resource rejected proves nothing: legal whatever the
//     holders.
//   - A release needs its client to hold the lock, and removes it.
//
// Any other operation or result is one the lock cannot give: illegal.
func rwStep(h rwHolders, op Operation) (bool, rwHolders) {
	switch op.Kind {
	case Acquire:
		switch op.Result {
		case OK:
			return h.grant(op.Client, op.Shared)
		case Pending, Unknown, Failed:
			return true, h
		}
	case Use:
		switch op.Result {
		case OK:
			return h.holds(op.Client), h
		case Rejected:
			return true, h
		}
	case Release:
		if !lets(op.Result) || !h.holds(op.Client) {
			return false, h
		}
		if h.writer.held && h.writer.client == op.Client {
			return true, rwHolders{readers: h.readers}
		}
		return true, rwHolders{writer: h.writer, readers: h.readers.remove(op.Client)}
	}
	return false, h
}

// RWLockModel is the porcupine model of a read-write (shared) lock: at any
// moment either one writer holds it or any number of readers do, and only
// holders act on the resource (see rwStep). It judges Acquire (Shared for
// a read lock), Use and Release.
var RWLockModel = Model{
	Name:          "rwlock",
	Doc:           "read-write lock (one writer, or any number of readers)",
	Kinds:         []OpKind{Acquire, Use, Release},
	Init:          func() any { return rwHolders{} },
	Step:          func(state any, op Operation) (bool, any) { return rwStep(state.(rwHolders), op) },
	Prepare:       asHolders,
	DescribeState: func(state any) string { return state.(rwHolders).String() },
	Explain:       writerTogether,
}

func init() {
	registerModel(RWLockModel)
}
