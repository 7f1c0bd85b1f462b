package recipes

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// The prefixes of the shared lock's nodes: after the guid, "read-" for a
// reader and "write-" for a writer ("guid-/read-", "guid-/write-").
const (
	sharedRead  = "read-"
	sharedWrite = "write-"
)

// SharedLock is the shared lock recipe ("Shared Locks"): a read-write lock
// in which any number of readers, or one writer, hold the lock. Like the
// lock it is fully distributed, free of the herd effect and fair: a reader
// waits only for the writers that came before it, a writer for everyone
// that came before it. The guid in the node's name makes it safe against a
// lost create() reply.
type SharedLock struct {
	conn client.Conn
	dir  string

	held

	// onCreate, when set, runs right after step 1 with the node created
	// (the revocable lock's getData() with a watch).
	onCreate func(ctx context.Context, node string) error

	// readerWaitsForAll makes a reader wait for the next lower node of any
	// kind (the shared-lock-readers-queue variant); writerIgnoresReaders
	// makes a writer look only at the write- nodes (the
	// shared-lock-writer-ignores-readers variant). Only the teaching
	// variants set them.
	readerWaitsForAll, writerIgnoresReaders bool
}

var _ SharedLocker = (*SharedLock)(nil)

// NewSharedLock returns the shared lock whose lock node is dir.
func NewSharedLock(conn client.Conn, dir string) *SharedLock {
	return &SharedLock{conn: conn, dir: dir}
}

// RLock obtains a read lock:
//
//  1. create "guid-/read-" under the lock node, sequential and ephemeral;
//  2. getChildren on the lock node, without a watch;
//  3. if no child starting with "write-" has a lower sequence number than
//     ours, we hold the read lock;
//  4. otherwise exists(), with a watch, on the "write-" node with the next
//     lower sequence number;
//  5. if it does not exist, go to 2;
//  6. otherwise wait for its notification and go to 2.
//
// If create() fails with a recoverable error we look for our node by its
// guid before creating another. If ctx ends first, our node is deleted.
func (l *SharedLock) RLock(ctx context.Context) (*Lease, error) {
	return l.acquire(ctx, sharedRead)
}

// Lock obtains the write lock:
//
//  1. create "guid-/write-" under the lock node, sequential and ephemeral;
//  2. getChildren on the lock node, without a watch;
//  3. if no child has a lower sequence number than ours, we hold the
//     write lock;
//  4. otherwise exists(), with a watch, on the node with the next lower
//     sequence number;
//  5. if it does not exist, go to 2; otherwise wait for its notification
//     and go to 2.
//
// The guid recovery and the cleanup are RLock's.
func (l *SharedLock) Lock(ctx context.Context) (*Lease, error) {
	return l.acquire(ctx, sharedWrite)
}

// acquire runs the protocol for a node of kind sharedRead or sharedWrite.
func (l *SharedLock) acquire(ctx context.Context, kind string) (*Lease, error) {
	if l.node != "" {
		return nil, fmt.Errorf("%w: the shared lock", ErrAlreadyHeld)
	}
	if err := l.prepare(ctx, l.conn, l.dir); err != nil {
		return nil, err
	}
	guid, err := nextGUID(ctx, l.conn, &l.tries)
	if err != nil {
		return nil, err
	}
	node, err := l.create(ctx, guid+"-"+kind) // step 1
	if err != nil {
		return nil, err
	}
	l.node = node
	if l.onCreate != nil {
		if err := l.onCreate(ctx, node); err != nil {
			l.abandon(ctx, l.conn, node)
			return nil, err
		}
	}
	lease, err := l.await(ctx, node, kind == sharedWrite)
	if err != nil {
		l.abandon(ctx, l.conn, node)
		return nil, err
	}
	l.lease = lease
	return lease, nil
}

// create is step 1, with the guid recovery: prefix is "guid-read-" or
// "guid-write-".
func (l *SharedLock) create(ctx context.Context, prefix string) (string, error) {
	return createGUIDNode(ctx, l.conn, l.dir, prefix, nil, guidMistakes{})
}

// sharedIsWrite reports whether a child of a shared lock's node is a
// writer's: its name, before the sequence number, is "write-" or ends in
// "-write-".
func sharedIsWrite(name string) bool {
	if len(name) < 10 {
		return false
	}
	p := name[:len(name)-10]
	return p == sharedWrite || strings.HasSuffix(p, "-"+sharedWrite)
}

// sharedBlocker is the node that keeps the node at index i of the sorted
// children kids from holding the lock (steps 3 and 4): for a writer the
// next lower node, for a reader the next lower "write-" node; "" if there
// is none and i holds the lock.
func sharedBlocker(kids []string, i int, write, anyKind, writesOnly bool) string {
	for j := i - 1; j >= 0; j-- {
		switch {
		case write && writesOnly, !write && !anyKind:
			if sharedIsWrite(kids[j]) {
				return kids[j]
			}
		default:
			return kids[j]
		}
	}
	return ""
}

// await is steps 2 to 6: it returns once node holds the lock.
func (l *SharedLock) await(ctx context.Context, node string, write bool) (*Lease, error) {
	blocker := func(kids []string, i int) string {
		return sharedBlocker(kids, i, write, l.readerWaitsForAll, l.writerIgnoresReaders)
	}
	return turn{blocker: blocker}.await(ctx, l.conn, l.dir, node)
}

// Unlock releases the read or write lock: delete our node.
func (l *SharedLock) Unlock(ctx context.Context) error {
	return l.release(ctx, l.conn, "Unlock without RLock or Lock")
}

// Holders lists the nodes (full paths) that hold the lock now, by the
// recipe's rules: the lowest node if it is a writer's, else every reader's
// node below the lowest writer's. A revoker uses it to find whom to ask.
func (l *SharedLock) Holders(ctx context.Context) ([]string, error) {
	for {
		kids, _, err := l.conn.Children(ctx, l.dir)
		if transient(err) {
			continue
		}
		if errors.Is(err, zk.ErrNoNode) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		sortBySequence(kids)
		var out []string
		for i, k := range kids {
			if sharedBlocker(kids, i, sharedIsWrite(k), false, false) != "" {
				break
			}
			out = append(out, l.dir+"/"+k)
		}
		return out, nil
	}
}
