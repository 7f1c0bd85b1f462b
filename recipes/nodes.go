package recipes

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"
	"github.com/zksim/zksim/client"
)

// The nodes every recipe makes, orders and removes: a path made with its
// parents, sequential names in the order of their numbers, a node deleted
// through connection losses, or abandoned after a call that failed.

// ensurePath creates path and its missing parents as persistent nodes.
func ensurePath(ctx context.Context, conn client.Conn, path string) error {
	for i := 1; i <= len(path); i++ {
		if i < len(path) && path[i] != '/' {
			continue
		}
		p := path[:i]
		for {
			_, err := conn.Create(ctx, p, nil, 0, zk.WorldACL(zk.PermAll))
			if err == nil || errors.Is(err, zk.ErrNodeExists) {
				break
			}
			if !transient(err) && !expired(err) {
				return err
			}
			// The outcome is unknown, or it was not sent, or the session
			// expired (the client opens another, and one that gives a
			// session up by its own clock does so after a timeout without
			// a server): try again; a create that did happen answers
			// NodeExists. A persistent node outlives any session.
		}
	}
	return nil
}

// ensureParent creates the parents of path, if any.
func ensureParent(ctx context.Context, conn client.Conn, path string) error {
	if i := strings.LastIndexByte(path, '/'); i > 0 {
		return ensurePath(ctx, conn, path[:i])
	}
	return nil
}

// sequenceOf is the sequence number a sequential node's name ends with (its
// last ten characters: an optional sign, then digits), or -1.
func sequenceOf(name string) int64 {
	if len(name) < 10 {
		return -1
	}
	s := name[len(name)-10:]
	neg := false
	switch s[0] {
	case '-':
		neg, s = true, s[1:]
	case '+':
		s = s[1:]
	}
	var n int64
	for i := 0; i < len(s); i++ {
		d := s[i] - '0'
		if d > 9 {
			return -1
		}
		n = n*10 + int64(d)
	}
	if neg {
		return -n
	}
	return n
}

// bySequence orders node names by their sequence suffix, whatever their
// prefix (read-, write-, a guid ...), as the recipes compare them.
func bySequence(a, b string) int {
	return compareSequenced(sequenceOf(a), a, sequenceOf(b), b)
}

func compareSequenced(sa int64, a string, sb int64, b string) int {
	switch {
	case sa < sb:
		return -1
	case sa > sb:
		return 1
	}
	return strings.Compare(a, b)
}

// sortBySequence sorts node names as bySequence orders them, reading each
// name's sequence number once.
func sortBySequence(names []string) {
	type keyed struct {
		seq  int64
		name string
	}
	ks := make([]keyed, len(names))
	for i, n := range names {
		ks[i] = keyed{sequenceOf(n), n}
	}
	slices.SortFunc(ks, func(a, b keyed) int { return compareSequenced(a.seq, a.name, b.seq, b.name) })
	for i, k := range ks {
		names[i] = k.name
	}
}

// base is the last component of a path.
func base(path string) string { return path[strings.LastIndexByte(path, '/')+1:] }

// cleanup is the context for removing what a call created after its own
// context ended: not cancelled with it, but bounded.
func cleanup(ctx context.Context, conn client.Conn) (context.Context, context.CancelFunc) {
	return conn.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
}

// deleteNode deletes path, retrying through connection losses; a node that
// is already gone (deleted by an earlier attempt, or with its session) is
// not an error.
func deleteNode(ctx context.Context, conn client.Conn, path string) error {
	return deleteRetrying(ctx, conn, path, transient)
}

// deleteNodeAnySession is deleteNode through expired sessions too: the
// client may have given the session up on its own clock while the servers
// still hold it and the node, so the next session deletes it (it is gone
// already if the servers expired the session).
func deleteNodeAnySession(ctx context.Context, conn client.Conn, path string) error {
	return deleteRetrying(ctx, conn, path, func(err error) bool { return transient(err) || expired(err) })
}

// deleteRetrying is the recipes' one delete loop: delete path until it is
// gone, sending the delete again while again says the failure allows it.
func deleteRetrying(ctx context.Context, conn client.Conn, path string, again func(error) bool) error {
	for {
		err := conn.Delete(ctx, path, -1)
		switch {
		case err == nil, errors.Is(err, zk.ErrNoNode):
			return nil
		case again(err):
			continue
		}
		return err
	}
}

// abandonNode deletes a node a call created, after that call's context
// ended or it failed.
func abandonNode(ctx context.Context, conn client.Conn, node string) {
	cctx, cancel := cleanup(ctx, conn)
	defer cancel()
	_ = deleteNode(cctx, conn, node)
}
