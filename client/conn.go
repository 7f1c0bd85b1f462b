package client

import (
	"context"
	"strings"
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
//
// Access control is the server's: each znode has an ACL (a create's acl,
// validated: zk.ErrInvalidACL), and a call needs its permission on the node
// (READ for Get and Children, WRITE for Set, CREATE and DELETE on the
// parent for Create and Delete, ADMIN for SetACL; Exists needs none), or
// fails with zk.ErrNoAuth. A watch event about a node the session may not
// read is not delivered.
type Conn interface {
	// Create creates a znode. flags is 0, zk.FlagEphemeral, zk.FlagSequence or
	// both; with zk.FlagSequence the returned path carries the sequence number.
	// (The server makes a plain node of zk.FlagContainer here; TTL flags are
	// refused with zk.ErrInvalidFlags.)
	Create(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL) (string, error)
	// Create2 is Create sent as the server's create2, whose answer also
	// carries the new node's Stat (czxid = mzxid = pzxid, version 0, ...),
	// so that a recipe need not read it back with Exists, which may find
	// the node already changed or gone. A fault tied to "create" does not
	// count it: its request type is create2.
	Create2(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL) (string, *zk.Stat, error)
	// CreateContainer creates a container znode (flags must be
	// zk.FlagContainer): the leader deletes it once it has had a child and
	// has none left, at its next check (every minute by default). It shows
	// no ephemeral owner.
	CreateContainer(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL) (string, error)
	// CreateTTL creates a TTL znode (flags zk.FlagTTL or
	// zk.FlagPersistentSequentialWithTTL), which the leader deletes once it
	// has had no child and no change for ttl (whole milliseconds, at most
	// 2⁴⁰−1), at its next check. The server must enable TTL nodes
	// (zookeeper.extendedTypesEnabled; sim.Config.ExtendedTypes), or the
	// create fails with "unknown error: -6" (Unimplemented).
	CreateTTL(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL, ttl time.Duration) (string, error)
	// CreateProtectedEphemeralSequential is go-zk's protected create: an
	// ephemeral sequential node whose name carries a guid
	// ("_c_<32 hex digits>-<name>": ProtectedPrefix), found again by that
	// guid among the parent's children after a lost reply, at most three
	// tries. As in the library, the look-up does not sync first: on a
	// lagging server it misses the node, creates another and orphans the
	// first.
	CreateProtectedEphemeralSequential(ctx context.Context, path string, data []byte, acl []zk.ACL) (string, error)
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

	// AddWatch sets a persistent watch on path, which the server keeps as
	// it fires: its events come, in order, on the returned Subscription. A
	// persistent watch hears NodeCreated, NodeDataChanged, NodeDeleted and
	// NodeChildrenChanged on path; a recursive one hears the first three on
	// path and on every node below it. The watch is set again on each new
	// connection, hearing nothing of what changed meanwhile, and ends with
	// the session (a last zk.EventNotWatching). Live, go-zookeeper/zk
	// v1.0.4 has no addWatch: the live world's wire sends it for the
	// library, and sets the watch again on each new connection.
	AddWatch(ctx context.Context, path string, recursive bool) (Subscription, error)
	// RemoveWatches removes the session's watches on path, persistent and
	// one-shot, which end with a zk.EventNotWatching; with none there, it
	// fails with "unknown error: -121" (the server's NoWatcher).
	RemoveWatches(ctx context.Context, path string) error

	// AddAuth authenticates the session's connection: scheme "digest" with
	// "user:password" adds the id "user:base64(sha1(user:password))" that
	// zk.DigestACL names; an unknown scheme fails with zk.ErrAuthFailed and
	// the server closes the connection (the session survives it). Accepted
	// credentials are sent again on every new connection.
	AddAuth(ctx context.Context, scheme string, auth []byte) error
	// GetACL returns a znode's ACL and Stat. It needs READ or ADMIN on the
	// node (zk.ErrNoAuth); without ADMIN a digest id's hash reads "x".
	GetACL(ctx context.Context, path string) ([]zk.ACL, *zk.Stat, error)
	// SetACL replaces a znode's ACL if its ACL version (Stat.Aversion)
	// matches (-1 matches any). It needs ADMIN on the node; it fires no
	// watch.
	SetACL(ctx context.Context, path string, acl []zk.ACL, version int32) (*zk.Stat, error)

	// GetEphemerals lists the session's own ephemeral nodes whose path
	// begins with prefix, as a string ("/a" lists "/ab"; "/" lists them
	// all), in no particular order: how a recipe finds what its session
	// holds after a lost reply. It is a read, answered by the session's
	// server as its tree stands, and checks no ACL.
	GetEphemerals(ctx context.Context, prefix string) ([]string, error)
	// GetAllChildrenNumber counts the nodes below path at every depth
	// (below "/": every node but the root, ZooKeeper's own included). It
	// needs READ on path; a read, as GetEphemerals.
	GetAllChildrenNumber(ctx context.Context, path string) (int, error)

	// SessionID is the current session's id, 0 before the first session is
	// established. It changes when an expired session is replaced.
	SessionID() int64
	// State is the session's current state (zk.StateHasSession when usable).
	State() zk.State
	// SessionEvents subscribes to the session's state changes from now on:
	// every zk.EventSession the session goes through, in order, none dropped.
	SessionEvents() Subscription

	// Close ends the session, as go-zookeeper/zk's Close does: it asks the
	// server to close the session (its ephemeral nodes go at once) and
	// waits up to a second for the answer; a server it cannot reach keeps
	// the session until it expires. Every watch of the session then fires
	// with zk.EventNotWatching and zk.ErrClosing, the state becomes
	// zk.StateDisconnected, and every later call fails with
	// zk.ErrConnectionClosed. The Clock keeps working. Closing twice does
	// nothing.
	Close()
	// NewSession opens another session with the same ensemble, for the same
	// process: what a library does when it gives a session up (Curator
	// closes its handle and makes a new one). Like zk.Connect it returns at
	// once; the new session is established in the background, and calls
	// made meanwhile wait for it. It is a new session in every respect: a
	// new id, no watches, no ephemeral nodes, and it has seen nothing, so it
	// may land on a lagging server and read older data than this session
	// did until it syncs. The old session is not closed: close it, or it
	// lives on the servers (with its ephemeral nodes) until it expires.
	NewSession(ctx context.Context) (Conn, error)

	Clock
	Process
}

// ProtectedPrefix starts the name of a node made by go-zk's protected
// create (Conn.CreateProtectedEphemeralSequential): "_c_", then a
// 32-hex-digit guid and a dash.
const ProtectedPrefix = "_c_"

// Waitable is what Clock.Select waits on: a Watch, a Subscription, a
// Timer, a Task, an Event or a Mailbox of the same world (and, in the
// simulator, of the same process).
type Waitable interface {
	// Poll returns, without blocking, what is ready: a fired watch's event
	// (it stays fired), a subscription's next event (taken from it), or a
	// fired timer's (the zero zk.Event). ok is false when nothing is.
	Poll() (ev zk.Event, ok bool)
}

// Watch is the one-shot notification a watching read returns.
type Watch interface {
	Waitable
	// Wait blocks, in the world the watch belongs to, until the watch fires,
	// and returns its event. When the session expires or is closed the watch
	// fires with an event of type zk.EventNotWatching whose Err says why.
	// Wait returns the context's error if the context ends first; the watch
	// stays armed and can be waited on again.
	Wait(ctx context.Context) (zk.Event, error)
}

// Subscription is an ordered stream of session events.
type Subscription interface {
	Waitable
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
	// NewTimer starts a timer that fires once, d after Now, for Select.
	NewTimer(d time.Duration) Timer
	// Select waits for the first of several things: a watch firing, a
	// session event, a timer. It returns the index of the one that is
	// ready and its event (a subscription's event is taken from it). When
	// several are ready, the lowest index wins, so a run replays exactly.
	// It returns -1 and the context's error if ctx ends first. This is how
	// a recipe waits for "my watch fired, or my session changed, or it is
	// time to give up", whichever comes first.
	Select(ctx context.Context, ws ...Waitable) (int, zk.Event, error)
}

// Timer fires once, for Select. Its event is the zero zk.Event.
type Timer interface {
	Waitable
	// Stop stops the timer; it reports whether it stopped it before it
	// fired.
	Stop() bool
}

// Pauser is a session whose process the world can stop, heartbeats
// included, for d: what a crash or a long garbage-collection pause does to
// a process. Both worlds' sessions are Pausers; a workload that makes a
// process fail for good uses it (a recipe never does).
type Pauser interface {
	Pause(d time.Duration)
}

// PersistentHears reports whether a persistent watch on watchPath
// (recursive or not) hears an event of type typ on path, as AddWatch
// says: a persistent watch every event on its path; a recursive one every
// event on its path and below it, but NodeChildrenChanged. Both worlds'
// AddWatch pass events by it.
func PersistentHears(watchPath string, recursive bool, path string, typ zk.EventType) bool {
	if path == watchPath {
		return !recursive || typ != zk.EventNodeChildrenChanged
	}
	return recursive && typ != zk.EventNodeChildrenChanged &&
		(watchPath == "/" || strings.HasPrefix(path, watchPath+"/"))
}

// AddWatchMode is an addWatch's mode, numbered as ZooKeeper's wire
// protocol numbers it: a persistent watch on the path, or a persistent
// recursive one on the path and every node below it (PersistentHears says
// which events each hears). Both worlds send it for AddWatch: the
// simulator's request carries it to the server, the live world's wire
// writes it after the path.
type AddWatchMode int32

// The modes of addWatch.
const (
	AddWatchPersistent          AddWatchMode = 0
	AddWatchPersistentRecursive AddWatchMode = 1
)

// AddWatchModeOf is the mode AddWatch(ctx, path, recursive) sends.
func AddWatchModeOf(recursive bool) AddWatchMode {
	if recursive {
		return AddWatchPersistentRecursive
	}
	return AddWatchPersistent
}
