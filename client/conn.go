package client

import (
	"context"
	"time"

	"github.com/go-zookeeper/zk"
)

// Conn is one ZooKeeper session as a recipe sees it.
//
// The methods mirror go-zookeeper/zk's *zk.Conn, with a context first. They
// return the same values in the same cases: Exists on a missing node answers
// (false, zero Stat, nil); a failed watching read sets no watch, except ExistsW
// on a missing node, which watches for its creation; Multi returns one
// zk.MultiResponse per op. When the connection to the server is lost while a
// call is in flight, the call fails with zk.ErrConnectionClosed and its outcome
// is unknown: the server may have applied it (the recipes' "recoverable error").
//
// A call whose context is cancelled or past its deadline returns the context's
// error; a write it already sent may still be applied by the server.
type Conn interface {
	// Create creates a znode. flags is 0, zk.FlagEphemeral, zk.FlagSequence or
	// both; with zk.FlagSequence the returned path carries the sequence number.
	Create(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL) (string, error)
	// Delete deletes a znode if its version matches (-1 matches any version).
	Delete(ctx context.Context, path string, version int32) error
	// Exists reports whether a znode exists, and its Stat if it does.
	Exists(ctx context.Context, path string) (bool, *zk.Stat, error)
	// ExistsW is Exists leaving a watch: on the node's data if it exists
	// (fires on change or deletion), on its creation if it does not.
	ExistsW(ctx context.Context, path string) (bool, *zk.Stat, Watch, error)
	// Get returns a znode's data and Stat.
	Get(ctx context.Context, path string) ([]byte, *zk.Stat, error)
	// GetW is Get leaving a data watch (fires on change or deletion).
	GetW(ctx context.Context, path string) ([]byte, *zk.Stat, Watch, error)
	// Set replaces a znode's data if its version matches (-1 matches any).
	Set(ctx context.Context, path string, data []byte, version int32) (*zk.Stat, error)
	// Children lists a znode's children, in no particular order.
	Children(ctx context.Context, path string) ([]string, *zk.Stat, error)
	// ChildrenW is Children leaving a child watch (fires when a child is
	// created or deleted, or the node itself is deleted).
	ChildrenW(ctx context.Context, path string) ([]string, *zk.Stat, Watch, error)
	// Sync brings the session's server up to date with the leader before the
	// session's next read is served.
	Sync(ctx context.Context, path string) (string, error)
	// Multi applies all the ops or none of them. Each op is a *zk.CreateRequest,
	// *zk.DeleteRequest, *zk.SetDataRequest or *zk.CheckVersionRequest.
	Multi(ctx context.Context, ops ...any) ([]zk.MultiResponse, error)

	// SessionID is the current session's id, 0 before the first session is
	// established. It changes when an expired session is replaced.
	SessionID() int64
	// State is the session's current state (zk.StateHasSession when usable).
	State() zk.State
	// SessionEvents subscribes to the session's state changes from now on:
	// every zk.EventSession the session goes through, in order, none dropped.
	SessionEvents() Subscription

	Clock
}

// Watch is the one-shot notification a watching read returns.
type Watch interface {
	// Wait blocks, in the world the watch belongs to, until the watch fires,
	// and returns its event. When the session expires or is closed the watch
	// fires with an event of type zk.EventNotWatching whose Err says why.
	// Wait returns the context's error if the context ends first; the watch
	// stays armed and can be waited on again.
	Wait(ctx context.Context) (zk.Event, error)
}

// Subscription is an ordered stream of session events.
type Subscription interface {
	// Next blocks until the next session event and returns it, or returns the
	// context's error.
	Next(ctx context.Context) (zk.Event, error)
	// Close ends the subscription; events after it are not kept.
	Close()
}

// Clock is the time a recipe lives in: virtual time in the simulator, the
// wall clock against a live ensemble. Recipes take all their time from it.
type Clock interface {
	// Now is the current time in the session's world.
	Now() time.Time
	// Sleep waits for d, or until ctx ends (then it returns ctx's error).
	Sleep(ctx context.Context, d time.Duration) error
	// WithTimeout is context.WithTimeout in the session's world: the returned
	// context ends d after Now.
	WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc)
}
