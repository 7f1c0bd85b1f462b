package models

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// OpKind is the kind of a recorded operation. Each recipe kind has its own
// vocabulary; the checkers of that kind read it.
type OpKind string

// The znode store's operations (store.go).
const (
	Create OpKind = "create"
	Delete OpKind = "delete"
	Set    OpKind = "set"
	Get    OpKind = "get"
	Exists OpKind = "exists"
)

// The operations of a lock, a shared lock and a leader election (a
// leadership is a lease, held like a lock). Path names the lock (its
// directory).
const (
	// Acquire: Lock, RLock (Shared) or Campaign returned. Token is the
	// fencing token granted. A call that returned an error is Failed,
	// with the error (the caller does not hold the lock, and changes
	// nothing); one still waiting when the run ended is Pending.
	Acquire OpKind = "acquire"
	// Use: the holder acted on the resource the lock protects, presenting
	// Token. Call and Return are the instant the resource took it; Result
	// is OK, or Rejected when a fenced resource refused a stale token.
	Use OpKind = "use"
	// Release: the holder let go: Call when it called Unlock (or Resign),
	// Return when that returned, Result what it returned (Failed, with the
	// error). Whatever it returned, the holder let go; the checks take its
	// holding to end anywhere from the last moment it relied on the lock
	// (its last accepted use, or its acquire's return when it used
	// nothing) to Return: a lease lost while its holder was paused ends
	// before the holder hears of it.
	Release OpKind = "release"
	// Revoke: a revoker asked the holder of the node in Data to release
	// the lock, and the request was settled (the holder consented, or the
	// revoker gave up or forced it); Failed, with the error, when Revoke
	// returned one (the node gone, the connection lost).
	Revoke OpKind = "revoke"
	// Withdraw: a waiter gave up waiting (its call's deadline passed) and
	// went, as a candidate withdraws from an election: Call and Return
	// span the wait, which neither held nor still waits. Its recipe took
	// its node away; a one-shot watch it had set on the node ahead of it
	// stays with the servers and fires once more (the herd check allows
	// each withdrawal that one wake).
	Withdraw OpKind = "withdraw"
)

// The operations of a queue and a priority queue. Path names the queue.
const (
	// Put: Data was put, with Priority. Unknown when the caller got an
	// error (the item may be in the queue or not).
	Put OpKind = "put"
	// Take: OutData was taken. Unknown when the caller got an error (an
	// item may have been removed); Failed when the take gave up and took
	// nothing (a consumer asking, that got no item).
	Take OpKind = "take"
)

// The operations of a barrier and a double barrier. Path names the
// barrier.
const (
	Raise OpKind = "raise" // Barrier.Set
	Lower OpKind = "lower" // Barrier.Remove
	Pass  OpKind = "pass"  // Barrier.Wait returned: the caller passed
	Enter OpKind = "enter" // DoubleBarrier.Enter
	Leave OpKind = "leave" // DoubleBarrier.Leave, Membership.Leave
	// Fail: the client's process stopped for good at Call (it crashed, or
	// the workload stopped it); what it held goes when its session
	// expires. Data names what failed (a member, a site), if anything.
	Fail OpKind = "fail"
)

// The operations of a two-phased commit. Path names the transaction.
const (
	// Propose: the coordinator started the transaction among the sites
	// in Data (comma-separated) and got the decision in OutData.
	Propose OpKind = "propose"
	// Vote: a site voted Data ("commit" or "abort") and learnt the
	// decision in OutData.
	Vote OpKind = "vote"
)

// The operations of group membership, configuration and the name service.
const (
	Join     OpKind = "join"     // Data: the member
	View     OpKind = "view"     // OutData: the members seen, sorted, comma-separated
	Write    OpKind = "write"    // a configuration: Data written, OutVersion its version
	Read     OpKind = "read"     // a configuration read: OutData, OutVersion
	Register OpKind = "register" // Data: name=value; NodeExists when the name was taken
	Resolve  OpKind = "resolve"  // Data: the name; OutData the value, NoNode when unknown
)

// The operations of a shared counter. Path names the counter; numbers are
// written in decimal.
const (
	// Add: Data, the delta, was added; OutData is the value the add made.
	// Unknown when the caller got an error (it may have been added or not).
	Add OpKind = "add"
	// Count: the counter's value was read, in OutData.
	Count OpKind = "count"
)

// opKinds are the operations a history holds.
var opKinds = map[OpKind]bool{Create: true, Delete: true, Set: true, Get: true, Exists: true, Acquire: true, Use: true,
	Release: true, Revoke: true, Withdraw: true, Put: true, Take: true, Raise: true, Lower: true, Pass: true, Enter: true, Leave: true,
	Fail: true, Propose: true, Vote: true, Join: true, View: true, Write: true, Read: true, Register: true, Resolve: true,
	Add: true, Count: true}

// Known reports whether k is one of the operations above.
func (k OpKind) Known() bool { return opKinds[k] }

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
	// Pending: the call had not returned when the run ended (its Return
	// is the end of the run).
	Pending Result = "pending"
	// Rejected: a fenced resource refused the use (a stale token).
	Rejected Result = "rejected"
)

// Known reports whether r is one of the results above.
func (r Result) Known() bool {
	switch r {
	case OK, NoNode, NodeExists, BadVersion, NotEmpty, Unknown, Failed, Pending, Rejected:
		return true
	}
	return false
}

// Operation is one client operation as the client saw it, with the times of
// its call and its return: nanoseconds since the run's start, in the
// client's clock (virtual time in the simulator).
type Operation struct {
	// Client is the client's number from 0; JSON names it "c1" for 0, as
	// timelines do (clientname.go).
	Client  int    `json:"client"`
	Kind    OpKind `json:"kind"`
	Path    string `json:"path"`
	Data    string `json:"data,omitempty"`    // create, set: the data written
	Version int32  `json:"version,omitempty"` // delete, set: the expected version
	Synced  bool   `json:"synced,omitempty"`  // a read preceded by sync(), its call time the sync's

	Token    int64 `json:"token,omitempty"`    // acquire: the fencing token granted; use: the one presented
	Shared   bool  `json:"shared,omitempty"`   // acquire: a read (shared) lock
	Priority int   `json:"priority,omitempty"` // put: the item's priority, lower first

	Result     Result `json:"result"`
	Error      string `json:"error,omitempty"`       // the error the call returned, when it returned one
	OutData    string `json:"out_data,omitempty"`    // get: the data read
	OutVersion int32  `json:"out_version,omitempty"` // get, exists, set: the node's version after

	Call   int64 `json:"call"`
	Return int64 `json:"return"`
	// Ended is, for an operation of unknown outcome (whose Return is the
	// end of time: it may take effect any time after its call), when the
	// call returned to its caller; 0 when not known (a history written
	// before it was kept).
	Ended int64 `json:"ended,omitempty"`
}

// Describe renders an operation as a person reads it, e.g.
// `acquire /app/lock → ok token 3` or `take /app/queue → ok "item-7"`.
func Describe(op Operation) string {
	var s string
	switch op.Kind {
	case Create:
		s = fmt.Sprintf("create %s %q", op.Path, op.Data)
	case Delete:
		s = fmt.Sprintf("delete %s v%d", op.Path, op.Version)
	case Set:
		s = fmt.Sprintf("set %s %q v%d", op.Path, op.Data, op.Version)
	case Get, Exists:
		s = fmt.Sprintf("%s %s", op.Kind, op.Path)
		if op.Synced {
			s = "sync+" + s
		}
	case Acquire:
		s = "acquire " + op.Path
		if op.Shared {
			s = "acquire (shared) " + op.Path
		}
	case Use:
		s = fmt.Sprintf("use %s with token %d", op.Path, op.Token)
	case Add:
		s = fmt.Sprintf("add %s %s", op.Path, signed(op.Data))
	case Put:
		s = fmt.Sprintf("put %s %q", op.Path, op.Data)
		if op.Priority != 0 {
			s += fmt.Sprintf(" priority %d", op.Priority)
		}
	default:
		s = fmt.Sprintf("%s %s", op.Kind, op.Path)
		if op.Data != "" {
			s += fmt.Sprintf(" %q", op.Data)
		}
	}
	if op.Kind == Take && op.Result == Failed {
		return s + " → nothing (gave up)"
	}
	s += " → " + string(op.Result)
	if op.Error != "" {
		s += ": " + op.Error
	}
	switch {
	case op.Result != OK:
	case op.Kind == Get || op.Kind == Read:
		s += fmt.Sprintf(" %q v%d", op.OutData, op.OutVersion)
	case op.Kind == Exists || op.Kind == Set || op.Kind == Write:
		s += fmt.Sprintf(" v%d", op.OutVersion)
	case op.Kind == Acquire:
		s += fmt.Sprintf(" token %d", op.Token)
	case op.Kind == Add || op.Kind == Count:
		s += " " + op.OutData
	case op.OutData != "":
		s += fmt.Sprintf(" %q", op.OutData)
	}
	return s
}

// Pending reports whether op had not returned when the run ended.
func (op Operation) Pending() bool { return op.Result == Pending }

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
//
// Every call is recorded as it happened, whatever it returned (resultOf):
// one that returned an error keeps it (Error) when the error is a failure
// rather than the store's answer (Failed: it did not happen, or a read
// that learnt nothing; Unknown: a write that may have been applied). The
// store models leave the failed ones out (they did nothing), as they once
// were from the history itself.
type Recorder struct {
	client.Conn
	Client int
	H      *History
	// SyncReads makes every Get and Exists call Sync on the path first, and
	// record the read as one operation starting at the sync.
	SyncReads bool
	// Origin is the instant the history's time 0 stands for (client.Epoch in
	// the simulator, the start of a live run): times are nanoseconds since.
	Origin time.Time
}

var _ client.Conn = (*Recorder)(nil)

func (r *Recorder) now() int64 { return int64(r.Conn.Now().Sub(r.Origin)) }

// add records op, called at call and returning now with err.
func (r *Recorder) add(op Operation, call int64, err error) {
	op.Client, op.Call, op.Return = r.Client, call, r.now()
	if op.Result == Unknown || op.Result == Failed {
		op.Error = err.Error()
	}
	if op.Result == Unknown {
		// The operation may take effect at any time after its call.
		op.Ended, op.Return = op.Return, int64(1<<63-1)
	}
	r.H.Add(op)
}

// Create implements client.Conn.
func (r *Recorder) Create(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL) (string, error) {
	call := r.now()
	p, err := r.Conn.Create(ctx, path, data, flags, acl)
	if flags == 0 {
		r.add(Operation{Kind: Create, Path: path, Data: string(data), Result: resultOf(err)}, call, err)
	}
	return p, err
}

// Create2 implements client.Conn, recording as Create does.
func (r *Recorder) Create2(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL) (string, *zk.Stat, error) {
	call := r.now()
	p, st, err := r.Conn.Create2(ctx, path, data, flags, acl)
	if flags == 0 {
		r.add(Operation{Kind: Create, Path: path, Data: string(data), Result: resultOf(err)}, call, err)
	}
	return p, st, err
}

// Delete implements client.Conn.
func (r *Recorder) Delete(ctx context.Context, path string, version int32) error {
	call := r.now()
	err := r.Conn.Delete(ctx, path, version)
	r.add(Operation{Kind: Delete, Path: path, Version: version, Result: resultOf(err)}, call, err)
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
	r.add(op, call, err)
	return st, err
}

// Get implements client.Conn.
func (r *Recorder) Get(ctx context.Context, path string) ([]byte, *zk.Stat, error) {
	call := r.now()
	if err := r.sync(ctx, path); err != nil {
		r.add(Operation{Kind: Get, Path: path, Synced: true, Result: Failed}, call, err)
		return nil, nil, err
	}
	data, st, err := r.Conn.Get(ctx, path)
	op := Operation{Kind: Get, Path: path, Synced: r.SyncReads, Result: readResult(err)}
	if err == nil {
		op.OutData, op.OutVersion = string(data), st.Version
	}
	r.add(op, call, err)
	return data, st, err
}

// Exists implements client.Conn.
func (r *Recorder) Exists(ctx context.Context, path string) (bool, *zk.Stat, error) {
	call := r.now()
	if err := r.sync(ctx, path); err != nil {
		r.add(Operation{Kind: Exists, Path: path, Synced: true, Result: Failed}, call, err)
		return false, nil, err
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
	r.add(op, call, err)
	return ok, st, err
}

// sync is the Sync a read begins with when SyncReads says so: a read whose
// sync failed is a failed read (it read nothing).
func (r *Recorder) sync(ctx context.Context, path string) error {
	if !r.SyncReads {
		return nil
	}
	_, err := r.Conn.Sync(ctx, path)
	return err
}

// readResult is resultOf for a read: a read whose answer never came tells
// nothing, so it failed.
func readResult(err error) Result {
	if res := resultOf(err); res != Unknown {
		return res
	}
	return Failed
}

// Grouping and ordering a history's operations, for the checkers: they
// judge objects one by one, in an order that never depends on map
// iteration or on the order a history came in.

// stopTimes maps each client that has a Fail to its first Fail's Call: its
// process stopped for good then.
func stopTimes(ops []Operation) map[int]int64 {
	stops := map[int]int64{}
	for _, op := range Of(ops, Fail) {
		if t, ok := stops[op.Client]; !ok || op.Call < t {
			stops[op.Client] = op.Call
		}
	}
	return stops
}

// stoppedBy says whether client had stopped at or before t.
func stoppedBy(stops map[int]int64, client int, t int64) bool {
	s, ok := stops[client]
	return ok && s <= t
}

// opsByPath groups the operations of the given kinds by Path, each group
// sorted (sortOps), and returns the paths sorted: checkers judge objects
// one by one, in an order that does not depend on map iteration.
func opsByPath(ops []Operation, kinds ...OpKind) ([]string, map[string][]Operation) {
	byPath := map[string][]Operation{}
	for _, op := range Of(ops, kinds...) {
		byPath[op.Path] = append(byPath[op.Path], op)
	}
	paths := make([]string, 0, len(byPath))
	for p, ops := range byPath {
		paths = append(paths, p)
		sortOps(ops)
	}
	slices.Sort(paths)
	return paths, byPath
}

// indicesByPath is opsByPath by index: the indices of the operations of
// ops of the given kinds, grouped by Path, each group sorted as sortOps
// sorts (and by index between equals; see sortIndices), and the paths
// sorted. Unless sorted, each group is in the order of ops.
func indicesByPath(ops []Operation, sorted bool, kinds ...OpKind) ([]string, map[string][]int32) {
	byPath := map[string][]int32{}
	var cur []int32 // the indices of curPath (ops on a path often come together)
	curPath, have := "", false
	for i := range ops {
		op := &ops[i]
		if !slices.Contains(kinds, op.Kind) {
			continue
		}
		if !have || op.Path != curPath {
			if have {
				byPath[curPath] = cur
			}
			curPath, cur, have = op.Path, byPath[op.Path], true
		}
		cur = append(cur, int32(i))
	}
	if have {
		byPath[curPath] = cur
	}
	paths := make([]string, 0, len(byPath))
	for p, idx := range byPath {
		paths = append(paths, p)
		if sorted {
			sortIndices(ops, idx)
		}
	}
	slices.Sort(paths)
	return paths, byPath
}

// sortIndices sorts idx, indices of ops, as sortOps sorts the operations
// (and by index between equals).
func sortIndices(ops []Operation, idx []int32) {
	// By the times first, from a copy of them: comparing operations in
	// place costs two cache misses each.
	keys := make([]opKey, len(idx))
	for k, i := range idx {
		keys[k] = opKey{ops[i].Call, ops[i].Return, i}
	}
	slices.SortFunc(keys, func(a, b opKey) int {
		switch {
		case a.call != b.call:
			return cmp.Compare(a.call, b.call)
		case a.ret != b.ret:
			return cmp.Compare(a.ret, b.ret)
		}
		if c := compareOps(&ops[a.i], &ops[b.i]); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	for k := range keys {
		idx[k] = keys[k].i
	}
}

// opKey is an operation's times and index, to sort by.
type opKey struct {
	call, ret int64
	i         int32
}

// sortOps orders operations by call, then return, client, kind and data,
// so that output is the same whatever order the history came in. Two
// operations of one kind, with the same data, by one client at the same
// instant (a recipe answering twice from what it knows, with no request)
// keep the order they came in, the client's own, not their results': its
// last view of a group is the one it returned last.
func sortOps(ops []Operation) {
	slices.SortStableFunc(ops, func(a, b Operation) int { return compareOps(&a, &b) })
}

// compareOps is sortOps' order.
func compareOps(a, b *Operation) int {
	switch {
	case a.Call != b.Call:
		return cmp.Compare(a.Call, b.Call)
	case a.Return != b.Return:
		return cmp.Compare(a.Return, b.Return)
	case a.Client != b.Client:
		return cmp.Compare(a.Client, b.Client)
	}
	return cmp.Or(strings.Compare(string(a.Kind), string(b.Kind)), strings.Compare(a.Data, b.Data))
}

// clientsOf is the distinct clients of ops, sorted.
func clientsOf(ops []Operation) []int {
	var out []int
	for _, op := range ops {
		if !slices.Contains(out, op.Client) {
			out = append(out, op.Client)
		}
	}
	slices.Sort(out)
	return out
}

// clientNames renders clients as a person reads them: "c1, c3".
func clientNames(clients []int) string {
	names := make([]string, len(clients))
	for i, c := range clients {
		names[i] = fmt.Sprintf("c%d", c+1)
	}
	return strings.Join(names, ", ")
}

// okOps keeps the operations whose Result is OK.
func okOps(ops []Operation) []Operation {
	var out []Operation
	for _, op := range ops {
		if op.Result == OK {
			out = append(out, op)
		}
	}
	return out
}

// objectsOf is the Paths of the operations of the given kinds, sorted.
func objectsOf(ops []Operation, kinds ...OpKind) []string {
	set := map[string]bool{}
	last := ""
	for i := range ops {
		if op := &ops[i]; slices.Contains(kinds, op.Kind) && (len(set) == 0 || op.Path != last) {
			set[op.Path], last = true, op.Path
		}
	}
	return sortedKeys(set)
}

// sortedKeys is m's keys in order.
func sortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
