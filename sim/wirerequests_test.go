package sim

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/jute"
	"github.com/zksim/zksim/trace"
)

// The requests go-zookeeper/zk cannot send, from an outside client:
// multiRead, checkWatches, removeWatches of one watcher type, whoAmI, a
// multi's create2, createTTL and createContainer, and paths no library
// lets through. Each want is what Debian's ZooKeeper 3.8.0 answered to
// the same requests (serve's TestFrontAnswersAsTheRealServer sends them to
// both).

// wireRig is an outside rig whose calls are sent one at a time and
// answered before the next.
type wireRig struct {
	*outsideRig
	xid int32
}

func newWireRig(t *testing.T) *wireRig {
	t.Helper()
	w, err := New(Config{Seed: 5, Outside: true, KeepTrace: true, ExtendedTypes: true})
	if err != nil {
		t.Fatal(err)
	}
	w.Begin()
	return &wireRig{outsideRig: &outsideRig{t: t, w: w, answers: map[*Outside][]*Answer{}}}
}

// ask sends call on x, numbered, and returns its answer: the last of
// what came back (notifications before it are in r.answers).
func (r *wireRig) ask(x *Wire, call *Call) *Answer {
	r.t.Helper()
	r.xid++
	call.Xid = r.xid
	x.Send(call)
	r.advance(50 * time.Millisecond)
	a := r.last(x.o)
	if a.Xid != r.xid {
		r.t.Fatalf("%s #%d: the last answer is %+v", jute.OpName(call.Op), r.xid, a)
	}
	return a
}

// notes are the notifications o was sent since the last call of notes.
func (r *wireRig) notes(o *Outside) []string {
	var out []string
	kept := r.answers[o][:0]
	for _, a := range r.answers[o] {
		if a.Xid == -1 {
			out = append(out, a.Type.String()+" "+a.Path)
			continue
		}
		kept = append(kept, a)
	}
	r.answers[o] = kept
	return out
}

func (r *wireRig) create(x *Wire, path string, acl []zk.ACL) {
	r.t.Helper()
	if a := r.ask(x, &Call{Op: client.OpCreate, Path: path, Data: []byte("d"), ACL: acl}); a.Code != 0 {
		r.t.Fatalf("create %s: %d", path, a.Code)
	}
}

var openToAll = zk.WorldACL(zk.PermAll)

func TestMultiReadAnswersEachReadOnItsOwn(t *testing.T) {
	r := newWireRig(t)
	a := r.client()
	x := r.connect(a, 0)
	r.create(x, "/p", openToAll)
	r.create(x, "/p/a", openToAll)
	r.create(x, "/p/sec", zk.DigestACL(zk.PermAll, "u1", "p1"))
	read := func(ops ...SubCall) *Answer { return r.ask(x, &Call{Op: jute.OpMultiRead, Ops: ops}) }
	got := read(SubCall{Op: client.OpGetData, Path: "/p/a"}, SubCall{Op: jute.OpGetChildrenV1, Path: "/p"},
		SubCall{Op: client.OpGetData, Path: "/p/none"}, SubCall{Op: jute.OpGetChildrenV1, Path: "/p/none"},
		SubCall{Op: client.OpGetData, Path: "/p/sec"}, SubCall{Op: jute.OpGetChildrenV1, Path: "/p/sec"},
		SubCall{Op: client.OpGetData, Path: ""})
	if got.Code != 0 || len(got.Multi) != 7 {
		t.Fatalf("multiRead answered %+v", got)
	}
	m := got.Multi
	if m[0].Op != client.OpGetData || string(m[0].Data) != "d" || m[0].Stat.DataLength != 1 || m[0].Code != 0 {
		t.Errorf("getData /p/a: %+v", m[0])
	}
	if kids := slices.Sorted(slices.Values(m[1].Children)); m[1].Code != 0 || !slices.Equal(kids, []string{"a", "sec"}) {
		t.Errorf("getChildren /p: %+v", m[1])
	}
	for i, want := range []int32{trace.CodeNoNode, trace.CodeNoNode, trace.CodeNoAuth, trace.CodeNoAuth} {
		if m[2+i].Code != want {
			t.Errorf("op %d: code %d, want %d (NoNode before NoAuth, each op on its own)", 2+i, m[2+i].Code, want)
		}
	}
	if m[6].Code != 0 || m[6].Stat.NumChildren < 2 {
		t.Errorf(`getData "" reads the root, whose other key "" is: %+v`, m[6])
	}
	if empty := read(); empty.Code != 0 || len(empty.Multi) != 0 {
		t.Errorf("an empty multiRead: %+v", empty)
	}
	if writes := read(SubCall{Op: client.OpCheck, Path: "/p/a", Version: -1}); writes.Code != trace.CodeMarshallingError || len(writes.Multi) != 0 {
		t.Errorf("a multiRead of a check: %+v, want MarshallingError and no results", writes)
	}
	// A multiRead sets no watch, whatever its ops' watch flags (the server
	// drops them).
	b := r.client()
	y := r.connect(b, 0)
	x.Send(&Call{Xid: 100, Op: jute.OpMultiRead, Ops: []SubCall{{Op: client.OpGetData, Path: "/p/a"}, {Op: jute.OpGetChildrenV1, Path: "/p"}}})
	r.advance(50 * time.Millisecond)
	r.ask(y, &Call{Op: client.OpSetData, Path: "/p/a", Data: []byte("x"), Version: -1})
	r.create(y, "/p/b", openToAll)
	if n := r.notes(a); len(n) != 0 {
		t.Errorf("a multiRead's reads set watches: %v", n)
	}
}

func TestCheckWatchesAsTheServerAnswersIt(t *testing.T) {
	r := newWireRig(t)
	a, b := r.client(), r.client()
	x, y := r.connect(a, 0), r.connect(b, 0)
	r.create(x, "/p", openToAll)
	r.create(x, "/p/a", openToAll)
	check := func(w *Wire, path string, typ jute.WatcherType) int32 {
		return r.ask(w, &Call{Op: jute.OpCheckWatches, Path: path, Flags: int32(typ)}).Code
	}
	r.ask(x, &Call{Op: client.OpGetData, Path: "/p/a", Watch: true})
	for _, c := range []struct {
		w    *Wire
		typ  jute.WatcherType
		want int32
	}{
		{x, jute.WatcherData, trace.CodeOK}, {x, jute.WatcherAny, trace.CodeOK}, {x, jute.WatcherChildren, trace.CodeNoWatcher},
		// Another session of the same server: the server asks whether
		// anyone watches the path, not whether this session does.
		{y, jute.WatcherData, trace.CodeOK}, {y, jute.WatcherAny, trace.CodeOK}, {y, jute.WatcherChildren, trace.CodeNoWatcher},
		{x, 0, trace.CodeMarshallingError}, {x, 4, trace.CodeMarshallingError},
	} {
		if got := check(c.w, "/p/a", c.typ); got != c.want {
			t.Errorf("checkWatches /p/a type %d by %s: %d, want %d", c.typ, c.w.o.Name(), got, c.want)
		}
	}
	z := r.connect(r.client(), 1)
	if got := check(z, "/p/a", jute.WatcherData); got != trace.CodeNoWatcher {
		t.Errorf("a session of another server: %d, want NoWatcher (each server has its own watches)", got)
	}
	// Paths the server's walk up them trips on.
	r.ask(x, &Call{Op: client.OpExists, Path: "a/b", Watch: true})
	r.ask(x, &Call{Op: client.OpExists, Path: "", Watch: true})
	for path, want := range map[string]int32{"a": trace.CodeMarshallingError, "a/b": trace.CodeOK, "c/d": trace.CodeNoWatcher, "": trace.CodeNoWatcher} {
		if got := check(x, path, jute.WatcherData); got != want {
			t.Errorf("checkWatches %q, no recursive watch: %d, want %d", path, got, want)
		}
	}
	r.ask(y, &Call{Op: client.OpAddWatch, Path: "/q", Flags: int32(client.AddWatchPersistentRecursive)})
	for path, want := range map[string]int32{"a/b": trace.CodeOK, "c/d": trace.CodeMarshallingError, "/p/a/b": trace.CodeNoWatcher, "/q/r": trace.CodeNoWatcher} {
		if got := check(x, path, jute.WatcherData); got != want {
			t.Errorf("checkWatches %q, a recursive watch on /q: %d, want %d", path, got, want)
		}
	}
	if got := check(x, "/q", jute.WatcherChildren); got != trace.CodeOK {
		t.Errorf("checkWatches /q children, a recursive watch on it: %d", got)
	}
}

func TestRemoveWatchesByType(t *testing.T) {
	r := newWireRig(t)
	a, b := r.client(), r.client()
	x, y := r.connect(a, 0), r.connect(b, 0)
	r.create(x, "/p", openToAll)
	r.create(x, "/p/b", openToAll)
	remove := func(path string, typ jute.WatcherType) int32 {
		return r.ask(x, &Call{Op: client.OpRemoveWatches, Path: path, Flags: int32(typ)}).Code
	}
	set := func(path string, data string) {
		r.ask(y, &Call{Op: client.OpSetData, Path: path, Data: []byte(data), Version: -1})
		r.ask(x, &Call{Op: client.OpSync, Path: "/"})
	}
	expect := func(what string, got, want int32) {
		t.Helper()
		if got != want {
			t.Errorf("%s: %d, want %d", what, got, want)
		}
	}
	r.ask(x, &Call{Op: client.OpExists, Path: "/p/none", Watch: true})
	expect("exists watch: remove children", remove("/p/none", jute.WatcherChildren), trace.CodeNoWatcher)
	expect("exists watch: remove any", remove("/p/none", jute.WatcherAny), trace.CodeOK)
	expect("type 0", remove("/p", 0), trace.CodeMarshallingError)
	expect("type 4", remove("/p", 4), trace.CodeMarshallingError)
	r.ask(x, &Call{Op: client.OpAddWatch, Path: "/p/b", Flags: int32(client.AddWatchPersistent)})
	expect("persistent: remove children", remove("/p/b", jute.WatcherChildren), trace.CodeOK)
	set("/p/b", "1")
	r.create(y, "/p/b/c", openToAll)
	r.ask(x, &Call{Op: client.OpSync, Path: "/"})
	if n := r.notes(a); !slices.Equal(n, []string{"EventNodeDataChanged /p/b"}) {
		t.Errorf("a persistent watch without its child half heard %v, want its data change alone", n)
	}
	expect("persistent: remove data", remove("/p/b", jute.WatcherData), trace.CodeOK)
	expect("persistent, both halves gone: remove any", remove("/p/b", jute.WatcherAny), trace.CodeNoWatcher)
	r.ask(x, &Call{Op: client.OpAddWatch, Path: "/p", Flags: int32(client.AddWatchPersistentRecursive)})
	expect("recursive: remove data", remove("/p", jute.WatcherData), trace.CodeOK)
	set("/p/b", "2")
	r.ask(y, &Call{Op: client.OpDelete, Path: "/p/b/c", Version: -1})
	r.ask(x, &Call{Op: client.OpSync, Path: "/"})
	if n := r.notes(a); !slices.Equal(n, []string{"EventNodeDeleted /p/b/c"}) {
		t.Errorf("a recursive watch without its data half heard %v, want the deletion below it alone", n)
	}
	expect("recursive: remove children", remove("/p", jute.WatcherChildren), trace.CodeOK)
}

func TestWhoAmITellsTheConnectionsIDsInTheServersOrder(t *testing.T) {
	r := newWireRig(t)
	a := r.client()
	x := r.connect(a, 0)
	who := func() []Identity { return r.ask(x, &Call{Op: jute.OpWhoAmI}).Who }
	ip := Identity{"ip", "127.0.0.1"}
	if got := who(); !reflect.DeepEqual(got, []Identity{ip}) {
		t.Fatalf("whoAmI of a fresh connection: %v", got)
	}
	d := func(user string) Identity { return Identity{"digest", user} }
	// What the server answered after each addAuth of the same credentials.
	for _, c := range []struct {
		auth string
		want []Identity
	}{
		{"u1:p1", []Identity{d("u1"), ip}},
		{"u2:p2", []Identity{d("u2"), d("u1"), ip}},
		{"zed:1", []Identity{d("u2"), d("zed"), d("u1"), ip}},
		{"alice:pw", []Identity{d("u2"), d("zed"), d("u1"), ip, d("alice")}},
		{"u3:p\xff", []Identity{d("u2"), d("zed"), d("u1"), ip, d("alice"), d("u3")}},
		{"u1:p1", []Identity{d("u2"), d("zed"), d("u1"), ip, d("alice"), d("u3")}},
		{":x", []Identity{d("u2"), d("zed"), d("u1"), ip, d("alice"), d("u3"), d("")}},
		{"nocolon", []Identity{d("u2"), d("zed"), d("nocolon"), d("u1"), ip, d("alice"), d("u3"), d("")}},
		// A user beyond U+FFFF, written back as two surrogates.
		{"\U0001F600:p", []Identity{d("u2"), d("zed"), d("nocolon"), d("u1"), ip, d("alice"), d("u3"), d(""), d("\xed\xa0\xbd\xed\xb8\x80")}},
	} {
		if got := r.ask(x, &Call{Op: client.OpSetAuth, Path: "digest", Data: []byte(c.auth)}); got.Code != 0 {
			t.Fatalf("addAuth %q: %d", c.auth, got.Code)
		}
		if got := who(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("after addAuth %q, whoAmI: %v\nwant %v", c.auth, got, c.want)
		}
	}
}

func TestMultiCreatesAsTheirFlagsMakeThem(t *testing.T) {
	r := newWireRig(t)
	a := r.client()
	x := r.connect(a, 0)
	r.create(x, "/p", openToAll)
	op := func(typ client.Op, path string, flags int32, ttl int64) SubCall {
		return SubCall{Op: typ, Path: path, Data: []byte("tt"), ACL: openToAll, Flags: flags, TTL: ttl}
	}
	got := r.ask(x, &Call{Op: client.OpMulti, Ops: []SubCall{
		op(client.OpCreate2, "/p/m1", 0, 0), op(client.OpCreateTTL, "/p/m2", zk.FlagTTL, 60000),
		op(client.OpCreateContainer, "/p/m3", zk.FlagContainer, 0), op(client.OpCreateContainer, "/p/m4", 0, 0),
		op(client.OpCreate2, "/p/m5", zk.FlagContainer, 0), op(client.OpCreateTTL, "/p/m6", 0, 60000),
		op(client.OpCreateTTL, "/p/m7-", zk.FlagPersistentSequentialWithTTL, 1000),
		op(client.OpCreate2, "/p/m8-", zk.FlagEphemeralSequential, 0), op(client.OpCreateTTL, "/p/m9", zk.FlagContainer, 5),
		op(client.OpCreateTTL, "/p/m10", zk.FlagEphemeral, -1)}})
	if got.Code != 0 || len(got.Multi) != 10 {
		t.Fatalf("multi answered %+v", got)
	}
	wantOps := []client.Op{client.OpCreate, client.OpCreateTTL, client.OpCreateContainer, client.OpCreate, client.OpCreateContainer,
		client.OpCreate, client.OpCreateTTL, client.OpCreate, client.OpCreateContainer, client.OpCreate}
	for i, m := range got.Multi {
		if m.Op != wantOps[i] || m.Code != 0 {
			t.Errorf("op %d (%s): made %s, code %d; want %s", i, m.Path, m.Op, m.Code, wantOps[i])
		}
		withStat := m.Op != client.OpCreate
		if st := m.Stat; withStat != (st.Czxid == got.Zxid && st.Pzxid == got.Zxid && st.DataLength == 2 && st.Ctime != 0) {
			t.Errorf("op %d (%s): Stat %+v (a container's and a TTL node's result carries the new node's)", i, m.Path, st)
		}
	}
	if p := got.Multi[6].Path; p != "/p/m7-0000000006" {
		t.Errorf("the TTL sequential node is %s", p)
	}
	codes := func(ops ...SubCall) (int32, []int32) {
		a := r.ask(x, &Call{Op: client.OpMulti, Ops: ops})
		var cs []int32
		for _, m := range a.Multi {
			cs = append(cs, m.Code)
		}
		return a.Code, cs
	}
	for _, c := range []struct {
		what  string
		ops   []SubCall
		code  int32
		codes []int32
	}{
		{"a TTL of 0", []SubCall{op(client.OpCreateTTL, "/p/t0", zk.FlagTTL, 0)}, trace.CodeBadArguments, []int32{trace.CodeBadArguments}},
		{"a TTL over 2^40-1 ms", []SubCall{op(client.OpCreate2, "/p/ok", 0, 0), op(client.OpCreateTTL, "/p/t1", zk.FlagTTL, 1<<41)},
			trace.CodeBadArguments, []int32{trace.CodeOK, trace.CodeBadArguments}},
		{"a create2 of a TTL mode", []SubCall{op(client.OpCreate2, "/p/t2", zk.FlagTTL, 0)}, trace.CodeMarshallingError, nil},
		{"a createContainer of a TTL mode", []SubCall{op(client.OpCreateContainer, "/p/t3", zk.FlagTTL, 0)}, trace.CodeMarshallingError, nil},
		{"flags 9", []SubCall{op(client.OpCreateTTL, "/p/t4", 9, 100)}, trace.CodeBadArguments, []int32{trace.CodeBadArguments}},
		{"a read in a multi", []SubCall{{Op: client.OpGetData, Path: "/p"}}, trace.CodeMarshallingError, nil},
	} {
		if code, cs := codes(c.ops...); code != c.code || !slices.Equal(cs, c.codes) {
			t.Errorf("%s: %d %v, want %d %v", c.what, code, cs, c.code, c.codes)
		}
	}
}

func TestMultiCreateTTLNeedsExtendedTypes(t *testing.T) {
	r := newOutsideRig(t, 5, nil) // extended types off
	x := r.connect(r.client(), 0)
	x.Send(&Call{Xid: 1, Op: client.OpMulti, Ops: []SubCall{{Op: client.OpCreateTTL, Path: "/t", ACL: openToAll, Flags: zk.FlagTTL, TTL: 1000}}})
	r.advance(50 * time.Millisecond)
	if got := r.last(x.o); got.Code != trace.CodeUnimplemented || len(got.Multi) != 1 || got.Multi[0].Code != trace.CodeUnimplemented {
		t.Fatalf("a createTTL in a multi without TTL nodes: %+v, want Unimplemented", got)
	}
}

// A createContainer and a createTTL answer the new node's Stat, its data
// length as sent.
func TestCreateContainerAndTTLAnswerTheirStat(t *testing.T) {
	r := newWireRig(t)
	x := r.connect(r.client(), 0)
	for _, c := range []*Call{
		{Op: client.OpCreateContainer, Path: "/c", Data: []byte("d"), ACL: openToAll, Flags: zk.FlagContainer},
		{Op: client.OpCreateTTL, Path: "/t", Data: []byte("tt"), ACL: openToAll, Flags: zk.FlagTTL, TTL: 60000},
	} {
		got := r.ask(x, c)
		st := got.Stat
		if got.Code != 0 || st.Czxid != got.Zxid || st.Mzxid != got.Zxid || st.Pzxid != got.Zxid || st.Ctime == 0 ||
			st.Mtime != st.Ctime || st.DataLength != int32(len(c.Data)) || st.EphemeralOwner != 0 {
			t.Errorf("%s %s answered %+v", c.Op, c.Path, got)
		}
	}
}

// The server checks no read's path but exists' for a NUL (BadArguments,
// and no watch), and reads the root for "".
func TestOutsideReadsOfPathsNoLibrarySends(t *testing.T) {
	r := newWireRig(t)
	x := r.connect(r.client(), 0)
	r.create(x, "/p", openToAll)
	if got := r.ask(x, &Call{Op: client.OpExists, Path: "/p\x00", Watch: true}); got.Code != trace.CodeBadArguments {
		t.Errorf("exists of a path with a NUL: %d, want BadArguments", got.Code)
	}
	if got := r.ask(x, &Call{Op: jute.OpCheckWatches, Path: "/p\x00", Flags: int32(jute.WatcherAny)}); got.Code != trace.CodeNoWatcher {
		t.Errorf("the refused exists set a watch: checkWatches %d", got.Code)
	}
	for _, op := range []client.Op{client.OpExists, client.OpGetData, client.OpGetChildren, client.OpGetACL} {
		if got := r.ask(x, &Call{Op: op, Path: ""}); got.Code != 0 || got.Stat.NumChildren != 2 {
			t.Errorf(`%s "": %+v, want the root's`, op, got)
		}
	}
	root := r.ask(x, &Call{Op: client.OpGetAllChildren, Path: "/"}).Count
	if got := r.ask(x, &Call{Op: client.OpGetAllChildren, Path: ""}); got.Code != 0 || got.Count != root+1 {
		t.Errorf(`getAllChildrenNumber "": %+v, want %d (the root's count, and its key "/")`, got, root+1)
	}
	for _, p := range []string{"a/b", "/p/", "/p//q", "/p/./q", "a"} {
		if got := r.ask(x, &Call{Op: client.OpGetData, Path: p}); got.Code != trace.CodeNoNode {
			t.Errorf("getData %q: %d, want NoNode", p, got.Code)
		}
		if got := r.ask(x, &Call{Op: client.OpSetData, Path: p, Version: -1}); got.Code != trace.CodeBadArguments {
			t.Errorf("setData %q: %d, want BadArguments", p, got.Code)
		}
	}
}
