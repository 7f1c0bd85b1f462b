package recipes

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// openACL is the ACL of the nodes createGUIDNode makes (anyone may do
// anything), made once: every acquisition creates one, and neither the
// client library nor the simulator changes an ACL it is given.
var openACL = zk.WorldACL(zk.PermAll)

// createGUIDNode is the recipes' "Recoverable Errors and the GUID": it
// creates the sequential ephemeral child dir/prefix, whose prefix carries
// the caller's guid, holding data. When create() fails with a recoverable
// error (the connection was lost after the request went out, so the node
// may exist), it lists dir and looks for a child starting with prefix
// before creating another; a request that was not sent is sent again. With
// mistakes.blind set (a teaching variant's mistake) it creates again
// without looking, and may orphan a node.
//
// A caller that gives up meanwhile (its context ends: a waiter's timeout,
// a candidate withdrawing) while a create may have been applied takes
// that node away before it returns (dropGUIDNode): the node, of a session
// that lives on, would head the queue for ever, every waiter behind it.
func createGUIDNode(ctx context.Context, conn client.Conn, dir, prefix string, data []byte, mistakes guidMistakes) (string, error) {
	inDoubt := false // a create may have been applied
	for {
		node, err := conn.Create(ctx, dir+"/"+prefix, data, zk.FlagEphemeralSequential, openACL)
		switch {
		case err == nil:
			return node, nil
		case retryable(err):
			continue // not sent: send again
		case !recoverable(err):
			// A context that ended with the create in flight leaves it in
			// doubt too: it may have been applied.
			return "", giveUpGUIDNode(ctx, conn, dir, prefix, !mistakes.forget && (inDoubt || ctx.Err() != nil), err)
		case mistakes.blind:
			continue
		}
		// The create may have been applied: look for our node by its guid.
		inDoubt = true
		node, err = findGUIDNode(ctx, conn, dir, prefix)
		if err != nil {
			return "", giveUpGUIDNode(ctx, conn, dir, prefix, !mistakes.forget, err)
		}
		if node != "" {
			return node, nil
		}
	}
}

// guidMistakes are the teaching variants' switches on createGUIDNode (the
// recipes never set them): blind creates again after a connection loss
// without looking for the node; forget gives up without taking away a
// node a create in doubt may have made.
type guidMistakes struct{ blind, forget bool }

// giveUpGUIDNode returns err, the reason createGUIDNode gives up, after
// deleting the node an earlier create whose outcome is in doubt may have
// made (dropGUIDNode).
func giveUpGUIDNode(ctx context.Context, conn client.Conn, dir, prefix string, inDoubt bool, err error) error {
	if inDoubt {
		dropGUIDNode(ctx, conn, dir, prefix)
	}
	return err
}

// dropGUIDNode deletes our node (found by its guid) if a create was
// applied after all, on a context of its own (cleanup): the caller's has
// ended. Best effort: a node it cannot reach goes with the session.
func dropGUIDNode(ctx context.Context, conn client.Conn, dir, prefix string) {
	cctx, cancel := cleanup(ctx, conn)
	defer cancel()
	if node, err := findGUIDNode(cctx, conn, dir, prefix); err == nil && node != "" {
		_ = deleteNode(cctx, conn, node)
	}
}

// guidSession is the session id a guid is made of: the client's session,
// once it has one. Between sessions (a session lost, the next one not yet
// opened) conn.SessionID() is 0 for every client, and two clients on their
// same attempt would make the same guid: the guid recovery of one then
// takes the other's node for its own (and deletes it when it gives up).
// A session id, once the servers have assigned it, is this client's alone.
func guidSession(ctx context.Context, conn client.Conn) (int64, error) {
	for {
		if s := conn.SessionID(); s != 0 {
			return s, nil
		}
		// A call waits for a session (or fails for want of one).
		if _, err := conn.Sync(ctx, "/"); err != nil && !transient(err) && !expired(err) {
			return 0, err
		}
	}
}

// findGUIDNode lists dir for a child whose name starts with prefix (which
// carries a guid), and returns its path, or "" if there is none.
//
// It brings its server up to date first. The create whose reply was lost
// was applied by the server the client had been talking to; after the
// connection loss the client may be talking to another server, one that
// has not applied that create yet (the client never saw its zxid, so
// reconnecting does not wait for it). Listing there first misses the
// node, and the caller creates a second one: the first is orphaned, as in
// the no-guid mistake. sync() brings a follower up to everything the
// leader had committed or proposed, but not the leader itself, which may
// not have applied the create yet either: UpToDate's write does, on every
// server; and a request still on its way from the old server is refused
// as the session has moved. (zksim's seed search found the orphan.)
func findGUIDNode(ctx context.Context, conn client.Conn, dir, prefix string) (string, error) {
	for {
		if err := UpToDate(ctx, conn); err != nil {
			if transient(err) {
				continue
			}
			return "", err
		}
		kids, _, err := conn.Children(ctx, dir)
		if transient(err) {
			continue
		}
		if err != nil {
			return "", err
		}
		for _, k := range kids {
			if strings.HasPrefix(k, prefix) {
				return dir + "/" + k, nil
			}
		}
		return "", nil
	}
}

// nextGUID names a recipe's next attempt at step 1 for the guid
// recovery: its session's id (guidSession) and the attempt's number,
// counted in tries.
func nextGUID(ctx context.Context, conn client.Conn, tries *int) (string, error) {
	session, err := guidSession(ctx, conn)
	if err != nil {
		return "", err
	}
	*tries++
	return attemptGUID(session, *tries), nil
}

// attemptGUID is the guid of attempt try in session: the session id in
// sixteen hex digits and the attempt in four at least, as fmt's
// "%016x%04x" writes them, without its cost on the lock's path.
func attemptGUID(session int64, try int) string {
	if session < 0 || try < 0 {
		return fmt.Sprintf("%016x%04x", session, try)
	}
	b := make([]byte, 0, 24)
	b = appendHex(b, uint64(session), 16)
	b = appendHex(b, uint64(try), 4)
	return string(b)
}

// appendHex appends v in hex, zero-padded to width digits.
func appendHex(b []byte, v uint64, width int) []byte {
	var d [16]byte
	digits := strconv.AppendUint(d[:0], v, 16)
	for i := len(digits); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, digits...)
}
