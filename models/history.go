package models

import (
	"context"
	"errors"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// OpKind is the kind of a recorded store operation.
type OpKind string

// The store operations a history records.
const (
	Create OpKind = "create"
	Delete OpKind = "delete"
	Set    OpKind = "set"
	Get    OpKind = "get"
	Exists OpKind = "exists"
)

// Result is how an operation ended, in ZooKeeper's terms.
type Result string

// The results. Unknown is an operation whose outcome the client cannot know
// (its connection was lost while it was in flight): the server may or may
// not have applied it.
const (
	OK         Result = "ok"
	NoNode     Result = "no-node"
	NodeExists Result = "node-exists"
	BadVersion Result = "bad-version"
	NotEmpty   Result = "not-empty"
	Unknown    Result = "unknown"
	Failed     Result = "failed" // an error that says the operation did not happen
)

// Operation is one client operation as the client saw it, with the times of
// its call and its return in the client's clock (virtual nanoseconds in the
// simulator).
type Operation struct {
	Client  int    `json:"client"`
	Kind    OpKind `json:"kind"`
	Path    string `json:"path"`
	Data    string `json:"data,omitempty"`    // create, set: the data written
	Version int32  `json:"version,omitempty"` // delete, set: the expected version
	Synced  bool   `json:"synced,omitempty"`  // a read preceded by sync(), its call time the sync's

	Result     Result `json:"result"`
	OutData    string `json:"out_data,omitempty"`    // get: the data read
	OutVersion int32  `json:"out_version,omitempty"` // get, exists, set: the node's version after

	Call   int64 `json:"call"`
	Return int64 `json:"return"`
}

// History is the operations of a run, in the order they returned. It is
// safe for concurrent use, as live clients run in parallel.
type History struct {
	mu  sync.Mutex
	ops []Operation
}

// Add appends op.
func (h *History) Add(op Operation) {
	h.mu.Lock()
	h.ops = append(h.ops, op)
	h.mu.Unlock()
}

// Operations returns a copy of the recorded operations.
func (h *History) Operations() []Operation {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Operation(nil), h.ops...)
}

// resultOf classifies an error.
func resultOf(err error) Result {
	switch {
	case err == nil:
		return OK
	case errors.Is(err, zk.ErrNoNode):
		return NoNode
	case errors.Is(err, zk.ErrNodeExists):
		return NodeExists
	case errors.Is(err, zk.ErrBadVersion):
		return BadVersion
	case errors.Is(err, zk.ErrNotEmpty):
		return NotEmpty
	case errors.Is(err, zk.ErrConnectionClosed), errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, context.Canceled):
		// Sent, perhaps applied, never answered.
		return Unknown
	}
	// ErrNoServer (never sent), ErrSessionExpired (refused), ErrInvalidPath ...
	return Failed
}

// Recorder is a client.Conn that records its store operations (Create,
// Delete, Set, Get, Exists) into a History, and passes everything else
// through. Create records only plain persistent creates: sequential names
// and ephemeral nodes change the store in ways the per-path model does not
// follow, so the store workload does not use them.
type Recorder struct {
	client.Conn
	Client int
	H      *History
	// SyncReads makes every Get and Exists call Sync on the path first, and
	// record the read as one operation starting at the sync.
	SyncReads bool
}

var _ client.Conn = (*Recorder)(nil)

func (r *Recorder) now() int64 { return r.Conn.Now().UnixNano() }

func (r *Recorder) add(op Operation, call int64) {
	op.Client, op.Call, op.Return = r.Client, call, r.now()
	if op.Result == Unknown {
		// The operation may take effect at any time after its call.
		op.Return = int64(1<<63 - 1)
	}
	if op.Result != Failed {
		r.H.Add(op)
	}
}

// Create implements client.Conn.
func (r *Recorder) Create(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL) (string, error) {
	call := r.now()
	p, err := r.Conn.Create(ctx, path, data, flags, acl)
	if flags == 0 {
		r.add(Operation{Kind: Create, Path: path, Data: string(data), Result: resultOf(err)}, call)
	}
	return p, err
}

// Delete implements client.Conn.
func (r *Recorder) Delete(ctx context.Context, path string, version int32) error {
	call := r.now()
	err := r.Conn.Delete(ctx, path, version)
	r.add(Operation{Kind: Delete, Path: path, Version: version, Result: resultOf(err)}, call)
	return err
}

// Set implements client.Conn.
func (r *Recorder) Set(ctx context.Context, path string, data []byte, version int32) (*zk.Stat, error) {
	call := r.now()
	st, err := r.Conn.Set(ctx, path, data, version)
	op := Operation{Kind: Set, Path: path, Data: string(data), Version: version, Result: resultOf(err)}
	if err == nil {
		op.OutVersion = st.Version
	}
	r.add(op, call)
	return st, err
}

// Get implements client.Conn.
func (r *Recorder) Get(ctx context.Context, path string) ([]byte, *zk.Stat, error) {
	call := r.now()
	if r.SyncReads {
		if _, err := r.Conn.Sync(ctx, path); err != nil {
			return nil, nil, err
		}
	}
	data, st, err := r.Conn.Get(ctx, path)
	op := Operation{Kind: Get, Path: path, Synced: r.SyncReads, Result: readResult(err)}
	if err == nil {
		op.OutData, op.OutVersion = string(data), st.Version
	}
	r.add(op, call)
	return data, st, err
}

// Exists implements client.Conn.
func (r *Recorder) Exists(ctx context.Context, path string) (bool, *zk.Stat, error) {
	call := r.now()
	if r.SyncReads {
		if _, err := r.Conn.Sync(ctx, path); err != nil {
			return false, nil, err
		}
	}
	ok, st, err := r.Conn.Exists(ctx, path)
	op := Operation{Kind: Exists, Path: path, Synced: r.SyncReads, Result: readResult(err)}
	if err == nil {
		if ok {
			op.OutVersion = st.Version
		} else {
			op.Result = NoNode
		}
	}
	r.add(op, call)
	return ok, st, err
}

// readResult is resultOf for a read: a read whose answer never came tells
// nothing, so it is not recorded.
func readResult(err error) Result {
	if res := resultOf(err); res != Unknown {
		return res
	}
	return Failed
}
