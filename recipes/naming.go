package recipes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// NameService maps names to what they stand for (an address, a small
// record): the name service of the recipes' "Out of the box Applications",
// which ZooKeeper's API provides directly.
//
// What the name service's workload does with its errors: a Register that
// returns an error wrapping zk.ErrNodeExists (ErrNameTaken) is recorded
// as told the name was taken; one that returns another error is recorded
// of unknown outcome, with the error (its create may have been applied),
// and after an error a caller must expect under faults (those Locker's doc
// lists) the client registers again, as a new call, until it knows, and
// after any other it fails. A Resolve that returns an error wrapping
// zk.ErrNoNode (ErrNameNotFound) is recorded as finding no such name; one
// that returns another error is recorded as a failed resolve, with the
// error (it learnt nothing), and the client resolves again after an
// expected error and fails after any other. The workload calls neither
// Names nor Unregister.
type NameService interface {
	// Register binds name to data.
	Register(ctx context.Context, name string, data []byte) error
	// Resolve returns the data name is bound to, or an error wrapping
	// ErrNameNotFound (and so zk.ErrNoNode) if it is not registered.
	Resolve(ctx context.Context, name string) ([]byte, error)
	// Names lists the registered names, sorted.
	Names(ctx context.Context) ([]string, error)
	// Unregister removes name.
	Unregister(ctx context.Context, name string) error
}

// ErrNameNotFound says a name is not registered. It wraps zk.ErrNoNode, so
// errors.Is(err, zk.ErrNoNode) holds for it too.
var ErrNameNotFound = fmt.Errorf("recipes: name not registered: %w", zk.ErrNoNode)

// ErrNameTaken says a name is registered by someone else: with other data,
// or (ephemeral names) by another session. It wraps zk.ErrNodeExists.
var ErrNameTaken = fmt.Errorf("recipes: name registered by someone else: %w", zk.ErrNodeExists)

// NameRegistry is the name service ("Out of the box Applications: Name
// Service"): each name is a node under a directory node, holding the data
// the name stands for. Registering is create(), resolving is getData(),
// listing is getChildren() on the directory.
//
// An ephemeral registry registers names with ephemeral nodes: a name
// vanishes with its owner's session, so a crashed server takes its address
// with it, once its session expires. A persistent registry's names stay
// until they are unregistered. An ephemeral name is not registered again by
// itself after its owner's session expired: the owner, told of the expiry
// by its session events, registers it again if it wants to.
//
// Resolve and Names sync first: they see every registration that completed
// before they were called, not only what the session's server has applied.
type NameRegistry struct {
	conn      client.Conn
	dir       string
	acl       []zk.ACL
	ephemeral bool

	// noRecovery takes every NodeExists for someone else's registration,
	// even the one that follows its own create() whose reply was lost (the
	// naming-no-recovery variant's mistake). Only the teaching variant sets
	// it.
	noRecovery bool
	// noSync resolves without bringing the server up to date first (the
	// naming-resolve-no-sync variant's mistake).
	noSync bool
}

var _ NameService = (*NameRegistry)(nil)

// NewNameRegistry returns the name service whose names are the children of
// dir; ephemeral says whether a registration vanishes with the session
// that made it.
func NewNameRegistry(conn client.Conn, dir string, ephemeral bool) *NameRegistry {
	return &NameRegistry{conn: conn, dir: dir, acl: zk.WorldACL(zk.PermAll), ephemeral: ephemeral}
}

func (r *NameRegistry) path(name string) string { return r.dir + "/" + name }

// owner is what a name's node says about who registered it.
type owner uint8

const (
	ownerNone   owner = iota // no node
	ownerUs                  // our registration
	ownerOthers              // someone else's
)

// Register binds name to data: create() dir/name holding data, ephemeral or
// persistent as the registry says (creating dir first if it is missing).
//
// Registering is idempotent: if the node exists and is ours (it holds
// exactly data, and, for an ephemeral name, its ephemeral owner is this
// session), Register succeeds. That is how a lost create() reply is
// recovered: when create() fails with a recoverable error the node may
// exist, the retry answers NodeExists, and the node is ours if it passes
// that test. Otherwise Register fails with ErrNameTaken. Two persistent
// registrations of a name with the same data are the same binding: they
// cannot be told apart, and need not be.
//
// If ctx ends while a create()'s outcome is unknown, the node is deleted if
// it is ours, and ctx's error is returned.
func (r *NameRegistry) Register(ctx context.Context, name string, data []byte) error {
	flags := int32(zk.FlagPersistent)
	if r.ephemeral {
		flags = zk.FlagEphemeral
	}
	path := r.path(name)
	unsure := false // a create() may have been applied without our hearing of it
	for {
		if err := ctx.Err(); err != nil {
			return r.abandon(ctx, name, data, unsure, err)
		}
		_, err := r.conn.Create(ctx, path, data, flags, r.acl)
		switch {
		case err == nil:
			return nil
		case retryable(err):
			continue // not sent: send again
		case recoverable(err):
			unsure = true
			continue // it may have been applied: then the retry says NodeExists
		case ctx.Err() != nil:
			return r.abandon(ctx, name, data, true, err)
		case errors.Is(err, zk.ErrNoNode):
			if err := ensurePath(ctx, r.conn, r.dir); err != nil {
				return r.abandon(ctx, name, data, unsure, err)
			}
			continue
		case !errors.Is(err, zk.ErrNodeExists):
			return r.abandon(ctx, name, data, unsure, err)
		case r.noRecovery:
			return fmt.Errorf("%w: %s", ErrNameTaken, name) // the variant's mistake
		}
		who, err := r.owner(ctx, name, data)
		switch {
		case err != nil:
			return r.abandon(ctx, name, data, unsure, err)
		case who == ownerUs:
			return nil
		case who == ownerOthers:
			return fmt.Errorf("%w: %s", ErrNameTaken, name)
		}
		// Deleted since: create it again.
	}
}

// owner says whose registration of name the node is: ours if it holds data
// and, for an ephemeral name, belongs to this session.
func (r *NameRegistry) owner(ctx context.Context, name string, data []byte) (owner, error) {
	for {
		got, st, err := r.conn.Get(ctx, r.path(name))
		switch {
		case transient(err):
			continue
		case errors.Is(err, zk.ErrNoNode):
			return ownerNone, nil
		case err != nil:
			return ownerNone, err
		}
		mine := st.EphemeralOwner == 0
		if r.ephemeral {
			mine = st.EphemeralOwner == r.conn.SessionID()
		}
		if mine && bytes.Equal(got, data) {
			return ownerUs, nil
		}
		return ownerOthers, nil
	}
}

// abandon ends a failed Register: if ctx ended while a create()'s outcome
// was unknown, it deletes the node if the node is ours. It returns err.
func (r *NameRegistry) abandon(ctx context.Context, name string, data []byte, unsure bool, err error) error {
	if ctx.Err() == nil || !unsure {
		return err
	}
	cctx, cancel := cleanup(ctx, r.conn)
	defer cancel()
	if who, e := r.owner(cctx, name, data); e == nil && who == ownerUs {
		_ = r.deleteOwn(cctx, name)
	}
	return err
}

// Resolve returns the data name is bound to: sync, then getData() on
// dir/name. A missing name is an error wrapping ErrNameNotFound.
func (r *NameRegistry) Resolve(ctx context.Context, name string) ([]byte, error) {
	if err := r.sync(ctx); err != nil {
		return nil, err
	}
	for {
		data, _, err := r.conn.Get(ctx, r.path(name))
		switch {
		case transient(err):
			continue
		case errors.Is(err, zk.ErrNoNode):
			return nil, fmt.Errorf("%w: %s", ErrNameNotFound, name)
		case err != nil:
			return nil, err
		}
		return data, nil
	}
}

// Names lists the registered names, sorted: sync, then getChildren() on
// dir. A missing dir has no names.
func (r *NameRegistry) Names(ctx context.Context) ([]string, error) {
	if err := r.sync(ctx); err != nil {
		return nil, err
	}
	for {
		kids, _, err := r.conn.Children(ctx, r.dir)
		switch {
		case transient(err):
			continue
		case errors.Is(err, zk.ErrNoNode):
			return nil, nil
		case err != nil:
			return nil, err
		}
		slices.Sort(kids)
		return kids, nil
	}
}

// sync brings the session's server up to date (UpToDate), so that the
// next read sees every write completed before it.
func (r *NameRegistry) sync(ctx context.Context) error {
	if r.noSync {
		return nil // naming-resolve-no-sync: reads whatever its server has
	}
	return UpToDate(ctx, r.conn)
}

// Unregister removes name: delete() dir/name, at the version it was read
// at. An ephemeral registry removes only a registration of this session
// (another session's is ErrNameTaken); a name already gone is not an error.
func (r *NameRegistry) Unregister(ctx context.Context, name string) error {
	return r.deleteOwn(ctx, name)
}

// deleteOwn deletes name's node if it is ours to delete.
func (r *NameRegistry) deleteOwn(ctx context.Context, name string) error {
	path := r.path(name)
	for {
		ok, st, err := r.conn.Exists(ctx, path)
		switch {
		case transient(err):
			continue
		case err != nil:
			return err
		case !ok:
			return nil
		case r.ephemeral && st.EphemeralOwner != r.conn.SessionID():
			return fmt.Errorf("%w: %s", ErrNameTaken, name)
		}
		err = r.conn.Delete(ctx, path, st.Version)
		switch {
		case err == nil, errors.Is(err, zk.ErrNoNode):
			return nil
		case transient(err), errors.Is(err, zk.ErrBadVersion):
			continue // look again: it may be gone, or changed
		}
		return err
	}
}
