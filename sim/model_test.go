package sim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"pgregory.net/rapid"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/trace"
)

// TestTreeMatchesModel runs random workloads of 2–4 clients over a few paths
// through the simulator and replays every operation, in the order the server
// answered them (read off the trace), against a small reference model of
// ZooKeeper's data tree written from the server's rules. Every result, error,
// data, sorted child list and Stat must agree, and at the end the server's
// tree must equal the model.
func TestTreeMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		seed := rapid.Uint64().Draw(t, "seed")
		n := rapid.IntRange(2, 4).Draw(t, "clients")
		work := make([][]mtOp, n)
		for i := range work {
			work[i] = rapid.SliceOfN(mtOpGen(), 1, 15).Draw(t, fmt.Sprintf("c%d", i+1))
		}
		mtCheck(t, seed, work)
	})
}

// ---- the workload ----------------------------------------------------------

type mtKind int

const (
	mtCreate mtKind = iota
	mtDelete
	mtSet
	mtGet
	mtExists
	mtChildren
	mtMulti
	mtCheckOp // only inside a multi
	mtSleep   // no request: shifts the interleaving
)

var mtKindNames = [...]string{"create", "delete", "set", "get", "exists", "children", "multi", "check", "sleep"}

// mtOp is one operation a client runs.
type mtOp struct {
	kind    mtKind
	path    string
	data    []byte
	flags   int32
	version int32
	sleep   time.Duration
	subs    []mtOp
}

func mtFlagName(f int32) string {
	switch f {
	case zk.FlagEphemeral:
		return "eph"
	case zk.FlagSequence:
		return "seq"
	case zk.FlagEphemeral | zk.FlagSequence:
		return "eph|seq"
	}
	return "persistent"
}

// GoString renders the op as rapid prints its draws.
func (o mtOp) GoString() string {
	switch o.kind {
	case mtCreate:
		return fmt.Sprintf("create(%s, %q, %s)", o.path, o.data, mtFlagName(o.flags))
	case mtDelete, mtCheckOp:
		return fmt.Sprintf("%s(%s, v%d)", mtKindNames[o.kind], o.path, o.version)
	case mtSet:
		return fmt.Sprintf("set(%s, %q, v%d)", o.path, o.data, o.version)
	case mtMulti:
		subs := make([]string, len(o.subs))
		for i, s := range o.subs {
			subs[i] = s.GoString()
		}
		return "multi(" + strings.Join(subs, ", ") + ")"
	case mtSleep:
		return fmt.Sprintf("sleep(%s)", o.sleep)
	}
	return fmt.Sprintf("%s(%s)", mtKindNames[o.kind], o.path)
}

func (o mtOp) String() string { return o.GoString() }

// The pools repeat entries to weight them: top-level nodes are created
// often enough that their children, and the sequential names under them,
// are found.
var (
	// Plain creates; "/a/s-" is then a node named "s-".
	mtPlainPaths = []string{"/a", "/a", "/a", "/d", "/d", "/a/b", "/a/b", "/a/c", "/a/b/x", "/d/e", "/a/s-"}
	// Sequential prefixes; "/a/" gives /a/0000000007.
	mtSeqPaths = []string{"/a/s-", "/a/s-", "/d/s-", "/d/s-", "/a/", "/a/b/s-"}
	// What delete, set, check and the reads aim at.
	mtNodePaths = []string{"/a", "/a", "/a", "/a/b", "/a/b", "/a/c", "/d", "/d", "/a/b/x", "/d/e",
		"/", "/a/s-", "/a/s-0000000000", "/a/s-0000000001", "/a/s-0000000002", "/d/s-0000000000",
		"/d/s-0000000001", "/a/0000000000", "/a/0000000001", "/a/b/s-0000000000"}
	mtFlags = []int32{0, 0, 0, zk.FlagEphemeral, zk.FlagSequence, zk.FlagEphemeral | zk.FlagSequence}
	// A multi's ops aim at fewer paths, so that more multis succeed.
	mtMultiPaths = []string{"/a", "/a/b", "/d", "/a/c", "/d/e"}
	mtVersions   = []int32{-1, -1, 0, 0, 1, 2}
)

func mtCreateGen(plain []string) *rapid.Generator[mtOp] {
	return rapid.Custom(func(t *rapid.T) mtOp {
		flags := rapid.SampledFrom(mtFlags).Draw(t, "flags")
		pool := plain
		if flags&zk.FlagSequence != 0 {
			pool = mtSeqPaths
		}
		return mtOp{kind: mtCreate, flags: flags,
			path: rapid.SampledFrom(pool).Draw(t, "path"),
			data: rapid.SliceOfN(rapid.ByteRange('a', 'c'), 0, 3).Draw(t, "data")}
	})
}

func mtVersioned(kind mtKind, paths []string) *rapid.Generator[mtOp] {
	return rapid.Custom(func(t *rapid.T) mtOp {
		o := mtOp{kind: kind,
			path:    rapid.SampledFrom(paths).Draw(t, "path"),
			version: rapid.SampledFrom(mtVersions).Draw(t, "version")}
		if kind == mtSet {
			o.data = rapid.SliceOfN(rapid.ByteRange('a', 'c'), 0, 3).Draw(t, "data")
		}
		return o
	})
}

func mtRead(kind mtKind) *rapid.Generator[mtOp] {
	return rapid.Custom(func(t *rapid.T) mtOp {
		return mtOp{kind: kind, path: rapid.SampledFrom(mtNodePaths).Draw(t, "path")}
	})
}

func mtOpGen() *rapid.Generator[mtOp] {
	mp := mtMultiPaths
	sub := rapid.OneOf(mtCreateGen(mp), mtCreateGen(mp), mtVersioned(mtDelete, mp),
		mtVersioned(mtSet, mp), mtVersioned(mtCheckOp, mp))
	multi := rapid.Custom(func(t *rapid.T) mtOp {
		return mtOp{kind: mtMulti, subs: rapid.SliceOfN(sub, 2, 3).Draw(t, "ops")}
	})
	sleep := rapid.Custom(func(t *rapid.T) mtOp {
		us := rapid.SampledFrom([]int{0, 300, 1000, 3000}).Draw(t, "µs")
		return mtOp{kind: mtSleep, sleep: time.Duration(us) * time.Microsecond}
	})
	return rapid.OneOf(
		mtCreateGen(mtPlainPaths), mtCreateGen(mtPlainPaths), mtCreateGen(mtPlainPaths),
		mtVersioned(mtDelete, mtNodePaths), mtVersioned(mtDelete, mtNodePaths),
		mtVersioned(mtSet, mtNodePaths),
		mtRead(mtGet), mtRead(mtExists), mtRead(mtChildren),
		multi, multi,
		sleep,
	)
}

// ---- what a client observed ------------------------------------------------

// mtResult is one call's outcome as the client saw it (or, from the model,
// as it should have been).
type mtResult struct {
	seq      int // global order in which results arrived (for the log)
	path     string
	data     []byte
	stat     *zk.Stat
	exists   bool
	children []string
	multi    []zk.MultiResponse
	err      error
}

var mtACL = zk.WorldACL(zk.PermAll)

func mtDo(ctx context.Context, c client.Conn, o mtOp) mtResult {
	var r mtResult
	copyStat := func(st *zk.Stat) *zk.Stat {
		if st == nil {
			return nil
		}
		s := *st
		return &s
	}
	switch o.kind {
	case mtCreate:
		r.path, r.err = c.Create(ctx, o.path, o.data, o.flags, mtACL)
	case mtDelete:
		r.err = c.Delete(ctx, o.path, o.version)
	case mtSet:
		var st *zk.Stat
		st, r.err = c.Set(ctx, o.path, o.data, o.version)
		r.stat = copyStat(st)
	case mtGet:
		var st *zk.Stat
		r.data, st, r.err = c.Get(ctx, o.path)
		r.stat = copyStat(st)
	case mtExists:
		var st *zk.Stat
		r.exists, st, r.err = c.Exists(ctx, o.path)
		r.stat = copyStat(st)
	case mtChildren:
		var st *zk.Stat
		var ch []string
		ch, st, r.err = c.Children(ctx, o.path)
		r.children = slices.Sorted(slices.Values(ch))
		r.stat = copyStat(st)
	case mtMulti:
		ops := make([]any, len(o.subs))
		for i, s := range o.subs {
			switch s.kind {
			case mtCreate:
				ops[i] = &zk.CreateRequest{Path: s.path, Data: s.data, Acl: mtACL, Flags: s.flags}
			case mtDelete:
				ops[i] = &zk.DeleteRequest{Path: s.path, Version: s.version}
			case mtSet:
				ops[i] = &zk.SetDataRequest{Path: s.path, Data: s.data, Version: s.version}
			case mtCheckOp:
				ops[i] = &zk.CheckVersionRequest{Path: s.path, Version: s.version}
			}
		}
		r.multi, r.err = c.Multi(ctx, ops...)
		for i := range r.multi {
			r.multi[i].Stat = copyStat(r.multi[i].Stat)
		}
	}
	return r
}

func (r mtResult) String() string {
	var b strings.Builder
	if r.err != nil {
		fmt.Fprintf(&b, "err=%v", r.err)
	} else {
		b.WriteString("ok")
	}
	if r.path != "" {
		fmt.Fprintf(&b, " path=%s", r.path)
	}
	if r.data != nil {
		fmt.Fprintf(&b, " data=%q", r.data)
	}
	if r.exists {
		b.WriteString(" exists")
	}
	if r.children != nil {
		fmt.Fprintf(&b, " children=%v", r.children)
	}
	if r.stat != nil && *r.stat != (zk.Stat{}) {
		fmt.Fprintf(&b, " stat=%s", mtStatString(*r.stat))
	}
	for i, m := range r.multi {
		fmt.Fprintf(&b, " [%d: err=%v", i, m.Error)
		if m.String != "" {
			fmt.Fprintf(&b, " path=%s", m.String)
		}
		if m.Stat != nil {
			fmt.Fprintf(&b, " stat=%s", mtStatString(*m.Stat))
		}
		b.WriteString("]")
	}
	return b.String()
}

func mtStatString(s zk.Stat) string {
	return fmt.Sprintf("{czxid=%#x mzxid=%#x pzxid=%#x ctime=%d mtime=%d v=%d cv=%d av=%d owner=%#x len=%d kids=%d}",
		s.Czxid, s.Mzxid, s.Pzxid, s.Ctime, s.Mtime, s.Version, s.Cversion, s.Aversion,
		s.EphemeralOwner, s.DataLength, s.NumChildren)
}

// ---- the reference model ---------------------------------------------------

// mtNode is a znode of the reference model.
type mtNode struct {
	data     []byte
	version  int32
	creates  int32 // creates ever done under this node: the sequence counter
	owner    int64 // session id of an ephemeral's owner, 0 otherwise
	children map[string]bool
	czxid    int64
	mzxid    int64
	pzxid    int64
	ctime    int64
	mtime    int64
}

// mtTree is the reference model: path → node.
type mtTree map[string]*mtNode

// errMtRuntimeInconsistency stands for the -2 a failed multi reports for the
// ops after the failing one; go-zookeeper/zk has no value for it and reports
// "unknown error: -2".
var errMtRuntimeInconsistency = errors.New("unknown error: -2")

// mtNewTree is a fresh server's tree: the root and ZooKeeper's own nodes,
// all with zero stats.
func mtNewTree() mtTree {
	t := mtTree{}
	for _, p := range []string{"/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config"} {
		t[p] = &mtNode{children: map[string]bool{}}
		if p != "/" {
			parent, name := mtSplit(p)
			t[parent].children[name] = true
		}
	}
	return t
}

func (t mtTree) clone() mtTree {
	c := make(mtTree, len(t))
	for p, n := range t {
		m := *n
		m.children = maps.Clone(n.children)
		c[p] = &m
	}
	return c
}

// mtSplit splits at the last '/': "/a" → "/", "a"; "/a/" → "/a", "".
func mtSplit(p string) (string, string) {
	i := strings.LastIndexByte(p, '/')
	if i == 0 {
		return "/", p[1:]
	}
	return p[:i], p[i+1:]
}

func (t mtTree) stat(p string) zk.Stat {
	n := t[p]
	kids := int32(len(n.children))
	return zk.Stat{
		Czxid: n.czxid, Mzxid: n.mzxid, Pzxid: n.pzxid, Ctime: n.ctime, Mtime: n.mtime,
		Version: n.version, Cversion: 2*n.creates - kids, Aversion: configAversion(p), EphemeralOwner: n.owner,
		DataLength: int32(len(n.data)), NumChildren: kids,
	}
}

// configAversion is a node's ACL version, which no op of this test
// changes: -1 for /zookeeper/config (the server set its read-only ACL
// with version -1), 0 for every other node.
func configAversion(p string) int32 {
	if p == "/zookeeper/config" {
		return -1
	}
	return 0
}

// mtValid is the server's path rule for the paths this test can produce:
// no trailing '/' and no empty component.
func mtValid(p string) bool {
	return p == "/" || (!strings.HasSuffix(p, "/") && !strings.Contains(p, "//"))
}

func (t mtTree) create(p string, data []byte, flags int32, sess, zxid, ms int64) (string, error) {
	parentPath, _ := mtSplit(p)
	parent := t[parentPath]
	if parent == nil {
		return "", zk.ErrNoNode
	}
	if flags&zk.FlagSequence != 0 {
		p = fmt.Sprintf("%s%010d", p, parent.creates)
	}
	if !mtValid(p) {
		return "", zk.ErrBadArguments
	}
	if t[p] != nil {
		return "", zk.ErrNodeExists
	}
	if parent.owner != 0 {
		return "", zk.ErrNoChildrenForEphemerals
	}
	var owner int64
	if flags&zk.FlagEphemeral != 0 {
		owner = sess
	}
	t[p] = &mtNode{data: slices.Clone(data), owner: owner, children: map[string]bool{},
		czxid: zxid, mzxid: zxid, pzxid: zxid, ctime: ms, mtime: ms}
	_, name := mtSplit(p)
	parent.children[name] = true
	parent.creates++
	parent.pzxid = zxid
	return p, nil
}

func (t mtTree) remove(p string, zxid int64) {
	parentPath, name := mtSplit(p)
	parent := t[parentPath]
	delete(parent.children, name)
	parent.pzxid = max(parent.pzxid, zxid)
	delete(t, p)
}

func (t mtTree) delete(p string, version int32, zxid int64) error {
	switch p {
	case "/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config":
		return zk.ErrBadArguments
	}
	parentPath, _ := mtSplit(p)
	if t[parentPath] == nil {
		return zk.ErrNoNode
	}
	n := t[p]
	if n == nil {
		return zk.ErrNoNode
	}
	if version != -1 && version != n.version {
		return zk.ErrBadVersion
	}
	if len(n.children) > 0 {
		return zk.ErrNotEmpty
	}
	t.remove(p, zxid)
	return nil
}

func (t mtTree) set(p string, data []byte, version int32, zxid, ms int64) (*zk.Stat, error) {
	n := t[p]
	if n == nil {
		return nil, zk.ErrNoNode
	}
	if p == "/zookeeper/config" {
		return nil, zk.ErrNoAuth
	}
	if version != -1 && version != n.version {
		return nil, zk.ErrBadVersion
	}
	n.data = slices.Clone(data)
	n.version++
	n.mzxid = zxid
	n.mtime = ms
	st := t.stat(p)
	return &st, nil
}

func (t mtTree) check(p string, version int32) error {
	n := t[p]
	if n == nil {
		return zk.ErrNoNode
	}
	if version != -1 && version != n.version {
		return zk.ErrBadVersion
	}
	return nil
}

// multi applies subs all or nothing, each seeing the earlier ones.
func (t mtTree) multi(subs []mtOp, sess, zxid, ms int64) mtResult {
	work := t.clone()
	res := make([]zk.MultiResponse, len(subs))
	failed := -1
	for i, s := range subs {
		var err error
		switch s.kind {
		case mtCreate:
			res[i].String, err = work.create(s.path, s.data, s.flags, sess, zxid, ms)
		case mtDelete:
			err = work.delete(s.path, s.version, zxid)
		case mtSet:
			res[i].Stat, err = work.set(s.path, s.data, s.version, zxid, ms)
		case mtCheckOp:
			err = work.check(s.path, s.version)
		}
		if err != nil {
			failed = i
			res[i].Error = err
			break
		}
	}
	if failed < 0 {
		clear(t)
		maps.Copy(t, work)
		return mtResult{multi: res}
	}
	for i := range res {
		res[i].String, res[i].Stat = "", nil
		if i > failed {
			res[i].Error = errMtRuntimeInconsistency
		}
	}
	return mtResult{multi: res, err: res[failed].Error}
}

// closeSession deletes a session's ephemerals, all with the close's zxid.
func (t mtTree) closeSession(sess, zxid int64) {
	var mine []string
	for p, n := range t {
		if n.owner == sess {
			mine = append(mine, p)
		}
	}
	slices.Sort(mine)
	for _, p := range mine {
		t.remove(p, zxid)
	}
}

// apply runs one op against the model and returns what the client should see.
func (t mtTree) apply(o mtOp, sess, zxid, ms int64) mtResult {
	var r mtResult
	switch o.kind {
	case mtCreate:
		r.path, r.err = t.create(o.path, o.data, o.flags, sess, zxid, ms)
	case mtDelete:
		r.err = t.delete(o.path, o.version, zxid)
	case mtSet:
		r.stat, r.err = t.set(o.path, o.data, o.version, zxid, ms)
	case mtGet:
		if t[o.path] == nil {
			r.err = zk.ErrNoNode
			break
		}
		st := t.stat(o.path)
		r.data, r.stat = slices.Clone(t[o.path].data), &st
	case mtExists:
		st := zk.Stat{}
		if t[o.path] != nil {
			r.exists, st = true, t.stat(o.path)
		}
		r.stat = &st
	case mtChildren:
		if t[o.path] == nil {
			r.err = zk.ErrNoNode
			break
		}
		st := t.stat(o.path)
		r.children = slices.Sorted(maps.Keys(t[o.path].children))
		r.stat = &st
	case mtMulti:
		r = t.multi(o.subs, sess, zxid, ms)
	}
	return r
}

// ---- comparing ---------------------------------------------------------------

func mtErrMatch(got, want error) bool {
	switch {
	case want == nil:
		return got == nil
	case want == errMtRuntimeInconsistency:
		return got != nil && got.Error() == want.Error()
	default:
		return errors.Is(got, want)
	}
}

func mtStatMatch(got, want *zk.Stat) bool {
	if got == nil || want == nil {
		return got == nil && want == nil
	}
	return *got == *want
}

// mtDiff says how got differs from want, "" if it does not.
func mtDiff(o mtOp, got, want mtResult) string {
	var d []string
	if !mtErrMatch(got.err, want.err) {
		d = append(d, fmt.Sprintf("error %v, want %v", got.err, want.err))
	}
	switch o.kind {
	case mtCreate:
		if got.path != want.path {
			d = append(d, fmt.Sprintf("path %q, want %q", got.path, want.path))
		}
	case mtSet, mtExists:
		if want.err == nil && !mtStatMatch(got.stat, want.stat) {
			d = append(d, "stat differs")
		}
		if got.exists != want.exists {
			d = append(d, fmt.Sprintf("exists %v, want %v", got.exists, want.exists))
		}
	case mtGet:
		if !bytes.Equal(got.data, want.data) {
			d = append(d, fmt.Sprintf("data %q, want %q", got.data, want.data))
		}
		if want.err == nil && !mtStatMatch(got.stat, want.stat) {
			d = append(d, "stat differs")
		}
	case mtChildren:
		if !slices.Equal(got.children, want.children) {
			d = append(d, fmt.Sprintf("children %v, want %v", got.children, want.children))
		}
		if want.err == nil && !mtStatMatch(got.stat, want.stat) {
			d = append(d, "stat differs")
		}
	case mtMulti:
		if len(got.multi) != len(want.multi) {
			d = append(d, fmt.Sprintf("%d results, want %d", len(got.multi), len(want.multi)))
			break
		}
		for i := range want.multi {
			g, w := got.multi[i], want.multi[i]
			if !mtErrMatch(g.Error, w.Error) {
				d = append(d, fmt.Sprintf("op %d: error %v, want %v", i, g.Error, w.Error))
			}
			if g.String != w.String {
				d = append(d, fmt.Sprintf("op %d: path %q, want %q", i, g.String, w.String))
			}
			if !mtStatMatch(g.Stat, w.Stat) {
				d = append(d, fmt.Sprintf("op %d: stat differs", i))
			}
		}
	}
	return strings.Join(d, "; ")
}

// mtOpCode is the request type the server's reply record carries for o.
func mtOpCode(o mtOp) client.Op {
	return [...]client.Op{mtCreate: client.OpCreate, mtDelete: client.OpDelete, mtSet: client.OpSetData, mtGet: client.OpGetData,
		mtExists: client.OpExists, mtChildren: client.OpGetChildren, mtMulti: client.OpMulti}[o.kind]
}

// ---- the check ---------------------------------------------------------------

// mtCheck runs work (one op list per client) in a world seeded with seed and
// replays it against the model. Clients interleave, and a read can be
// answered before another client's earlier-sent write is applied, so the
// order of replay is the server's own: the trace's reply records (one per
// request, written when the server applies or answers it) and its
// closeSession records, in the order they were written. Each client's
// replies come in its own request order, which maps them to its results.
func mtCheck(t *rapid.T, seed uint64, work [][]mtOp) {
	// One server: the order of its answers is the order of their effects.
	w, err := New(Config{Seed: seed, KeepTrace: true, Servers: 1})
	if err != nil {
		t.Fatal(err)
	}
	results := make([][]mtResult, len(work))
	seq := 0 // the simulator runs one client at a time: no lock needed
	for i, ops := range work {
		w.Spawn("", func(ctx context.Context, c client.Conn) error {
			for _, o := range ops {
				if o.kind == mtSleep {
					if err := c.Sleep(ctx, o.sleep); err != nil {
						return err
					}
					continue
				}
				r := mtDo(ctx, c, o)
				seq++
				r.seq = seq
				results[i] = append(results[i], r)
			}
			return nil // expected ZooKeeper errors are recorded, not fatal
		})
	}
	res := w.Run()
	dumpTrace := func() string {
		var b strings.Builder
		w.Trace().WriteTo(&b)
		return b.String()
	}
	if res.Err != nil {
		t.Fatalf("run failed: %v\ntrace:\n%s", res.Err, dumpTrace())
	}

	// The requests each client sent, in its order (sleeps send nothing).
	sent := make([][]mtOp, len(work))
	for i, ops := range work {
		for _, o := range ops {
			if o.kind != mtSleep {
				sent[i] = append(sent[i], o)
			}
		}
		if len(results[i]) != len(sent[i]) {
			t.Fatalf("c%d recorded %d results for %d requests", i+1, len(results[i]), len(sent[i]))
		}
	}

	// Replay in the server's order: each reply record is one request
	// answered (its effect applied at that instant); each closeSession
	// apply deletes that session's ephemerals.
	model := mtNewTree()
	sessions := map[trace.Actor]int64{}
	next := make([]int, len(work))
	var log []string
	fail := func(format string, args ...any) {
		t.Fatalf("%s\nreplay in server order:\n  %s", fmt.Sprintf(format, args...), strings.Join(log, "\n  "))
	}
	proposed := map[int64]Time{} // zxid → the leader's clock when it ordered it
	for _, rec := range w.Trace().Records() {
		switch {
		case rec.Kind == trace.KPropose:
			proposed[rec.Zxid] = rec.At
		case rec.Kind == trace.KState && rec.Sess != 0:
			sessions[rec.From] = rec.Sess
		case rec.Kind == trace.KApply && rec.Op == client.OpCloseSession:
			model.closeSession(rec.Sess, rec.Zxid)
			log = append(log, fmt.Sprintf("%s close session %#x zxid=%#x", rec.At, rec.Sess, rec.Zxid))
		case rec.Kind == trace.KReply:
			switch rec.Op {
			case client.OpPing, client.OpSetWatches, client.OpSync, client.OpCloseSession, client.OpCreateSession:
				continue
			}
			i := int(rec.To) - 1
			if i < 0 || i >= len(work) || next[i] >= len(sent[i]) {
				fail("unexpected reply %s", w.Trace().Format(&rec))
			}
			k := next[i]
			next[i]++
			o := sent[i][k]
			if rec.Op != mtOpCode(o) {
				fail("c%d request %d: reply is for %s, sent %v", i+1, k, rec.Op, o)
			}
			sess := sessions[rec.To]
			want := model.apply(o, sess, rec.Zxid, proposed[rec.Zxid].Millis())
			got := results[i][k]
			log = append(log, fmt.Sprintf("%s c%d %v zxid=%#x -> %v (arrival #%d)", rec.At, i+1, o, rec.Zxid, got, got.seq))
			if d := mtDiff(o, got, want); d != "" {
				fail("c%d request %d %v: %s\n got  %v\n want %v", i+1, k, o, d, got, want)
			}
		}
	}
	for i := range sent {
		if next[i] != len(sent[i]) {
			fail("c%d: %d of %d requests answered in the trace", i+1, next[i], len(sent[i]))
		}
	}

	// Finally the server's tree is the model.
	tree := w.servers[0].tree
	if got, want := slices.Sorted(maps.Keys(tree.nodes)), slices.Sorted(maps.Keys(model)); !slices.Equal(got, want) {
		fail("final tree holds %v, model %v", got, want)
	}
	for p, n := range tree.nodes {
		if !bytes.Equal(n.data, model[p].data) {
			fail("final %s: data %q, model %q", p, n.data, model[p].data)
		}
		if got, want := n.visibleStat(), model.stat(p); got != want {
			fail("final %s: stat %s, model %s", p, mtStatString(got), mtStatString(want))
		}
	}
}
