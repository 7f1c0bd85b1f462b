package sim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/jute"
	"github.com/zksim/zksim/trace"
)

// The requests a session carries: go-zookeeper/zk's calls, each checked
// as the library checks it, sent, queued while disconnected, and completed
// by the server's reply (deliver) or by the connection's loss.

// complete ends a call: answered (err nil, the reply in r.rep) or failed.
func (c *Client) complete(r *request, err error) {
	r.err, r.done = err, true
	c.p.wakeFor(r)
}

// deliver handles a message from the server on connection cn (rep nil: the
// server closed the connection).
func (c *Client) deliver(cn *conn, rep *reply) {
	if c.outside != nil {
		c.outside.deliver(cn, rep)
		return
	}
	if c.exited || cn != c.cn {
		c.w.recycle(rep)
		return
	}
	if c.p.paused {
		c.p.buffered = append(c.p.buffered, func() { c.deliver(cn, rep) })
		return
	}
	c.lastRecv = c.w.s.now
	if rep.eof {
		c.drop(zk.ErrConnectionClosed)
		return
	}
	if rep.zxid > 0 {
		// A client's view never goes back in time, not even across servers.
		if rep.zxid < c.lastZxid && c.lastZxid != 0 {
			c.w.violate(fmt.Sprintf("%s got zxid %#x from %s after having seen %#x", c.name, rep.zxid, c.Server(), c.lastZxid))
		}
		c.lastZxid = rep.zxid
	}
	switch {
	case rep.op == client.OpCreateSession:
		c.onConnect(rep)
	case rep.xid == -1:
		c.onWatchEvent(rep.path, zk.EventType(rep.code))
		c.w.recycle(rep)
	case rep.op == client.OpPing:
	default:
		if len(c.inflight) == 0 || c.inflight[0].xid != rep.xid {
			panic(fmt.Sprintf("sim: client %s got a reply #%d out of order", c.name, rep.xid))
		}
		r := c.inflight[0]
		n := copy(c.inflight, c.inflight[1:]) // usually none: keep the backing array
		c.inflight[n] = nil
		c.inflight = c.inflight[:n]
		if r.watch {
			c.registerWatch(r)
		}
		c.complete(r, nil)
	}
}

func (c *Client) send(r *request) {
	c.inflight = append(c.inflight, r)
	c.w.s.record(trace.Record{Kind: trace.KSend, From: c.actor, To: c.cn.srv.actor, Op: r.op, Path: sendPath(r), Arg: int64(r.xid),
		Code: watchCode(r), Task: r.task})
	c.cn.toServer(false, r)
}

func sendPath(r *request) string {
	if (r.op == client.OpMulti || r.op == jute.OpMultiRead) && r.requestExtra != nil && len(r.ops) > 0 {
		return multiPath(r)
	}
	return r.path
}

// multiPath names a multi by its first operation's path, and how many
// more it holds: "/a", "/a and 2 more".
func multiPath(r *request) string {
	if len(r.ops) == 1 {
		return r.ops[0].path
	}
	return fmt.Sprintf("%s and %d more", r.ops[0].path, len(r.ops)-1)
}

// do sends req (or queues it while disconnected) and waits for its reply.
// It returns the reply, or the client-side error that ended the call.
func (c *Client) do(ctx context.Context, req *request) (*reply, error) {
	t := c.p.current()
	t.preempt() // another task of the process may call first
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if c.exited {
		// Closed: go-zookeeper/zk answers every later call so.
		return nil, zk.ErrConnectionClosed
	}
	c.xid++
	req.xid, req.task = c.xid, t.ord
	if 4+req.frameSize() > clientBuffer {
		return nil, zk.ErrShortBuffer // the library's buffer cannot hold it: nothing is sent
	}
	if c.cn != nil && c.state == zk.StateHasSession {
		c.send(req)
	} else {
		c.queued = append(c.queued, req)
	}
	for !req.done {
		t.waitObj = req
		if err := t.park(ctx, waitReply, req.op, req.path); err != nil {
			return nil, err
		}
	}
	c.w.ops++
	return &req.rep, req.err
}

// Create implements client.Conn.
func (c *Client) Create(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL) (string, error) {
	if err := checkCreate(path, flags); err != nil {
		return "", err
	}
	// The container flag goes out as is: the server makes a plain node of
	// a create (op 1), whatever its flags (CreateContainer makes a
	// container).
	return c.create(ctx, &request{op: client.OpCreate, path: path, data: clone(data), flags: flags, acl: acl})
}

// Create2 implements client.Conn: Create sent as create2, whose answer
// carries the new node's Stat.
func (c *Client) Create2(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL) (string, *zk.Stat, error) {
	if err := checkCreate(path, flags); err != nil {
		return "", nil, err
	}
	rep, err := c.ask(ctx, &request{op: client.OpCreate2, path: path, data: clone(data), flags: flags, acl: acl})
	if err != nil {
		return "", nil, err
	}
	st := rep.stat
	return rep.path, &st, nil
}

// checkCreate is what the library checks of a plain create before it sends
// it: the flags parse, then the path, then TTL modes are refused (they
// need CreateTTL).
func checkCreate(path string, flags int32) error {
	sequential := false
	switch flags {
	case zk.FlagPersistent, zk.FlagEphemeral, zk.FlagContainer, zk.FlagTTL:
	case zk.FlagSequence, zk.FlagEphemeralSequential, zk.FlagPersistentSequentialWithTTL:
		sequential = true
	default:
		return fmt.Errorf("invalid flag value: [%v]", flags)
	}
	if !validClientPath(path, sequential) {
		return zk.ErrInvalidPath
	}
	if flags == zk.FlagTTL || flags == zk.FlagPersistentSequentialWithTTL {
		return fmt.Errorf("Create with TTL flag disallowed: %w", zk.ErrInvalidFlags)
	}
	return nil
}

// CreateContainer implements client.Conn, as the library does: the flags
// must be zk.FlagContainer.
func (c *Client) CreateContainer(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL) (string, error) {
	if flags < 0 || flags > zk.FlagPersistentSequentialWithTTL {
		return "", fmt.Errorf("invalid flag value: [%v]", flags)
	}
	if !validClientPath(path, flags == zk.FlagSequence || flags == zk.FlagEphemeralSequential ||
		flags == zk.FlagPersistentSequentialWithTTL) {
		return "", zk.ErrInvalidPath
	}
	if flags != zk.FlagContainer {
		return "", fmt.Errorf("CreateContainer requires container flag: %w", zk.ErrInvalidFlags)
	}
	return c.create(ctx, &request{op: client.OpCreateContainer, path: path, data: clone(data), flags: flags, acl: acl})
}

// CreateTTL implements client.Conn, as the library does: the flags must
// be zk.FlagTTL or zk.FlagPersistentSequentialWithTTL; the TTL goes out in
// whole milliseconds.
func (c *Client) CreateTTL(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL, ttl time.Duration) (string, error) {
	if flags < 0 || flags > zk.FlagPersistentSequentialWithTTL {
		return "", fmt.Errorf("invalid flag value: [%v]", flags)
	}
	if !validClientPath(path, flags == zk.FlagSequence || flags == zk.FlagEphemeralSequential ||
		flags == zk.FlagPersistentSequentialWithTTL) {
		return "", zk.ErrInvalidPath
	}
	if flags != zk.FlagTTL && flags != zk.FlagPersistentSequentialWithTTL {
		return "", fmt.Errorf("CreateTTL requires TTL flag: %w", zk.ErrInvalidFlags)
	}
	return c.create(ctx, &request{op: client.OpCreateTTL, path: path, data: clone(data), flags: flags, acl: acl,
		requestExtra: &requestExtra{ttl: ttl.Milliseconds()}})
}

// ask makes req's call and returns its reply, or the call's error or the
// server's.
func (c *Client) ask(ctx context.Context, req *request) (*reply, error) {
	rep, err := c.do(ctx, req)
	if err == nil {
		err = trace.CodeError(rep.code)
	}
	return rep, err
}

// create sends a create of any kind and returns the path it made.
func (c *Client) create(ctx context.Context, req *request) (string, error) {
	rep, err := c.ask(ctx, req)
	if err != nil {
		return "", err
	}
	return rep.path, nil
}

// authCred is one AddAuth's credentials.
type authCred struct {
	scheme string
	auth   []byte
}

// connIDs are the ids a new connection of the client has on its server:
// its address, and the digests of its credentials (go-zk sends them again
// before anything else on a new connection, and the server accepts them
// again).
func (c *Client) connIDs() []authID {
	ids := []authID{ipID}
	for _, cr := range c.creds {
		if cr.scheme == "digest" {
			if id := (authID{"digest", digestID(cr.auth)}); !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// AddAuth implements client.Conn: the server authenticates the connection
// (digest: as "user:base64(sha1(user:password))"; any scheme but digest
// and ip fails with zk.ErrAuthFailed, and the server closes the
// connection, the session living on). The credentials are kept, and sent
// again on every new connection, once they were accepted.
func (c *Client) AddAuth(ctx context.Context, scheme string, auth []byte) error {
	_, err := c.ask(ctx, &request{op: client.OpSetAuth, path: scheme, data: clone(auth)})
	if err == nil {
		c.creds = append(c.creds, authCred{scheme, clone(auth)})
	}
	return err
}

// GetACL implements client.Conn.
func (c *Client) GetACL(ctx context.Context, path string) ([]zk.ACL, *zk.Stat, error) {
	if !validClientPath(path, false) {
		return nil, nil, zk.ErrInvalidPath
	}
	rep, err := c.do(ctx, &request{op: client.OpGetACL, path: path})
	if err != nil {
		return nil, nil, err
	}
	if err := trace.CodeError(rep.code); err != nil {
		return nil, &rep.stat, err
	}
	return slices.Clone(rep.acl), &rep.stat, nil
}

// GetEphemerals implements client.Conn.
func (c *Client) GetEphemerals(ctx context.Context, prefix string) ([]string, error) {
	if !validClientPath(prefix, false) {
		return nil, zk.ErrInvalidPath
	}
	rep, err := c.ask(ctx, &request{op: client.OpGetEphemerals, path: prefix})
	if err != nil {
		return nil, err
	}
	return append([]string{}, rep.children...), nil
}

// GetAllChildrenNumber implements client.Conn.
func (c *Client) GetAllChildrenNumber(ctx context.Context, path string) (int, error) {
	if !validClientPath(path, false) {
		return 0, zk.ErrInvalidPath
	}
	rep, err := c.ask(ctx, &request{op: client.OpGetAllChildren, path: path})
	if err != nil {
		return 0, err
	}
	return int(rep.count), nil
}

// SetACL implements client.Conn.
func (c *Client) SetACL(ctx context.Context, path string, acl []zk.ACL, version int32) (*zk.Stat, error) {
	if !validClientPath(path, false) {
		return nil, zk.ErrInvalidPath
	}
	rep, err := c.do(ctx, &request{op: client.OpSetACL, path: path, acl: slices.Clone(acl), version: version})
	if err != nil {
		return nil, err
	}
	return &rep.stat, trace.CodeError(rep.code)
}

// Delete implements client.Conn.
func (c *Client) Delete(ctx context.Context, path string, version int32) error {
	if !validClientPath(path, false) {
		return zk.ErrInvalidPath
	}
	rep, err := c.do(ctx, &request{op: client.OpDelete, path: path, version: version})
	if err != nil {
		return err
	}
	return trace.CodeError(rep.code)
}

func (c *Client) exists(ctx context.Context, path string, watch bool) (bool, *zk.Stat, client.Watch, error) {
	if !validClientPath(path, false) {
		return false, nil, nil, zk.ErrInvalidPath
	}
	req := &request{op: client.OpExists, path: path, watch: watch}
	rep, err := c.do(ctx, req)
	if err != nil {
		if watch || errors.Is(err, zk.ErrConnectionClosed) || ctx.Err() != nil {
			return false, nil, nil, err
		}
		// go-zk's Exists says true, with a zero Stat, for every error but
		// a closed connection (zk.ErrShortBuffer, a session expired).
		return true, &zk.Stat{}, nil, err
	}
	st := &rep.stat
	switch rep.code {
	case trace.CodeOK:
		return true, st, req.leftWatch(), nil
	case trace.CodeNoNode:
		return false, st, req.leftWatch(), nil
	default:
		if watch {
			return false, nil, nil, trace.CodeError(rep.code)
		}
		return true, st, nil, trace.CodeError(rep.code) // as the library reports it
	}
}

// Exists implements client.Conn.
func (c *Client) Exists(ctx context.Context, path string) (bool, *zk.Stat, error) {
	ok, st, _, err := c.exists(ctx, path, false)
	return ok, st, err
}

// ExistsW implements client.Conn.
func (c *Client) ExistsW(ctx context.Context, path string) (bool, *zk.Stat, client.Watch, error) {
	return c.exists(ctx, path, true)
}

func (c *Client) get(ctx context.Context, path string, watch bool) ([]byte, *zk.Stat, client.Watch, error) {
	if !validClientPath(path, false) {
		return nil, nil, nil, zk.ErrInvalidPath
	}
	req := &request{op: client.OpGetData, path: path, watch: watch}
	rep, err := c.do(ctx, req)
	if err != nil {
		return nil, nil, nil, err
	}
	st := &rep.stat
	if err := trace.CodeError(rep.code); err != nil {
		if watch {
			return nil, nil, nil, err
		}
		return nil, st, nil, err
	}
	return clone(rep.data), st, req.leftWatch(), nil
}

// Get implements client.Conn.
func (c *Client) Get(ctx context.Context, path string) ([]byte, *zk.Stat, error) {
	d, st, _, err := c.get(ctx, path, false)
	return d, st, err
}

// GetW implements client.Conn.
func (c *Client) GetW(ctx context.Context, path string) ([]byte, *zk.Stat, client.Watch, error) {
	return c.get(ctx, path, true)
}

// Set implements client.Conn.
func (c *Client) Set(ctx context.Context, path string, data []byte, version int32) (*zk.Stat, error) {
	if !validClientPath(path, false) {
		return nil, zk.ErrInvalidPath
	}
	rep, err := c.do(ctx, &request{op: client.OpSetData, path: path, data: clone(data), version: version})
	if err != nil {
		return nil, err
	}
	return &rep.stat, trace.CodeError(rep.code)
}

func (c *Client) children(ctx context.Context, path string, watch bool) ([]string, *zk.Stat, client.Watch, error) {
	if !validClientPath(path, false) {
		return nil, nil, nil, zk.ErrInvalidPath
	}
	req := &request{op: client.OpGetChildren, path: path, watch: watch}
	rep, err := c.do(ctx, req)
	if err != nil {
		return nil, nil, nil, err
	}
	st := &rep.stat
	if err := trace.CodeError(rep.code); err != nil {
		if watch {
			return nil, nil, nil, err
		}
		return nil, st, nil, err
	}
	// The server's listing is shared with its other readers; the caller
	// gets its own copy, to sort or change, as go-zookeeper/zk's callers do.
	return slices.Clone(rep.children), st, req.leftWatch(), nil
}

// Children implements client.Conn.
func (c *Client) Children(ctx context.Context, path string) ([]string, *zk.Stat, error) {
	ch, st, _, err := c.children(ctx, path, false)
	return ch, st, err
}

// ChildrenW implements client.Conn.
func (c *Client) ChildrenW(ctx context.Context, path string) ([]string, *zk.Stat, client.Watch, error) {
	return c.children(ctx, path, true)
}

// Sync implements client.Conn.
func (c *Client) Sync(ctx context.Context, path string) (string, error) {
	if !validClientPath(path, false) {
		return "", zk.ErrInvalidPath
	}
	rep, err := c.do(ctx, &request{op: client.OpSync, path: path})
	if err != nil {
		return "", err
	}
	return rep.path, trace.CodeError(rep.code)
}

// Multi implements client.Conn. Like the library it checks no path before
// sending; the server does.
func (c *Client) Multi(ctx context.Context, ops ...any) ([]zk.MultiResponse, error) {
	sub := make([]subOp, 0, len(ops))
	for _, op := range ops {
		switch o := op.(type) {
		case *zk.CreateRequest:
			sub = append(sub, subOp{op: client.OpCreate, path: o.Path, data: clone(o.Data), flags: o.Flags, acl: o.Acl})
		case *zk.DeleteRequest:
			sub = append(sub, subOp{op: client.OpDelete, path: o.Path, version: o.Version})
		case *zk.SetDataRequest:
			sub = append(sub, subOp{op: client.OpSetData, path: o.Path, data: clone(o.Data), version: o.Version})
		case *zk.CheckVersionRequest:
			sub = append(sub, subOp{op: client.OpCheck, path: o.Path, version: o.Version})
		default:
			return nil, fmt.Errorf("unknown operation type %T", op)
		}
	}
	rep, err := c.do(ctx, &request{op: client.OpMulti, requestExtra: &requestExtra{ops: sub}})
	if errors.Is(err, zk.ErrShortBuffer) {
		return []zk.MultiResponse{}, err
	}
	if err != nil {
		return nil, err
	}
	return multiResult(rep)
}

// multiResult turns a multi's reply into what the library returns: one
// response per op, and the first op's error.
func multiResult(rep *reply) ([]zk.MultiResponse, error) {
	if rep.code != trace.CodeOK && len(rep.multi) == 0 {
		// Refused as a whole (the session expired): an error in the reply's
		// header, and no per-op results, as the library reports it.
		return []zk.MultiResponse{}, trace.CodeError(rep.code)
	}
	out := make([]zk.MultiResponse, len(rep.multi))
	var first error
	for i, r := range rep.multi {
		if rep.code != trace.CodeOK {
			out[i].Error = trace.CodeError(r.code)
			if first == nil && out[i].Error != nil {
				first = out[i].Error
			}
			continue
		}
		switch r.op {
		case client.OpCreate:
			out[i].String = r.path
		case client.OpSetData:
			st := r.stat
			out[i].Stat = &st
		case client.OpCreateContainer:
			// A create with the container flag became a createContainer,
			// whose result (a path and a Stat) the library cannot read: it
			// returns what it read before it, and ErrAPIError, although
			// the multi was applied.
			return out[:i], zk.ErrAPIError
		}
	}
	return out, first
}

// clone copies data as it crosses the wire: nil stays nil (go-zk sends it
// as a null buffer, which the server stores and answers as null) and empty
// stays empty (a zero-length buffer, answered as one): a go-zk caller can
// tell the two apart.
func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append(make([]byte, 0, len(b)), b...)
}
