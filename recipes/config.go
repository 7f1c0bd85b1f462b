package recipes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// ConfigWriter publishes a configuration.
//
// What the configuration's workload does with its errors: a Write that
// returns an error is recorded of unknown outcome, with the error (it may
// have been applied; the config check does not take it for the latest);
// after an error a caller must expect under faults (those Locker's doc
// lists) the writer goes on to its next write, and after any other the
// client fails.
type ConfigWriter interface {
	// Write replaces the configuration with data if its version is version
	// (-1: whatever it is), and returns the new version.
	Write(ctx context.Context, data []byte, version int32) (int32, error)
}

// ConfigReader follows a configuration.
//
// What the configuration's workload does with its errors: a reader calls
// Next with a deadline of its own, a second at a time, and a Next that
// returns once that deadline has passed is not recorded (the workload
// gave the wait up; the reader keeps its watch across calls). A Next that
// returns an error before it is recorded as a failed read, with the error
// (it learnt nothing); after an error a caller must expect under faults
// (those Locker's doc lists) the reader calls Next again, and after any
// other the client fails.
type ConfigReader interface {
	// Next blocks until there is a configuration newer than the last one
	// it returned, and returns it.
	Next(ctx context.Context) (Configuration, error)
}

// Configuration is one version of a configuration node.
type Configuration struct {
	// Data is the configuration itself.
	Data []byte
	// Version is the node's data version: each write adds one.
	Version int32
	// Czxid is the zxid that created the node: a node deleted and created
	// again starts its versions over, with a higher Czxid.
	Czxid int64
	// Mzxid is the zxid of the write that made this version.
	Mzxid int64
}

// newerThan reports whether c comes after old: a later incarnation of the
// node, or a higher version of the same one.
func (c Configuration) newerThan(old Configuration) bool {
	if c.Czxid != old.Czxid {
		return c.Czxid > old.Czxid
	}
	return c.Version > old.Version
}

// ErrConfigUnknown says a configuration write's reply was lost and another
// write came after it: whether it was applied (and then overwritten) is
// unknown. It wraps zk.ErrConnectionClosed, ZooKeeper's word for an
// outcome the client cannot know.
var ErrConfigUnknown = fmt.Errorf("recipes: the configuration write's reply was lost and another write followed it: "+
	"whether it was applied is unknown: %w", zk.ErrConnectionClosed)

// ConfigNode writes a configuration ("Out of the box Applications:
// Configuration"): the configuration is the data of one node, and each
// write is a setData() on it, so the node's version counts the writes.
//
// Every write is a conditional setData() (at the version given, or at the
// version just read when the caller gives -1). That makes a lost reply
// recoverable: retrying the same conditional write is refused with
// BadVersion if the first one was applied, and the node then shows our
// data at the next version. An unconditional retry could apply the same
// configuration twice.
type ConfigNode struct {
	conn client.Conn
	path string
	acl  []zk.ACL
}

var _ ConfigWriter = (*ConfigNode)(nil)

// NewConfigNode returns the writer of the configuration held by the node
// at path.
func NewConfigNode(conn client.Conn, path string) *ConfigNode {
	return &ConfigNode{conn: conn, path: path, acl: zk.WorldACL(zk.PermAll)}
}

// Write replaces the configuration with data and returns its new version.
//
// With version ≥ 0 it is a compare-and-set: it fails with zk.ErrBadVersion
// if the node's version is another one (someone else wrote since the
// caller read it), and with zk.ErrNoNode if the node does not exist. With
// version -1 it writes whatever the version is: it reads the version and
// sets at it, again if another writer came in between, and creates the
// node (and its parents) holding data, at version 0, if it is missing.
//
// A write whose reply is lost is sent again with the same expected
// version. If that says BadVersion, the node tells what happened: our data
// at the next version means ours was applied; someone else's data there
// means ours was not (it can never be now); a version further on means
// someone else wrote after, and whether ours was applied first is
// unknown: ErrConfigUnknown. With a single writer that cannot happen.
//
// A write interrupted by the end of ctx may still be applied, as any
// ZooKeeper write; it is not undone.
func (c *ConfigNode) Write(ctx context.Context, data []byte, version int32) (int32, error) {
	expect := version
	unsure := false // the last attempt may have been applied unheard
	for {
		if expect < 0 {
			cur, exists, err := c.read(ctx)
			if err != nil {
				return 0, err
			}
			if !exists {
				v, done, err := c.create(ctx, data, &unsure)
				if done || err != nil {
					return v, err
				}
				continue // created by someone else meanwhile: set it
			}
			expect = cur.Version
		}
		st, err := c.conn.Set(ctx, c.path, data, expect)
		switch {
		case err == nil:
			return st.Version, nil
		case retryable(err):
			continue
		case recoverable(err), expired(err):
			unsure = true
			continue // the same conditional write: applied once at most
		case errors.Is(err, zk.ErrNoNode):
			if version >= 0 {
				return 0, fmt.Errorf("recipes: configuration %s: %w", c.path, err)
			}
			expect, unsure = -1, false // deleted: create it
			continue
		case !errors.Is(err, zk.ErrBadVersion):
			return 0, err
		}
		if unsure {
			// Was our earlier attempt applied? The node has moved past expect.
			cur, exists, err := c.read(ctx)
			switch {
			case err != nil:
				return 0, err
			case exists && cur.Version == expect+1 && bytes.Equal(cur.Data, data):
				return cur.Version, nil // it was
			case exists && cur.Version > expect+1:
				return 0, ErrConfigUnknown
			}
			unsure = false // someone else's write took expect+1: ours was not applied
		}
		if version >= 0 {
			return 0, err // BadVersion: the caller's compare-and-set failed
		}
		expect = -1 // another writer came in between: read the version again
	}
}

// create creates the missing configuration node holding data. done says
// the write is over (our node was created, or err); otherwise someone
// else's node is there and the caller sets it.
func (c *ConfigNode) create(ctx context.Context, data []byte, unsure *bool) (int32, bool, error) {
	for {
		_, err := c.conn.Create(ctx, c.path, data, zk.FlagPersistent, c.acl)
		switch {
		case err == nil:
			return 0, true, nil
		case retryable(err):
			continue
		case recoverable(err), expired(err):
			*unsure = true
			continue
		case errors.Is(err, zk.ErrNoNode):
			if i := strings.LastIndexByte(c.path, '/'); i > 0 {
				if err := ensurePath(ctx, c.conn, c.path[:i]); err != nil {
					return 0, true, err
				}
			}
			continue
		case !errors.Is(err, zk.ErrNodeExists):
			return 0, true, err
		}
		if !*unsure {
			return 0, false, nil
		}
		cur, exists, err := c.read(ctx)
		switch {
		case err != nil:
			return 0, true, err
		case !exists:
			continue // deleted again: create again
		case cur.Version == 0 && bytes.Equal(cur.Data, data):
			return 0, true, nil // our create was applied
		case cur.Version > 0:
			return 0, true, ErrConfigUnknown
		}
		*unsure = false // someone else created it: ours was not applied
		return 0, false, nil
	}
}

// read reads the configuration node, through connection losses.
func (c *ConfigNode) read(ctx context.Context) (Configuration, bool, error) {
	for {
		data, st, err := c.conn.Get(ctx, c.path)
		switch {
		case transient(err), expired(err):
			continue
		case errors.Is(err, zk.ErrNoNode):
			return Configuration{}, false, nil
		case err != nil:
			return Configuration{}, false, err
		}
		return configOf(data, st), true, nil
	}
}

func configOf(data []byte, st *zk.Stat) Configuration {
	return Configuration{Data: data, Version: st.Version, Czxid: st.Czxid, Mzxid: st.Mzxid}
}

// ConfigWatcher reads a configuration and follows its changes ("Out of the
// box Applications: Configuration"): getData() on the node with a watch,
// and after each notification getData() again with a new watch (a watch
// fires once). A missing node is watched with exists() until it is
// created.
//
// It never goes back: it delivers a configuration only if it is newer than
// the last one delivered (a higher Version, or a later incarnation of the
// node, by Czxid). Within a session ZooKeeper guarantees as much: a client
// never reconnects to a server that has seen less than it has (the
// simulated server refuses such a client too). Across sessions nothing
// carries the client's last zxid over: a new session may start on a server
// behind the one the old session read from (in the simulator it cannot, as
// a session is created through the leader and answered by a server that
// applied its creation; a real ensemble's read-only mode could allow it).
// So after its session expired, the watcher syncs its new session's server
// with the leader before reading again; and should it still read an older
// version, or the same one again, it does not deliver it: it waits, with
// its watch, for a version newer than the last one it delivered.
//
// Watches are one-shot and the watcher re-reads after each: it delivers
// the latest configuration at the time it reads, so versions written in
// quick succession may be skipped, never reordered.
type ConfigWatcher struct {
	conn client.Conn
	path string

	last      Configuration
	delivered bool
	watch     client.Watch // armed by the last read, nil if none
	session   int64        // the session of the last read

	mistakes configMistakes
}

// configMistakes are the teaching variants' switches and their state
// (configvariants.go sets them; the recipe never does): readOnce reads
// without a watch (the config-read-once variant); watchOnce sets one
// watch only (the config-oneshot-watch variant); unwatched says such a
// variant has nothing left to wait on; watches counts the watches set.
type configMistakes struct {
	readOnce, watchOnce, unwatched bool
	watches                        int
}

var _ ConfigReader = (*ConfigWatcher)(nil)

// NewConfigWatcher returns the reader of the configuration held by the
// node at path.
func NewConfigWatcher(conn client.Conn, path string) *ConfigWatcher {
	return &ConfigWatcher{conn: conn, path: path}
}

// Next blocks until the configuration is newer than the last one it
// returned (on the first call: until there is one), and returns it. It
// carries on through connection losses and session expiry. If ctx ends
// first it returns ctx's error; the watch it set stays, and the next call
// waits on it.
func (r *ConfigWatcher) Next(ctx context.Context) (Configuration, error) {
	for {
		switch {
		case r.watch != nil:
			// Wait for the change. An expired session fires the watch
			// with EventNotWatching: read again, in the new session.
			if _, err := r.watch.Wait(ctx); err != nil {
				return Configuration{}, err
			}
			r.watch = nil
		case r.mistakes.unwatched:
			return Configuration{}, configIdle(ctx, r.conn)
		}
		cfg, found, err := r.read(ctx)
		if err != nil {
			return Configuration{}, err
		}
		if found && (!r.delivered || cfg.newerThan(r.last)) {
			r.last, r.delivered = cfg, true
			return cfg, nil
		}
		// Nothing newer (an older version is never delivered): wait.
	}
}

// read reads the node, leaving a watch on it: getData() if it exists,
// exists() if not. After the session changed, it brings its server up to
// date first (UpToDate).
func (r *ConfigWatcher) read(ctx context.Context) (Configuration, bool, error) {
	watching := !r.mistakes.readOnce && !(r.mistakes.watchOnce && r.mistakes.watches > 0)
	for {
		if r.session != 0 && r.conn.SessionID() != r.session {
			// A new session: bring its server up to date first.
			if err := UpToDate(ctx, r.conn); err != nil {
				if transient(err) || expired(err) {
					continue
				}
				return Configuration{}, false, err
			}
		}
		session := r.conn.SessionID()
		var data []byte
		var st *zk.Stat
		var w client.Watch
		var err error
		if watching {
			data, st, w, err = r.conn.GetW(ctx, r.path)
		} else {
			data, st, err = r.conn.Get(ctx, r.path)
		}
		switch {
		case transient(err), expired(err):
			continue
		case errors.Is(err, zk.ErrNoNode):
			if !watching {
				r.mistakes.unwatched = true
				return Configuration{}, false, nil
			}
			cfg, found, err := r.awaitCreation(ctx)
			if transient(err) || expired(err) {
				continue
			}
			r.session = session
			return cfg, found, err
		case err != nil:
			return Configuration{}, false, err
		}
		r.session = session
		if watching {
			r.watch = w
			r.mistakes.watches++
		} else {
			r.mistakes.unwatched = true
		}
		return configOf(data, st), true, nil
	}
}

// awaitCreation is exists() with a watch on the missing node. If the node
// was created in the meantime, it reads it, keeping exists()'s watch.
func (r *ConfigWatcher) awaitCreation(ctx context.Context) (Configuration, bool, error) {
	ok, _, w, err := r.conn.ExistsW(ctx, r.path)
	if err != nil {
		return Configuration{}, false, err
	}
	r.watch = w
	r.mistakes.watches++
	if !ok {
		return Configuration{}, false, nil
	}
	// Created meanwhile: exists() left a data watch, which fires on any
	// change after it; read the data without another.
	for {
		data, st, err := r.conn.Get(ctx, r.path)
		switch {
		case transient(err), expired(err):
			continue
		case errors.Is(err, zk.ErrNoNode):
			return Configuration{}, false, nil // deleted again: the watch fires
		case err != nil:
			return Configuration{}, false, err
		}
		return configOf(data, st), true, nil
	}
}

// configIdle waits for the end of ctx, hearing the session's events and
// ignoring them: a teaching variant's reader with nothing to wait on.
func configIdle(ctx context.Context, conn client.Conn) error {
	events := conn.SessionEvents()
	defer events.Close()
	for {
		if _, err := events.Next(ctx); err != nil {
			return err
		}
	}
}
