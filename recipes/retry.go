package recipes

import (
	"errors"

	"github.com/go-zookeeper/zk"
)

// The recipes' one rule for a request that failed: what the error says of
// the request and of the session, as the seed page's "Recoverable Errors"
// note asks a recipe to tell them apart. Every recipe decides with these,
// and only with these.

// recoverable reports whether err leaves the outcome of a write unknown:
// the connection was lost after the request went out (the recipes'
// "recoverable error"): it may have been applied.
func recoverable(err error) bool { return errors.Is(err, zk.ErrConnectionClosed) }

// retryable reports whether a request failed without being applied and
// can simply be sent again once the session reconnects: no server.
func retryable(err error) bool { return errors.Is(err, zk.ErrNoServer) }

// transient reports whether a request failed and its session lives on,
// so that it may be sent again: the connection was lost (recoverable: a
// write may have been applied, and the recipe must look before it writes
// again), no server answered (retryable), or the server refused it
// because the session had moved to another (SessionMoved: not applied;
// the connection closes and the client reconnects).
func transient(err error) bool {
	return recoverable(err) || retryable(err) || errors.Is(err, zk.ErrSessionMoved)
}

// expired reports whether the session is gone: its ephemeral nodes with
// it. A recipe whose nodes outlive the session (a queue's items, a
// transaction's votes, a barrier's node) goes on in the session the
// client opens next, and retries on transient(err) || expired(err); one
// whose node was ephemeral (a lock's, a candidate's) has lost it.
func expired(err error) bool { return errors.Is(err, zk.ErrSessionExpired) }
