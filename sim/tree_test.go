package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// The rules checked here are ZooKeeper 3.8's: PrepRequestProcessor's checks
// in their order, DataTree's Stat upkeep and watch triggers, and
// DataNode.copyStat's visible cversion (see /tmp/research/zkserver.md).

// zx is a zxid of epoch 1, as the simulated server numbers them.
func zx(n int64) int64 { return 1<<32 | n }

// Times of the tree tests, and their ctime/mtime in Unix milliseconds.
var (
	t1 = Time(1 * time.Second)
	t2 = Time(2 * time.Second)
	t3 = Time(3 * time.Second)
	t5 = Time(5 * time.Second)
)

func ms(t Time) int64 { return t.Millis() }

const (
	sessA int64 = 0x0100000000000007 // owner of the base tree's ephemeral
	sessB int64 = 0x0100000000000009 // the session doing the test's writes
)

func mustCreate(t *testing.T, tr *Tree, path, data string, flags int32, owner, zxid int64, now Time) string {
	t.Helper()
	p, code := tr.create(path, []byte(data), flags, acl, owner, zxid, now)
	if code != codeOK {
		t.Fatalf("create %q: code %d", path, code)
	}
	return p
}

func mustSet(t *testing.T, tr *Tree, path, data string, zxid int64, now Time) zk.Stat {
	t.Helper()
	st, code := tr.setData(path, []byte(data), -1, zxid, now)
	if code != codeOK {
		t.Fatalf("setData %q: code %d", path, code)
	}
	return st
}

func mustDelete(t *testing.T, tr *Tree, path string, zxid int64) {
	t.Helper()
	if code := tr.delete(path, -1, zxid); code != codeOK {
		t.Fatalf("delete %q: code %d", path, code)
	}
}

func statOf(t *testing.T, tr *Tree, path string) zk.Stat {
	t.Helper()
	_, st, code := tr.get(path)
	if code != codeOK {
		t.Fatalf("get %q: code %d", path, code)
	}
	return st
}

func sortedChildren(t *testing.T, tr *Tree, path string) []string {
	t.Helper()
	ch, _, code := tr.children(path)
	if code != codeOK {
		t.Fatalf("children %q: code %d", path, code)
	}
	ch = slices.Clone(ch)
	slices.Sort(ch)
	return ch
}

// nodeDump is everything a client or a later write can observe of a node.
type nodeDump struct {
	Data     string
	Stat     zk.Stat // as a client sees it
	Creates  int32   // the internal cversion: the next sequence number
	Children string  // sorted, comma-joined
}

type treeDump struct {
	Nodes      map[string]nodeDump
	Ephemerals map[int64]string // owner -> sorted paths, comma-joined
}

func dumpTree(tr *Tree) treeDump {
	d := treeDump{Nodes: map[string]nodeDump{}, Ephemerals: map[int64]string{}}
	for p, n := range tr.nodes {
		names := slices.Clone(n.listing.names)
		slices.Sort(names)
		d.Nodes[p] = nodeDump{string(n.data), n.visibleStat(), n.creates, strings.Join(names, ",")}
	}
	for owner, list := range tr.ephemerals {
		if len(list) == 0 {
			continue // kept for the session's next ephemeral
		}
		d.Ephemerals[owner] = strings.Join(tr.sessionEphemerals(owner), ",")
	}
	return d
}

func diffDump(a, b treeDump) string {
	var out []string
	for p, na := range a.Nodes {
		nb, ok := b.Nodes[p]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s: gone", p))
		case na != nb:
			out = append(out, fmt.Sprintf("%s: %+v -> %+v", p, na, nb))
		}
	}
	for p := range b.Nodes {
		if _, ok := a.Nodes[p]; !ok {
			out = append(out, fmt.Sprintf("%s: appeared", p))
		}
	}
	for o, ea := range a.Ephemerals {
		if eb := b.Ephemerals[o]; ea != eb {
			out = append(out, fmt.Sprintf("ephemerals[%#x]: %q -> %q", o, ea, eb))
		}
	}
	for o, eb := range b.Ephemerals {
		if _, ok := a.Ephemerals[o]; !ok {
			out = append(out, fmt.Sprintf("ephemerals[%#x]: appeared %q", o, eb))
		}
	}
	slices.Sort(out)
	return strings.Join(out, "\n")
}

// checkInvariants checks that the tree's indexes agree: every node is linked
// from its parent, numChildren counts the children, getChildren lists them,
// and the ephemerals index holds exactly the nodes with an owner.
func checkInvariants(t *testing.T, tr *Tree) {
	t.Helper()
	owned := map[int64][]string{}
	for p, n := range tr.nodes {
		if n.path != p {
			t.Errorf("invariant: the node at %q says its path is %q", p, n.path)
		}
		if p != "/" {
			parent, name := parentOf(p)
			pn := tr.nodes[parent]
			if pn == nil {
				t.Errorf("invariant: %q has no parent %q", p, parent)
			} else if _, found := pn.listing.find(nameHash(name, tr.salt), name); !found {
				t.Errorf("invariant: %q is not listed by its parent %q", p, parent)
			}
		}
		if int(n.stat.NumChildren) != len(n.listing.names) {
			t.Errorf("invariant: %q numChildren %d, lists %d children", p, n.stat.NumChildren, len(n.listing.names))
		}
		for i, name := range n.listing.names {
			cp := p + "/" + name
			if p == "/" {
				cp = "/" + name
			}
			if tr.nodes[cp] == nil {
				t.Errorf("invariant: child %q of %q is not in the node map", name, p)
			}
			if n.listing.keys[i] != nameHash(name, tr.salt) || (i > 0 && n.listing.keys[i-1] > n.listing.keys[i]) {
				t.Errorf("invariant: %q's listing is out of order at %q", p, name)
			}
		}
		if o := n.stat.EphemeralOwner; o != 0 {
			owned[o] = append(owned[o], p)
		}
	}
	for o, list := range tr.ephemerals {
		for i, n := range list {
			if n.ephIdx != i || n.stat.EphemeralOwner != o || tr.nodes[n.path] != n {
				t.Errorf("invariant: ephemerals index of %#x holds %q at %d (its index %d, owner %#x)", o, n.path, i, n.ephIdx, n.stat.EphemeralOwner)
			}
		}
	}
	owners := 0
	for _, list := range tr.ephemerals {
		if len(list) > 0 {
			owners++
		}
	}
	if len(owned) != owners {
		t.Errorf("invariant: ephemerals index has %d owners, nodes have %d", owners, len(owned))
	}
	for o, paths := range owned {
		slices.Sort(paths)
		if got := tr.sessionEphemerals(o); !slices.Equal(got, paths) {
			t.Errorf("invariant: sessionEphemerals(%#x) = %q, want %q", o, got, paths)
		}
	}
}

// baseTree is a small tree for the error tables:
//
//	/a        persistent, data "a", with child /a/b
//	/e        ephemeral of sessA
//	/v        data "vv", version 1
//	/q        with one sequential child /q/s-0000000000 (next suffix 1)
//	/zookeeper/x  a user node under ZooKeeper's own (deletable)
//
// fired is drained.
func baseTree(t *testing.T) *Tree {
	t.Helper()
	tr := clientTree(7)
	mustCreate(t, tr, "/a", "a", 0, sessB, zx(10), t1)
	mustCreate(t, tr, "/a/b", "", 0, sessB, zx(11), t1)
	mustCreate(t, tr, "/e", "", zk.FlagEphemeral, sessA, zx(12), t1)
	mustCreate(t, tr, "/v", "v", 0, sessB, zx(13), t1)
	mustSet(t, tr, "/v", "vv", zx(14), t1)
	mustCreate(t, tr, "/q", "", 0, sessB, zx(15), t1)
	mustCreate(t, tr, "/q/s-", "", zk.FlagSequence, sessB, zx(16), t1)
	mustCreate(t, tr, "/zookeeper/x", "", 0, sessB, zx(17), t1)
	tr.fired = nil
	return tr
}

// ---- the fresh tree ---------------------------------------------------------

func TestTreeFresh(t *testing.T) {
	tr := clientTree(42)
	// DataTree's constructor: "/", "/zookeeper", "/zookeeper/quota" and
	// "/zookeeper/config", each with empty data and an all-zero
	// StatPersisted; the children were added with addChild, not created, so
	// the visible cversion is 0*2 - numChildren. /zookeeper/config's
	// read-only ACL was set with setACL version -1, its aversion since.
	want := map[string]zk.Stat{
		"/":                 {Cversion: -1, NumChildren: 1},
		"/zookeeper":        {Cversion: -2, NumChildren: 2},
		"/zookeeper/quota":  {},
		"/zookeeper/config": {Aversion: -1},
	}
	if len(tr.nodes) != len(want) {
		t.Errorf("fresh tree has %d nodes, want %d", len(tr.nodes), len(want))
	}
	for p, st := range want {
		data, got, code := tr.get(p)
		if code != codeOK || got != st || len(data) != 0 {
			t.Errorf("get(%q) = (%q, %+v, %d), want (empty, %+v, 0)", p, data, got, code, st)
		}
	}
	ch, st, code := tr.children("/")
	if code != codeOK || !slices.Equal(ch, []string{"zookeeper"}) || st != want["/"] {
		t.Errorf(`children("/") = (%q, %+v, %d), want (["zookeeper"], %+v, 0)`, ch, st, code, want["/"])
	}
	if got := sortedChildren(t, tr, "/zookeeper"); !slices.Equal(got, []string{"config", "quota"}) {
		t.Errorf(`children("/zookeeper") = %q, want [config quota]`, got)
	}
	if len(tr.fired) != 0 || len(tr.ephemerals) != 0 {
		t.Errorf("fresh tree: fired %v, ephemerals %v", tr.fired, tr.ephemerals)
	}
	checkInvariants(t, tr)
}

// ---- create -------------------------------------------------------------------

func TestTreeCreateModes(t *testing.T) {
	cases := []struct {
		name      string
		flags     int32
		path      string
		wantPath  string
		wantOwner int64
	}{
		{"PERSISTENT (0): the name as given, ephemeralOwner 0 (createStat owner 0)",
			zk.FlagPersistent, "/q/n", "/q/n", 0},
		{"EPHEMERAL (1): ephemeralOwner is the session id, and the node is in the session's ephemerals",
			zk.FlagEphemeral, "/q/n", "/q/n", sessB},
		{"PERSISTENT_SEQUENTIAL (2): name + %010d of the parent's creates (1: /q/x was created first), owner 0",
			zk.FlagSequence, "/q/n-", "/q/n-0000000001", 0},
		{"EPHEMERAL_SEQUENTIAL (3): sequential name and the session as owner",
			zk.FlagEphemeralSequential, "/q/n-", "/q/n-0000000001", sessB},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := clientTree(1)
			mustCreate(t, tr, "/q", "", 0, sessB, zx(10), t1)
			mustCreate(t, tr, "/q/x", "", 0, sessB, zx(11), t1)
			tr.fired = nil

			p, code := tr.create(tc.path, []byte("data"), tc.flags, acl, sessB, zx(12), t2)
			if code != codeOK || p != tc.wantPath {
				t.Fatalf("create = (%q, %d), want (%q, 0)", p, code, tc.wantPath)
			}
			// DataTree.createStat(zxid, time, owner).
			wantStat := zk.Stat{Czxid: zx(12), Mzxid: zx(12), Ctime: ms(t2), Mtime: ms(t2),
				Version: 0, Cversion: 0, Aversion: 0, EphemeralOwner: tc.wantOwner,
				DataLength: 4, NumChildren: 0, Pzxid: zx(12)}
			data, st, _ := tr.get(p)
			if st != wantStat || string(data) != "data" {
				t.Errorf("node = (%q, %+v), want (\"data\", %+v)", data, st, wantStat)
			}
			// The parent: internal cversion +1, pzxid = zxid, numChildren +1;
			// its version, mzxid and mtime untouched.
			wantParent := zk.Stat{Czxid: zx(10), Mzxid: zx(10), Ctime: ms(t1), Mtime: ms(t1),
				Cversion: 2, NumChildren: 2, Pzxid: zx(12)}
			if got := statOf(t, tr, "/q"); got != wantParent {
				t.Errorf("parent = %+v, want %+v", got, wantParent)
			}
			var wantEph []string
			if tc.wantOwner != 0 {
				wantEph = []string{tc.wantPath}
			}
			if got := tr.sessionEphemerals(sessB); !slices.Equal(got, wantEph) {
				t.Errorf("sessionEphemerals = %q, want %q", got, wantEph)
			}
			// createNode: NodeCreated on the path, then NodeChildrenChanged on the parent.
			wantFired := []firedEvent{{tc.wantPath, zk.EventNodeCreated}, {"/q", zk.EventNodeChildrenChanged}}
			if !slices.Equal(events(tr.fired), wantFired) {
				t.Errorf("fired %v, want %v", events(tr.fired), wantFired)
			}
			checkInvariants(t, tr)
		})
	}
}

func TestTreeCreateErrors(t *testing.T) {
	noACL := []zk.ACL{}
	cases := []struct {
		name  string
		path  string
		flags int32
		acl   []zk.ACL
		want  int32
	}{
		{"flags 7 is no CreateMode -> BadArguments (CreateMode.fromFlag)", "/x", 7, acl, codeBadArguments},
		{"flags -1 is no CreateMode -> BadArguments (CreateMode.fromFlag)", "/x", -1, acl, codeBadArguments},
		{"no '/' -> BadArguments (validatePathForCreate: lastIndexOf('/') == -1)", "x", 0, acl, codeBadArguments},
		{"empty path -> BadArguments (validatePathForCreate)", "", 0, acl, codeBadArguments},
		{"NUL -> BadArguments (validatePathForCreate: indexOf('\\0')), before the parent lookup", "/missing/x\x00", 0, acl, codeBadArguments},
		{"no '/' -> BadArguments comes before InvalidACL (validatePathForCreate runs before fixupACL)", "x", 0, noACL, codeBadArguments},
		{"empty ACL -> InvalidACL (fixupACL)", "/x", 0, noACL, codeInvalidACL},
		{"nil ACL -> InvalidACL (fixupACL: null list)", "/x", 0, nil, codeInvalidACL},
		{"InvalidACL comes before NoNode (fixupACL runs before getRecordForPath(parent))", "/missing/x", 0, noACL, codeInvalidACL},
		{"create: parent missing -> NoNode (PrepRequestProcessor checks the parent before the node)", "/missing/x", 0, acl, codeNoNode},
		{"sequential, parent missing -> NoNode", "/missing/x-", zk.FlagSequence, acl, codeNoNode},
		{"'/a//b': parent \"/a/\" is looked up (NoNode) before validatePath", "/a//b", 0, acl, codeNoNode},
		{"'/./a': parent \"/.\" is looked up (NoNode) before validatePath", "/./a", 0, acl, codeNoNode},
		{"under /zookeeper/config (ACL world:anyone:r) -> NoAuth (checkACL CREATE on the parent)", "/zookeeper/config/x", 0, acl, codeNoAuth},
		{"sequential under /zookeeper/config -> NoAuth", "/zookeeper/config/x-", zk.FlagSequence, acl, codeNoAuth},
		{"trailing '/' without SEQUENTIAL -> BadArguments (validatePath on the full path)", "/a/", 0, acl, codeBadArguments},
		{"'.' component -> BadArguments (validatePath: relative paths not allowed)", "/a/.", 0, acl, codeBadArguments},
		{"'..' component -> BadArguments (validatePath: relative paths not allowed)", "/a/..", 0, acl, codeBadArguments},
		{"control character -> BadArguments (validatePath: \\u0001-\\u001F)", "/a\x01", 0, acl, codeBadArguments},
		{"U+0080 -> BadArguments (validatePath: \\u007F-\\u009F)", "/a\u0080", 0, acl, codeBadArguments},
		{"U+E000 -> BadArguments (validatePath: \\uD800-\\uF8FF)", "/\ue000", 0, acl, codeBadArguments},
		{"U+FFFF -> BadArguments (validatePath: \\uFFF0-\\uFFFF)", "/\uffff", 0, acl, codeBadArguments},
		{"a character above U+FFFF -> BadArguments (its UTF-16 surrogates are refused)", "/\U0001F600", 0, acl, codeBadArguments},
		{"invalid UTF-8 -> BadArguments (decoded as U+FFFD)", "/a\xff", 0, acl, codeBadArguments},
		{"existing node -> NodeExists", "/a", 0, acl, codeNodeExists},
		{"existing node, ephemeral flags -> NodeExists", "/a/b", zk.FlagEphemeral, acl, codeNodeExists},
		{"'/' -> NodeExists (parent \"\" is the root; validatePath(\"/\") passes)", "/", 0, acl, codeNodeExists},
		{"'/zookeeper' -> NodeExists", "/zookeeper", 0, acl, codeNodeExists},
		{"'/zookeeper/config' -> NodeExists, not NoAuth (its parent /zookeeper is open)", "/zookeeper/config", 0, acl, codeNodeExists},
		{"child of an ephemeral -> NoChildrenForEphemerals", "/e/x", 0, acl, codeNoChildrenForEphemeral},
		{"ephemeral child of an ephemeral -> NoChildrenForEphemerals", "/e/x", zk.FlagEphemeral, acl, codeNoChildrenForEphemeral},
		{"sequential child of an ephemeral -> NoChildrenForEphemerals", "/e/x-", zk.FlagEphemeralSequential, acl, codeNoChildrenForEphemeral},
		{"'/e/' sequential under an ephemeral -> NoChildrenForEphemerals", "/e/", zk.FlagSequence, acl, codeNoChildrenForEphemeral},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := baseTree(t)
			before := dumpTree(tr)
			p, code := tr.create(tc.path, []byte("d"), tc.flags, tc.acl, sessB, zx(50), t5)
			if code != tc.want || p != "" {
				t.Errorf("create(%q, flags %d) = (%q, %d), want (\"\", %d)", tc.path, tc.flags, p, code, tc.want)
			}
			// A failed create changes nothing, not even the parent's
			// sequence counter (the parent's change record is only added
			// after every check), and fires nothing.
			if d := diffDump(before, dumpTree(tr)); d != "" {
				t.Errorf("tree changed:\n%s", d)
			}
			if len(tr.fired) != 0 {
				t.Errorf("fired %v, want none", tr.fired)
			}
		})
	}
}

// NodeExists is checked before NoChildrenForEphemerals (PrepRequestProcessor
// step 9 before step 10). A real ephemeral never has children, so the test
// makes one by hand.
func TestTreeCreateNodeExistsBeforeNoChildrenForEphemerals(t *testing.T) {
	tr := clientTree(1)
	mustCreate(t, tr, "/p", "", 0, sessB, zx(10), t1)
	mustCreate(t, tr, "/p/c", "", 0, sessB, zx(11), t1)
	tr.nodes["/p"].stat.EphemeralOwner = sessA
	if _, code := tr.create("/p/c", nil, 0, acl, sessB, zx(12), t2); code != codeNodeExists {
		t.Errorf("create existing child of an ephemeral = %d, want NodeExists (%d)", code, codeNodeExists)
	}
	if _, code := tr.create("/p/d", nil, 0, acl, sessB, zx(13), t2); code != codeNoChildrenForEphemeral {
		t.Errorf("create new child of an ephemeral = %d, want NoChildrenForEphemerals (%d)", code, codeNoChildrenForEphemeral)
	}
}

func TestTreeSequentialNames(t *testing.T) {
	tr := clientTree(3)
	z := int64(10)
	next := func() int64 { z++; return zx(z) }
	seq := func(path string, flags int32) string {
		t.Helper()
		return mustCreate(t, tr, path, "", flags, sessB, next(), t2)
	}
	expect := func(rule, got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("%s: got %q, want %q", rule, got, want)
		}
	}

	// The fresh root has counted no creates: /zookeeper was added, not created.
	expect("first sequential child of the fresh root", seq("/", zk.FlagSequence), "/0000000000")

	mustCreate(t, tr, "/q", "", 0, sessB, next(), t1)
	expect("first child of /q: %010d of parent cversion 0", seq("/q/n-", zk.FlagSequence), "/q/n-0000000000")
	expect("second: 1", seq("/q/n-", zk.FlagSequence), "/q/n-0000000001")

	mustCreate(t, tr, "/q/plain", "", 0, sessB, next(), t1)
	expect("a plain create under the parent counts too, leaving a gap", seq("/q/n-", zk.FlagSequence), "/q/n-0000000003")

	for _, bad := range []struct {
		path  string
		flags int32
		acl   []zk.ACL
		want  int32
	}{
		{"/q/plain", 0, acl, codeNodeExists},
		{"/q/n-", zk.FlagSequence, nil, codeInvalidACL},
		{"/q/n-\x01", zk.FlagSequence, acl, codeBadArguments},
	} {
		if _, code := tr.create(bad.path, nil, bad.flags, bad.acl, sessB, next(), t2); code != bad.want {
			t.Fatalf("create %q = %d, want %d", bad.path, code, bad.want)
		}
	}
	mustCreate(t, tr, "/q/plain/x-", "", zk.FlagSequence, sessB, next(), t2)
	expect("failed creates leave no gap (the parent's cversion moves only when every check passes); creates under a child do not count",
		seq("/q/n-", zk.FlagSequence), "/q/n-0000000004")
	expect("one counter per parent, whatever the prefix", seq("/q/m-", zk.FlagSequence), "/q/m-0000000005")
	expect("ephemeral sequential shares the counter", seq("/q/n-", zk.FlagEphemeralSequential), "/q/n-0000000006")

	mustDelete(t, tr, "/q/n-0000000000", next())
	mustDelete(t, tr, "/q/n-0000000001", next())
	expect("deletes do not advance the counter (deleteNode leaves the internal cversion)", seq("/q/n-", zk.FlagSequence), "/q/n-0000000007")
	expect("a trailing '/' prefix is allowed for sequential (validatePath(path + suffix))", seq("/q/", zk.FlagSequence), "/q/0000000008")

	// Visible cversion = 2*creates - children = creates + deletes: 9 + 2.
	if st := statOf(t, tr, "/q"); st.Cversion != 11 || st.NumChildren != 7 {
		t.Errorf("/q cversion %d numChildren %d, want 11 and 7", st.Cversion, st.NumChildren)
	}

	for _, c := range sortedChildren(t, tr, "/q") {
		if c == "plain" {
			if code := tr.delete("/q/plain/x-0000000000", -1, next()); code != codeOK {
				t.Fatalf("delete /q/plain/x-0000000000: %d", code)
			}
		}
		mustDelete(t, tr, "/q/"+c, next())
	}
	mustDelete(t, tr, "/q", next())
	mustCreate(t, tr, "/q", "", 0, sessB, next(), t3)
	expect("a recreated parent starts again at 0 (a new node, internal cversion 0)", seq("/q/n-", zk.FlagSequence), "/q/n-0000000000")
	checkInvariants(t, tr)
}

// The counter is a Java int: past 2147483647 it wraps, and %010d of a
// negative number keeps its sign ("<path>-2147483648", as the Programmer's
// Guide says).
func TestTreeSequentialOverflow(t *testing.T) {
	tr := clientTree(3)
	mustCreate(t, tr, "/q", "", 0, sessB, zx(10), t1)
	tr.nodes["/q"].creates = math.MaxInt32
	if p := mustCreate(t, tr, "/q/n-", "", zk.FlagSequence, sessB, zx(11), t1); p != "/q/n-2147483647" {
		t.Errorf("at MaxInt32: %q, want /q/n-2147483647", p)
	}
	if p := mustCreate(t, tr, "/q/n-", "", zk.FlagSequence, sessB, zx(12), t1); p != "/q/n--2147483648" {
		t.Errorf("after the wrap: %q, want /q/n--2147483648", p)
	}
}

// sequenceName is String.format(Locale.ENGLISH, "%010d", parentCVersion).
func TestTreeSequenceName(t *testing.T) {
	cases := []struct {
		n    int32
		want string
	}{
		{0, "/q/n-0000000000"},
		{7, "/q/n-0000000007"},
		{1234567890, "/q/n-1234567890"},
		{math.MaxInt32, "/q/n-2147483647"},
		{math.MinInt32, "/q/n--2147483648"},
		// Java's %010d zero-pads after the sign: -1 -> "-000000001".
		{-1, "/q/n--000000001"},
		{-123, "/q/n--000000123"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.n), func(t *testing.T) {
			if got := sequenceName("/q/n-", tc.n); got != tc.want {
				t.Errorf("sequenceName(%d) = %q, want %q", tc.n, got, tc.want)
			}
		})
	}
}

// ---- delete -------------------------------------------------------------------

func TestTreeDeleteErrors(t *testing.T) {
	cases := []struct {
		name    string
		path    string
		version int32
		want    int32
	}{
		{"'/' -> BadArguments (getParentPathAndValidate: isSpecialPath)", "/", -1, codeBadArguments},
		{"'/zookeeper' -> BadArguments (isSpecialPath)", "/zookeeper", -1, codeBadArguments},
		{"'/zookeeper/quota' -> BadArguments (isSpecialPath)", "/zookeeper/quota", -1, codeBadArguments},
		{"'/zookeeper/config' -> BadArguments (isSpecialPath), whatever the version", "/zookeeper/config", 99, codeBadArguments},
		{"no '/' -> BadArguments (getParentPathAndValidate)", "x", -1, codeBadArguments},
		{"empty path -> BadArguments (getParentPathAndValidate)", "", -1, codeBadArguments},
		{"NUL -> BadArguments (getParentPathAndValidate: indexOf('\\0'))", "/a\x00", -1, codeBadArguments},
		{"parent missing -> NoNode (getRecordForPath(parent))", "/missing/x", -1, codeNoNode},
		{"node missing -> NoNode", "/missing", -1, codeNoNode},
		{"node missing, wrong version -> NoNode (node looked up before the version)", "/missing", 5, codeNoNode},
		{"'/a/': no PathUtils on delete, the node \"/a/\" is not found -> NoNode", "/a/", -1, codeNoNode},
		{"'/./a': parent \"/.\" missing -> NoNode", "/./a", -1, codeNoNode},
		{"wrong version -> BadVersion (checkAndIncVersion)", "/v", 0, codeBadVersion},
		{"version too high -> BadVersion", "/v", 2, codeBadVersion},
		{"version -2 is not 'any' -> BadVersion", "/v", -2, codeBadVersion},
		{"has children -> NotEmpty", "/a", -1, codeNotEmpty},
		{"has children, wrong version -> BadVersion (version checked before NotEmpty)", "/a", 3, codeBadVersion},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := baseTree(t)
			before := dumpTree(tr)
			if code := tr.delete(tc.path, tc.version, zx(50)); code != tc.want {
				t.Errorf("delete(%q, %d) = %d, want %d", tc.path, tc.version, code, tc.want)
			}
			if d := diffDump(before, dumpTree(tr)); d != "" {
				t.Errorf("tree changed:\n%s", d)
			}
			if len(tr.fired) != 0 {
				t.Errorf("fired %v, want none", tr.fired)
			}
		})
	}
}

func TestTreeDelete(t *testing.T) {
	cases := []struct {
		name    string
		path    string
		version int32
		parent  string
		owner   int64 // whose ephemerals lose the path
	}{
		{"version -1 matches any", "/a/b", -1, "/a", 0},
		{"the exact version matches (/v is at version 1)", "/v", 1, "/", 0},
		{"an ephemeral leaves its session's ephemerals", "/e", -1, "/", sessA},
		{"a sequential node; the parent keeps its sequence counter", "/q/s-0000000000", 0, "/q", 0},
		{"/zookeeper/x: only the four special paths are refused (/zookeeper is OPEN_ACL)", "/zookeeper/x", -1, "/zookeeper", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := baseTree(t)
			before := dumpTree(tr)
			if code := tr.delete(tc.path, tc.version, zx(50)); code != codeOK {
				t.Fatalf("delete(%q, %d) = %d, want 0", tc.path, tc.version, code)
			}
			after := dumpTree(tr)
			if _, ok := after.Nodes[tc.path]; ok {
				t.Errorf("%q still exists", tc.path)
			}
			// deleteNode: the parent loses the child, pzxid = zxid; its
			// internal cversion is untouched, so the visible one (2·creates
			// − children) goes up by one; version, mzxid, mtime untouched.
			want := before.Nodes[tc.parent]
			want.Stat.Pzxid = zx(50)
			want.Stat.Cversion++
			want.Stat.NumChildren--
			_, name := parentOf(tc.path)
			var rest []string
			for _, c := range strings.Split(want.Children, ",") {
				if c != name {
					rest = append(rest, c)
				}
			}
			want.Children = strings.Join(rest, ",")
			if got := after.Nodes[tc.parent]; got != want {
				t.Errorf("parent %q = %+v, want %+v", tc.parent, got, want)
			}
			// Nothing else changed.
			delete(before.Nodes, tc.path)
			before.Nodes[tc.parent] = want
			if tc.owner != 0 {
				delete(before.Ephemerals, tc.owner)
			}
			if d := diffDump(before, after); d != "" {
				t.Errorf("unexpected changes:\n%s", d)
			}
			wantFired := []firedEvent{{tc.path, zk.EventNodeDeleted}, {tc.parent, zk.EventNodeChildrenChanged}}
			if !slices.Equal(events(tr.fired), wantFired) {
				t.Errorf("fired %v, want %v", events(tr.fired), wantFired)
			}
			checkInvariants(t, tr)
		})
	}
}

// deleteNode sets the parent's pzxid only if the zxid is larger.
func TestTreeDeleteKeepsLargerPzxid(t *testing.T) {
	tr := clientTree(1)
	mustCreate(t, tr, "/p", "", 0, sessB, zx(10), t1)
	mustCreate(t, tr, "/p/a", "", 0, sessB, zx(11), t1)
	mustCreate(t, tr, "/p/b", "", 0, sessB, zx(20), t1)
	mustDelete(t, tr, "/p/a", zx(15))
	if st := statOf(t, tr, "/p"); st.Pzxid != zx(20) || st.Cversion != 3 {
		t.Errorf("/p pzxid %#x cversion %d, want %#x and 3", st.Pzxid, st.Cversion, zx(20))
	}
}

// ---- setData ------------------------------------------------------------------

func TestTreeSetDataErrors(t *testing.T) {
	cases := []struct {
		name    string
		path    string
		version int32
		want    int32
	}{
		{"no '/' -> BadArguments (validatePath)", "x", -1, codeBadArguments},
		{"empty path -> BadArguments (validatePath)", "", -1, codeBadArguments},
		{"trailing '/' -> BadArguments (validatePath)", "/a/", -1, codeBadArguments},
		{"'//' -> BadArguments (validatePath: empty node name)", "/a//b", -1, codeBadArguments},
		{"'.' component -> BadArguments (validatePath)", "/a/.", -1, codeBadArguments},
		{"'/./a' -> BadArguments: setData validates before the lookup", "/./a", -1, codeBadArguments},
		{"NUL -> BadArguments (validatePath)", "/a\x00", -1, codeBadArguments},
		{"U+E000 -> BadArguments (validatePath)", "/\ue000", -1, codeBadArguments},
		{"above U+FFFF -> BadArguments (validatePath: surrogates)", "/\U0001F600", -1, codeBadArguments},
		{"missing -> NoNode", "/missing", -1, codeNoNode},
		{"missing, wrong version -> NoNode (lookup before version)", "/missing", 5, codeNoNode},
		{"/zookeeper/config -> NoAuth (checkACL WRITE; its ACL is world:anyone:r)", "/zookeeper/config", -1, codeNoAuth},
		{"/zookeeper/config, wrong version -> NoAuth (ACL before version)", "/zookeeper/config", 5, codeNoAuth},
		{"wrong version -> BadVersion (checkAndIncVersion)", "/v", 0, codeBadVersion},
		{"version too high -> BadVersion", "/v", 2, codeBadVersion},
		{"version -2 is not 'any' -> BadVersion", "/v", -2, codeBadVersion},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := baseTree(t)
			before := dumpTree(tr)
			st, code := tr.setData(tc.path, []byte("new"), tc.version, zx(50), t5)
			if code != tc.want || st != (zk.Stat{}) {
				t.Errorf("setData(%q, %d) = (%+v, %d), want (zero, %d)", tc.path, tc.version, st, code, tc.want)
			}
			if d := diffDump(before, dumpTree(tr)); d != "" {
				t.Errorf("tree changed:\n%s", d)
			}
			if len(tr.fired) != 0 {
				t.Errorf("fired %v, want none", tr.fired)
			}
		})
	}
}

func TestTreeSetData(t *testing.T) {
	cases := []struct {
		name    string
		path    string
		version int32
	}{
		{"version -1 matches any", "/v", -1},
		{"the exact version matches", "/v", 1},
		{"a node with children: only its own stat changes", "/a", 0},
		{"the root is writable (OPEN_ACL)", "/", -1},
		{"an ephemeral keeps its owner", "/e", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := baseTree(t)
			before := dumpTree(tr)
			st, code := tr.setData(tc.path, []byte("hello"), tc.version, zx(50), t5)
			if code != codeOK {
				t.Fatalf("setData = %d", code)
			}
			// DataTree.setData: data, mtime, mzxid, version (+1); dataLength
			// follows the data; ctime, czxid, cversion, pzxid, the parent and
			// everything else unchanged.
			want := before.Nodes[tc.path]
			want.Data = "hello"
			want.Stat.Version++
			want.Stat.Mzxid = zx(50)
			want.Stat.Mtime = ms(t5)
			want.Stat.DataLength = 5
			if st != want.Stat {
				t.Errorf("returned stat %+v, want %+v", st, want.Stat)
			}
			before.Nodes[tc.path] = want
			if d := diffDump(before, dumpTree(tr)); d != "" {
				t.Errorf("unexpected changes:\n%s", d)
			}
			if wantFired := []firedEvent{{tc.path, zk.EventNodeDataChanged}}; !slices.Equal(events(tr.fired), wantFired) {
				t.Errorf("fired %v, want %v", events(tr.fired), wantFired)
			}
		})
	}
}

// checkAndIncVersion returns currentVersion + 1 in a Java int (3.8).
func TestTreeSetDataVersionWraps(t *testing.T) {
	tr := clientTree(1)
	mustCreate(t, tr, "/v", "", 0, sessB, zx(10), t1)
	tr.nodes["/v"].stat.Version = math.MaxInt32
	st, code := tr.setData("/v", nil, math.MaxInt32, zx(11), t2)
	if code != codeOK || st.Version != math.MinInt32 {
		t.Errorf("setData at MaxInt32 = (version %d, %d), want (%d, 0)", st.Version, code, int32(math.MinInt32))
	}
}

// ---- check --------------------------------------------------------------------

func TestTreeCheck(t *testing.T) {
	cases := []struct {
		name    string
		path    string
		version int32
		want    int32
	}{
		{"version -1 matches any", "/v", -1, codeOK},
		{"the exact version matches", "/v", 1, codeOK},
		{"/zookeeper/config is readable (check needs READ only)", "/zookeeper/config", 0, codeOK},
		{"no '/' -> BadArguments (validatePath)", "x", -1, codeBadArguments},
		{"'/./a' -> BadArguments (validatePath before the lookup)", "/./a", -1, codeBadArguments},
		{"trailing '/' -> BadArguments", "/v/", -1, codeBadArguments},
		{"missing -> NoNode", "/missing", -1, codeNoNode},
		{"missing, wrong version -> NoNode", "/missing", 3, codeNoNode},
		{"wrong version -> BadVersion", "/v", 0, codeBadVersion},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := baseTree(t)
			before := dumpTree(tr)
			if code := tr.check(tc.path, tc.version); code != tc.want {
				t.Errorf("check(%q, %d) = %d, want %d", tc.path, tc.version, code, tc.want)
			}
			// CheckVersionTxn changes nothing and fires nothing.
			if d := diffDump(before, dumpTree(tr)); d != "" {
				t.Errorf("tree changed:\n%s", d)
			}
			if len(tr.fired) != 0 {
				t.Errorf("fired %v, want none", tr.fired)
			}
		})
	}
}

// ---- reads --------------------------------------------------------------------

// Reads run no path validation on the server: a malformed path is not found.
func TestTreeReadsNoValidation(t *testing.T) {
	tr := baseTree(t)
	for _, p := range []string{"x", "", "/a/", "/./a", "/a//b", "/\ue000"} {
		if _, st, code := tr.get(p); code != codeNoNode || st != (zk.Stat{}) {
			t.Errorf("get(%q) = (%+v, %d), want (zero, NoNode)", p, st, code)
		}
		if ch, st, code := tr.children(p); code != codeNoNode || ch != nil || st != (zk.Stat{}) {
			t.Errorf("children(%q) = (%q, %+v, %d), want (nil, zero, NoNode)", p, ch, st, code)
		}
	}
}

// The listing order is unspecified (a Java HashSet's) but fixed for a run:
// the same names under the same salt list the same way, and the listing
// follows creates and deletes.
func TestTreeChildrenListing(t *testing.T) {
	build := func() *Tree {
		tr := clientTree(99)
		mustCreate(t, tr, "/p", "", 0, sessB, zx(1), t1)
		for i := range 12 {
			mustCreate(t, tr, "/p/n-", "", zk.FlagSequence, sessB, zx(int64(2+i)), t1)
		}
		return tr
	}
	a, b := build(), build()
	la, sa, _ := a.children("/p")
	lb, _, _ := b.children("/p")
	if !slices.Equal(la, lb) {
		t.Errorf("same salt, different order: %q vs %q", la, lb)
	}
	if sa != statOf(t, a, "/p") {
		t.Errorf("children stat %+v != get stat %+v", sa, statOf(t, a, "/p"))
	}
	mustDelete(t, a, "/p/n-0000000004", zx(30))
	mustCreate(t, a, "/p/z", "", 0, sessB, zx(31), t1)
	got := sortedChildren(t, a, "/p")
	want := []string{"n-0000000000", "n-0000000001", "n-0000000002", "n-0000000003", "n-0000000005",
		"n-0000000006", "n-0000000007", "n-0000000008", "n-0000000009", "n-0000000010", "n-0000000011", "z"}
	if !slices.Equal(got, want) {
		t.Errorf("children after delete+create = %q, want %q", got, want)
	}
}

// ---- every Stat field through a node's life --------------------------------

func TestTreeStatLifecycle(t *testing.T) {
	tr := clientTree(5)
	check := func(step, path string, want zk.Stat) {
		t.Helper()
		if got := statOf(t, tr, path); got != want {
			t.Errorf("%s: stat(%q) =\n  %+v\nwant\n  %+v", step, path, got, want)
		}
	}

	mustCreate(t, tr, "/a", "hi", 0, sessB, zx(2), t1)
	check("create /a", "/a", zk.Stat{Czxid: zx(2), Mzxid: zx(2), Ctime: ms(t1), Mtime: ms(t1),
		DataLength: 2, Pzxid: zx(2)})
	// The root: one create, two children (zookeeper was never created): 2·1−2 = 0.
	check("create /a", "/", zk.Stat{Cversion: 0, NumChildren: 2, Pzxid: zx(2)})

	st := mustSet(t, tr, "/a", "hello", zx(3), t2)
	want := zk.Stat{Czxid: zx(2), Mzxid: zx(3), Ctime: ms(t1), Mtime: ms(t2),
		Version: 1, DataLength: 5, Pzxid: zx(2)}
	if st != want {
		t.Errorf("setData returned %+v, want %+v", st, want)
	}
	check("setData /a", "/a", want)

	mustCreate(t, tr, "/a/b", "", 0, sessB, zx(4), t3)
	check("create /a/b", "/a", zk.Stat{Czxid: zx(2), Mzxid: zx(3), Ctime: ms(t1), Mtime: ms(t2),
		Version: 1, Cversion: 1, DataLength: 5, NumChildren: 1, Pzxid: zx(4)})
	check("create /a/b", "/a/b", zk.Stat{Czxid: zx(4), Mzxid: zx(4), Ctime: ms(t3), Mtime: ms(t3), Pzxid: zx(4)})

	mustDelete(t, tr, "/a/b", zx(5))
	// cversion counts creates and deletes: 1 + 1.
	check("delete /a/b", "/a", zk.Stat{Czxid: zx(2), Mzxid: zx(3), Ctime: ms(t1), Mtime: ms(t2),
		Version: 1, Cversion: 2, DataLength: 5, NumChildren: 0, Pzxid: zx(5)})

	mustCreate(t, tr, "/a/c", "xyz", zk.FlagEphemeral, sessB, zx(6), t5)
	check("create ephemeral /a/c", "/a", zk.Stat{Czxid: zx(2), Mzxid: zx(3), Ctime: ms(t1), Mtime: ms(t2),
		Version: 1, Cversion: 3, DataLength: 5, NumChildren: 1, Pzxid: zx(6)})
	check("create ephemeral /a/c", "/a/c", zk.Stat{Czxid: zx(6), Mzxid: zx(6), Ctime: ms(t5), Mtime: ms(t5),
		EphemeralOwner: sessB, DataLength: 3, Pzxid: zx(6)})

	mustSet(t, tr, "/a/c", "", zx(7), t5)
	check("setData /a/c empty", "/a/c", zk.Stat{Czxid: zx(6), Mzxid: zx(7), Ctime: ms(t5), Mtime: ms(t5),
		Version: 1, EphemeralOwner: sessB, DataLength: 0, Pzxid: zx(6)})
	// setData of a child leaves the parent alone.
	check("setData /a/c", "/a", zk.Stat{Czxid: zx(2), Mzxid: zx(3), Ctime: ms(t1), Mtime: ms(t2),
		Version: 1, Cversion: 3, DataLength: 5, NumChildren: 1, Pzxid: zx(6)})
	checkInvariants(t, tr)
}

// ---- triggers -----------------------------------------------------------------

func TestTreeTriggers(t *testing.T) {
	cases := []struct {
		name  string
		write func(tr *Tree)
		want  []firedEvent
	}{
		{"create: NodeCreated on the path, then NodeChildrenChanged on the parent (\"\" reported as \"/\")",
			func(tr *Tree) { tr.create("/n", nil, 0, acl, sessB, zx(50), t5) },
			[]firedEvent{{"/n", zk.EventNodeCreated}, {"/", zk.EventNodeChildrenChanged}}},
		{"create sequential: the triggers carry the full name",
			func(tr *Tree) { tr.create("/q/s-", nil, zk.FlagSequence, acl, sessB, zx(50), t5) },
			[]firedEvent{{"/q/s-0000000001", zk.EventNodeCreated}, {"/q", zk.EventNodeChildrenChanged}}},
		{"delete: NodeDeleted on the path, then NodeChildrenChanged on the parent",
			func(tr *Tree) { tr.delete("/a/b", -1, zx(50)) },
			[]firedEvent{{"/a/b", zk.EventNodeDeleted}, {"/a", zk.EventNodeChildrenChanged}}},
		{"setData: NodeDataChanged only",
			func(tr *Tree) { tr.setData("/v", nil, -1, zx(50), t5) },
			[]firedEvent{{"/v", zk.EventNodeDataChanged}}},
		{"check fires nothing",
			func(tr *Tree) { tr.check("/v", -1) },
			nil},
		{"failed writes fire nothing",
			func(tr *Tree) {
				tr.create("/a", nil, 0, acl, sessB, zx(50), t5)
				tr.delete("/a", -1, zx(51))
				tr.setData("/v", nil, 7, zx(52), t5)
			},
			nil},
		{"multi: the triggers of each op, in op order",
			func(tr *Tree) {
				tr.multi([]subOp{
					{op: client.OpCreate, path: "/n", acl: acl},
					{op: client.OpSetData, path: "/n", version: -1},
					{op: client.OpCheck, path: "/n", version: 1},
					{op: client.OpDelete, path: "/n", version: -1},
					{op: client.OpDelete, path: "/a/b", version: -1},
				}, sessB, zx(50), t5)
			},
			[]firedEvent{{"/n", zk.EventNodeCreated}, {"/", zk.EventNodeChildrenChanged},
				{"/n", zk.EventNodeDataChanged},
				{"/n", zk.EventNodeDeleted}, {"/", zk.EventNodeChildrenChanged},
				{"/a/b", zk.EventNodeDeleted}, {"/a", zk.EventNodeChildrenChanged}}},
		{"failed multi fires nothing, and keeps what earlier writes fired",
			func(tr *Tree) {
				tr.create("/pre", nil, 0, acl, sessB, zx(49), t5)
				tr.multi([]subOp{
					{op: client.OpCreate, path: "/n", acl: acl},
					{op: client.OpSetData, path: "/v", version: -1},
					{op: client.OpDelete, path: "/a", version: -1}, // NotEmpty
				}, sessB, zx(50), t5)
			},
			[]firedEvent{{"/pre", zk.EventNodeCreated}, {"/", zk.EventNodeChildrenChanged}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := baseTree(t)
			tc.write(tr)
			if !slices.Equal(events(tr.fired), tc.want) {
				t.Errorf("fired %v, want %v", events(tr.fired), tc.want)
			}
		})
	}
}

// ---- multi --------------------------------------------------------------------

func TestTreeMulti(t *testing.T) {
	tr := baseTree(t)
	ops := []subOp{
		{op: client.OpCreate, path: "/m", data: []byte("m"), acl: acl},
		{op: client.OpCreate, path: "/m/c", acl: acl}, // sees /m from op 0
		{op: client.OpCreate, path: "/q/s-", flags: zk.FlagSequence, acl: acl},
		{op: client.OpCreate, path: "/q/s-", flags: zk.FlagSequence, acl: acl}, // consecutive suffix
		{op: client.OpCreate, path: "/q/x", acl: acl},
		{op: client.OpCreate, path: "/q/s-", flags: zk.FlagEphemeralSequential, acl: acl}, // the plain create counted
		{op: client.OpSetData, path: "/m/c", data: []byte("cc"), version: 0},
		{op: client.OpCheck, path: "/m/c", version: 1}, // sees the setData
		{op: client.OpDelete, path: "/v", version: 1},
		{op: client.OpCreate, path: "/v", flags: zk.FlagEphemeral, acl: acl}, // sees the delete
	}
	res, code := tr.multi(ops, sessB, zx(50), t5)
	if code != codeOK {
		t.Fatalf("multi = %d, results %+v", code, res)
	}
	// One txn: one zxid and one time for every op.
	setStat := zk.Stat{Czxid: zx(50), Mzxid: zx(50), Ctime: ms(t5), Mtime: ms(t5), Version: 1, DataLength: 2, Pzxid: zx(50)}
	want := []subResult{
		{op: client.OpCreate, path: "/m"},
		{op: client.OpCreate, path: "/m/c"},
		{op: client.OpCreate, path: "/q/s-0000000001"},
		{op: client.OpCreate, path: "/q/s-0000000002"},
		{op: client.OpCreate, path: "/q/x"},
		{op: client.OpCreate, path: "/q/s-0000000004"},
		{op: client.OpSetData, stat: setStat},
		{op: client.OpCheck},
		{op: client.OpDelete},
		{op: client.OpCreate, path: "/v"},
	}
	if !slices.Equal(res, want) {
		t.Errorf("results\n  %+v\nwant\n  %+v", res, want)
	}
	for p, st := range map[string]zk.Stat{
		"/m":   {Czxid: zx(50), Mzxid: zx(50), Ctime: ms(t5), Mtime: ms(t5), Cversion: 1, DataLength: 1, NumChildren: 1, Pzxid: zx(50)},
		"/m/c": setStat,
		"/v":   {Czxid: zx(50), Mzxid: zx(50), Ctime: ms(t5), Mtime: ms(t5), EphemeralOwner: sessB, Pzxid: zx(50)},
		"/q/s-0000000004": {Czxid: zx(50), Mzxid: zx(50), Ctime: ms(t5), Mtime: ms(t5),
			EphemeralOwner: sessB, Pzxid: zx(50)},
		// /q: 5 creates, 5 children.
		"/q": {Czxid: zx(15), Mzxid: zx(15), Ctime: ms(t1), Mtime: ms(t1), Cversion: 5, NumChildren: 5, Pzxid: zx(50)},
	} {
		if got := statOf(t, tr, p); got != st {
			t.Errorf("stat(%q) = %+v, want %+v", p, got, st)
		}
	}
	if got := tr.sessionEphemerals(sessB); !slices.Equal(got, []string{"/q/s-0000000004", "/v"}) {
		t.Errorf("sessionEphemerals = %q", got)
	}
	checkInvariants(t, tr)
}

func TestTreeMultiEmpty(t *testing.T) {
	tr := baseTree(t)
	res, code := tr.multi(nil, sessB, zx(50), t5)
	if code != codeOK || len(res) != 0 {
		t.Errorf("empty multi = (%+v, %d), want ([], 0)", res, code)
	}
}

func TestTreeMultiRollback(t *testing.T) {
	R := codeRuntimeInconsistency
	cases := []struct {
		name  string
		ops   []subOp
		codes []int32 // per op: 0 before the failure, its error, -2 after
		after func(t *testing.T, tr *Tree)
	}{
		{"NodeExists at op 1: [create /n, create /n, setData /n] -> 0, NodeExists, -2",
			[]subOp{{op: client.OpCreate, path: "/n", acl: acl}, {op: client.OpCreate, path: "/n", acl: acl}, {op: client.OpSetData, path: "/n", version: -1}},
			[]int32{0, codeNodeExists, R}, nil},
		{"ops see earlier ops: [create /n, create /n/c, check /n version 5] -> 0, 0, BadVersion",
			[]subOp{{op: client.OpCreate, path: "/n", acl: acl}, {op: client.OpCreate, path: "/n/c", acl: acl}, {op: client.OpCheck, path: "/n", version: 5}},
			[]int32{0, 0, codeBadVersion}, nil},
		{"a later op sees a delete: [delete /v, create /v/x] -> 0, NoNode",
			[]subOp{{op: client.OpDelete, path: "/v", version: 1}, {op: client.OpCreate, path: "/v/x", acl: acl}},
			[]int32{0, codeNoNode}, nil},
		{"a later op sees a setData's version: [setData /v v1, setData /v v1] -> 0, BadVersion",
			[]subOp{{op: client.OpSetData, path: "/v", version: 1}, {op: client.OpSetData, path: "/v", version: 1}},
			[]int32{0, codeBadVersion}, nil},
		{"two sequential creates then a failure: the parent's counter is restored",
			[]subOp{{op: client.OpCreate, path: "/q/s-", flags: zk.FlagSequence, acl: acl},
				{op: client.OpCreate, path: "/q/s-", flags: zk.FlagSequence, acl: acl},
				{op: client.OpCreate, path: "/missing/z", acl: acl}},
			[]int32{0, 0, codeNoNode},
			func(t *testing.T, tr *Tree) {
				if p := mustCreate(t, tr, "/q/s-", "", zk.FlagSequence, sessB, zx(60), t5); p != "/q/s-0000000001" {
					t.Errorf("next sequential create after rollback = %q, want /q/s-0000000001", p)
				}
			}},
		{"an ephemeral deleted then rolled back is its session's again",
			[]subOp{{op: client.OpDelete, path: "/e", version: -1}, {op: client.OpCheck, path: "/e", version: -1}},
			[]int32{0, codeNoNode}, nil},
		{"an ephemeral created then rolled back is in no session's ephemerals",
			[]subOp{{op: client.OpCreate, path: "/f", flags: zk.FlagEphemeral, acl: acl}, {op: client.OpCreate, path: "/f", acl: acl}},
			[]int32{0, codeNodeExists}, nil},
		{"create then delete then fail: [create /n, delete /n, check /n] -> 0, 0, NoNode",
			[]subOp{{op: client.OpCreate, path: "/n", acl: acl}, {op: client.OpDelete, path: "/n", version: -1}, {op: client.OpCheck, path: "/n", version: -1}},
			[]int32{0, 0, codeNoNode}, nil},
		{"delete then recreate then fail: the original /v comes back with its own stat and data",
			[]subOp{{op: client.OpDelete, path: "/v", version: 1}, {op: client.OpCreate, path: "/v", data: []byte("new"), acl: acl}, {op: client.OpCheck, path: "/v", version: 1}},
			[]int32{0, 0, codeBadVersion}, nil},
		{"first op fails: [check /missing, create /x, delete /v] -> NoNode, -2, -2",
			[]subOp{{op: client.OpCheck, path: "/missing", version: -1}, {op: client.OpCreate, path: "/x", acl: acl}, {op: client.OpDelete, path: "/v", version: -1}},
			[]int32{codeNoNode, R, R}, nil},
		{"a subtree built and torn down, then a failure: every stat of /a restored",
			[]subOp{{op: client.OpCreate, path: "/a/d", acl: acl}, {op: client.OpSetData, path: "/a", data: []byte("zz"), version: 0},
				{op: client.OpDelete, path: "/a/b", version: -1}, {op: client.OpDelete, path: "/a/d", version: -1},
				{op: client.OpDelete, path: "/a", version: 1}, {op: client.OpCreate, path: "/a", acl: acl},
				{op: client.OpCreate, path: "/a/b", acl: acl}, {op: client.OpCheck, path: "/a", version: 1}},
			[]int32{0, 0, 0, 0, 0, 0, 0, codeBadVersion}, nil},
		{"NotEmpty: [create /a/d, delete /a] -> 0, NotEmpty",
			[]subOp{{op: client.OpCreate, path: "/a/d", acl: acl}, {op: client.OpDelete, path: "/a", version: -1}},
			[]int32{0, codeNotEmpty}, nil},
		{"BadArguments for a malformed path: [create /n, create /n/] -> 0, BadArguments",
			[]subOp{{op: client.OpCreate, path: "/n", acl: acl}, {op: client.OpCreate, path: "/n/", acl: acl}},
			[]int32{0, codeBadArguments}, nil},
		{"invalid flags: [create /n, create /o flags 7] -> 0, BadArguments (CreateMode.fromFlag)",
			[]subOp{{op: client.OpCreate, path: "/n", acl: acl}, {op: client.OpCreate, path: "/o", flags: 7, acl: acl}},
			[]int32{0, codeBadArguments}, nil},
		{"NoChildrenForEphemerals: [setData /e, create /e/x] -> 0, NoChildrenForEphemerals",
			[]subOp{{op: client.OpSetData, path: "/e", version: -1}, {op: client.OpCreate, path: "/e/x", acl: acl}},
			[]int32{0, codeNoChildrenForEphemeral}, nil},
		{"NoAuth: [create /n, setData /zookeeper/config] -> 0, NoAuth",
			[]subOp{{op: client.OpCreate, path: "/n", acl: acl}, {op: client.OpSetData, path: "/zookeeper/config", version: -1}},
			[]int32{0, codeNoAuth}, nil},
		{"InvalidACL: [delete /a/b, create /n with no ACL] -> 0, InvalidACL",
			[]subOp{{op: client.OpDelete, path: "/a/b", version: -1}, {op: client.OpCreate, path: "/n"}},
			[]int32{0, codeInvalidACL}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := baseTree(t)
			before := dumpTree(tr)
			res, code := tr.multi(tc.ops, sessB, zx(50), t5)
			failed := slices.IndexFunc(tc.codes, func(c int32) bool { return c != codeOK })
			if code != tc.codes[failed] {
				t.Errorf("multi code %d, want %d", code, tc.codes[failed])
			}
			if len(res) != len(tc.ops) {
				t.Fatalf("%d results for %d ops", len(res), len(tc.ops))
			}
			for i, r := range res {
				if r.code != tc.codes[i] || r.path != "" || r.stat != (zk.Stat{}) {
					t.Errorf("result %d = {code %d path %q stat %+v}, want {code %d, no path, zero stat}",
						i, r.code, r.path, r.stat, tc.codes[i])
				}
			}
			// All or nothing: every node, stat, sequence counter and
			// ephemeral is as it was, and no watch fires.
			if d := diffDump(before, dumpTree(tr)); d != "" {
				t.Errorf("rollback left changes:\n%s", d)
			}
			if len(tr.fired) != 0 {
				t.Errorf("fired %v, want none", tr.fired)
			}
			checkInvariants(t, tr)
			if tc.after != nil {
				tc.after(t, tr)
			}
		})
	}
}

// A multi op with an empty path is refused like a plain create/delete/
// setData/check with one: BadArguments (validatePathForCreate,
// getParentPathAndValidate and validatePath all refuse ""), and the multi
// fails as a whole.
func TestTreeMultiEmptyPath(t *testing.T) {
	for _, op := range []client.Op{client.OpCreate, client.OpDelete, client.OpSetData, client.OpCheck} {
		t.Run(op.String(), func(t *testing.T) {
			tr := baseTree(t)
			before := dumpTree(tr)
			var res []subResult
			var code int32
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("multi panicked: %v", r)
					}
				}()
				res, code = tr.multi([]subOp{
					{op: client.OpCreate, path: "/n", acl: acl},
					{op: op, path: "", acl: acl, version: -1},
				}, sessB, zx(50), t5)
			}()
			if code != codeBadArguments || len(res) != 2 || res[0].code != 0 || res[1].code != codeBadArguments {
				t.Errorf("multi = (%+v, %d), want codes [0, BadArguments]", res, code)
			}
			if d := diffDump(before, dumpTree(tr)); d != "" {
				t.Errorf("rollback left changes:\n%s", d)
			}
		})
	}
}

// ---- end to end, through a simulated go-zookeeper/zk client -----------------

// expectErr reports unless err is exactly want (go-zookeeper/zk returns its
// sentinel values unwrapped).
func expectErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if err != want {
		t.Errorf("%s: err = %v, want %v", what, err, want)
	}
}

func isZeroStat(st *zk.Stat) bool { return st != nil && *st == zk.Stat{} }

func TestClientFreshTree(t *testing.T) {
	run(t, Config{Seed: 1}, func(ctx context.Context, c client.Conn) error {
		ch, st, err := c.Children(ctx, "/")
		if err != nil || !slices.Equal(ch, []string{"zookeeper"}) || st == nil || *st != (zk.Stat{Cversion: -1, NumChildren: 1}) {
			t.Errorf(`Children("/") = (%q, %+v, %v), want (["zookeeper"], {Cversion:-1 NumChildren:1}, nil)`, ch, st, err)
		}
		return nil
	})
}

func TestClientReturnShapes(t *testing.T) {
	run(t, Config{Seed: 2}, func(ctx context.Context, c client.Conn) error {
		// Exists: ErrNoNode becomes (false, &res.Stat, nil): a non-nil zero Stat.
		ok, st, err := c.Exists(ctx, "/missing")
		if ok || !isZeroStat(st) || err != nil {
			t.Errorf("Exists(missing) = (%v, %+v, %v), want (false, &Stat{}, nil)", ok, st, err)
		}
		// ExistsW on a missing node: an exist watch, the same shape.
		ok, st, w, err := c.ExistsW(ctx, "/missing")
		if ok || !isZeroStat(st) || w == nil || err != nil {
			t.Errorf("ExistsW(missing) = (%v, %+v, %v, %v), want (false, &Stat{}, watch, nil)", ok, st, w, err)
		}
		// Get/Children return (nil, &res.Stat, err); GetW/ChildrenW return
		// (nil, nil, nil, err) on any error.
		data, st, err := c.Get(ctx, "/missing")
		if data != nil || !isZeroStat(st) || err != zk.ErrNoNode {
			t.Errorf("Get(missing) = (%q, %+v, %v), want (nil, &Stat{}, ErrNoNode)", data, st, err)
		}
		data, st, w, err = c.GetW(ctx, "/missing")
		if data != nil || st != nil || w != nil || err != zk.ErrNoNode {
			t.Errorf("GetW(missing) = (%q, %+v, %v, %v), want (nil, nil, nil, ErrNoNode)", data, st, w, err)
		}
		ch, st, err := c.Children(ctx, "/missing")
		if ch != nil || !isZeroStat(st) || err != zk.ErrNoNode {
			t.Errorf("Children(missing) = (%q, %+v, %v), want (nil, &Stat{}, ErrNoNode)", ch, st, err)
		}
		ch, st, w, err = c.ChildrenW(ctx, "/missing")
		if ch != nil || st != nil || w != nil || err != zk.ErrNoNode {
			t.Errorf("ChildrenW(missing) = (%q, %+v, %v, %v), want (nil, nil, nil, ErrNoNode)", ch, st, w, err)
		}

		before := c.Now().UnixMilli()
		p, err := c.Create(ctx, "/a", []byte("v1"), 0, acl)
		if p != "/a" || err != nil {
			t.Errorf("Create(/a) = (%q, %v)", p, err)
		}
		after := c.Now().UnixMilli()
		ok, st, err = c.Exists(ctx, "/a")
		if !ok || err != nil || st == nil {
			return fmt.Errorf("Exists(/a) = (%v, %+v, %v)", ok, st, err)
		}
		created := *st
		if created.Ctime != created.Mtime || created.Ctime < before || created.Ctime > after ||
			created.Czxid != created.Mzxid || created.Czxid != created.Pzxid || created.DataLength != 2 ||
			created.Version != 0 || created.Cversion != 0 || created.EphemeralOwner != 0 {
			t.Errorf("stat of a new /a = %+v (created between %d and %d ms)", created, before, after)
		}

		// Set returns (&res.Stat, err): a non-nil zero Stat on a server error.
		st, err = c.Set(ctx, "/a", []byte("x"), 5)
		if !isZeroStat(st) || err != zk.ErrBadVersion {
			t.Errorf("Set(bad version) = (%+v, %v), want (&Stat{}, ErrBadVersion)", st, err)
		}
		st, err = c.Set(ctx, "/missing", nil, -1)
		if !isZeroStat(st) || err != zk.ErrNoNode {
			t.Errorf("Set(missing) = (%+v, %v), want (&Stat{}, ErrNoNode)", st, err)
		}
		st, err = c.Set(ctx, "/zookeeper/config", nil, -1)
		if !isZeroStat(st) || err != zk.ErrNoAuth {
			t.Errorf("Set(/zookeeper/config) = (%+v, %v), want (&Stat{}, ErrNoAuth)", st, err)
		}
		st, err = c.Set(ctx, "/a", []byte("v22"), 0)
		if err != nil || st == nil || st.Version != 1 || st.DataLength != 3 || st.Czxid != created.Czxid ||
			st.Mzxid <= created.Mzxid || st.Ctime != created.Ctime {
			t.Errorf("Set(/a, 0) = (%+v, %v)", st, err)
		}
		if _, now, _ := c.Exists(ctx, "/a"); st != nil && (now == nil || *now != *st) {
			t.Errorf("Set returned %+v, Exists then says %+v", st, now)
		}

		// Create answers ("", err) on any error.
		for _, tc := range []struct {
			path  string
			flags int32
			acl   []zk.ACL
			want  error
		}{
			{"/a", 0, acl, zk.ErrNodeExists},
			{"/m/x", 0, acl, zk.ErrNoNode},
			{"/n", 0, nil, zk.ErrInvalidACL},
			{"/zookeeper/config/x", 0, acl, zk.ErrNoAuth},
		} {
			p, err := c.Create(ctx, tc.path, nil, tc.flags, tc.acl)
			if p != "" || err != tc.want {
				t.Errorf("Create(%q) = (%q, %v), want (\"\", %v)", tc.path, p, err, tc.want)
			}
		}
		expectErr(t, "Delete(/a, 7)", c.Delete(ctx, "/a", 7), zk.ErrBadVersion)
		expectErr(t, "Delete(missing)", c.Delete(ctx, "/missing", -1), zk.ErrNoNode)
		expectErr(t, "Delete(/zookeeper)", c.Delete(ctx, "/zookeeper", -1), zk.ErrBadArguments)
		must(c.Delete(ctx, "/a", 1))

		// Ephemerals belong to the session.
		if _, err := c.Create(ctx, "/e", nil, zk.FlagEphemeral, acl); err != nil {
			return err
		}
		if _, st, _ := c.Exists(ctx, "/e"); st == nil || st.EphemeralOwner != c.SessionID() || st.EphemeralOwner == 0 {
			t.Errorf("ephemeralOwner of /e = %+v, want session %#x", st, c.SessionID())
		}
		if p, err := c.Create(ctx, "/e/x", nil, 0, acl); p != "" || err != zk.ErrNoChildrenForEphemerals {
			t.Errorf("Create(/e/x) = (%q, %v), want ErrNoChildrenForEphemerals", p, err)
		}
		if p, err := c.Create(ctx, "/s/", nil, zk.FlagSequence, acl); p != "" || err != zk.ErrNoNode {
			t.Errorf("Create(/s/ sequential) = (%q, %v), want NoNode", p, err)
		}
		must2(c.Create(ctx, "/s", nil, 0, acl))
		if p, err := c.Create(ctx, "/s/", nil, zk.FlagSequence, acl); p != "/s/0000000000" || err != nil {
			t.Errorf("Create(/s/ sequential) = (%q, %v), want /s/0000000000", p, err)
		}
		return nil
	})
}

func must2(_ string, err error) { must(err) }

func TestClientMulti(t *testing.T) {
	run(t, Config{Seed: 3}, func(ctx context.Context, c client.Conn) error {
		must2(c.Create(ctx, "/v", []byte("v"), 0, acl))
		res, err := c.Multi(ctx,
			&zk.CreateRequest{Path: "/m", Data: []byte("m"), Acl: acl},
			&zk.CreateRequest{Path: "/m/s-", Acl: acl, Flags: zk.FlagSequence},
			&zk.CreateRequest{Path: "/m/s-", Acl: acl, Flags: zk.FlagSequence},
			&zk.SetDataRequest{Path: "/v", Data: []byte("vv"), Version: 0},
			&zk.CheckVersionRequest{Path: "/v", Version: 1},
			&zk.DeleteRequest{Path: "/m/s-0000000000", Version: -1},
		)
		if err != nil || len(res) != 6 {
			return fmt.Errorf("Multi = (%+v, %v)", res, err)
		}
		// Success: create -> String, setData -> Stat, delete/check -> {}.
		for i, want := range []string{"/m", "/m/s-0000000000", "/m/s-0000000001"} {
			if res[i].String != want || res[i].Stat != nil || res[i].Error != nil {
				t.Errorf("result %d = %+v, want {String: %q}", i, res[i], want)
			}
		}
		_, vst, _ := c.Exists(ctx, "/v")
		if res[3].Stat == nil || vst == nil || *res[3].Stat != *vst || res[3].Stat.Version != 1 || res[3].String != "" || res[3].Error != nil {
			t.Errorf("setData result = %+v, want {Stat: %+v}", res[3], vst)
		}
		for i := 4; i < 6; i++ {
			if res[i] != (zk.MultiResponse{}) {
				t.Errorf("result %d = %+v, want {}", i, res[i])
			}
		}
		// One zxid for the whole multi.
		_, m, _ := c.Exists(ctx, "/m")
		_, s1, _ := c.Exists(ctx, "/m/s-0000000001")
		if m == nil || s1 == nil || m.Czxid != s1.Czxid || m.Czxid != vst.Mzxid || m.Pzxid != m.Czxid {
			t.Errorf("multi zxids: /m %+v, /m/s-1 %+v, /v %+v", m, s1, vst)
		}

		// Failure: every result is an ErrorResult: 0 before, the error, -2 after.
		res, err = c.Multi(ctx,
			&zk.CreateRequest{Path: "/f", Acl: acl},
			&zk.CreateRequest{Path: "/f", Acl: acl},
			&zk.SetDataRequest{Path: "/f", Version: -1},
			&zk.DeleteRequest{Path: "/v", Version: -1},
		)
		if err != zk.ErrNodeExists {
			t.Errorf("failed Multi err = %v, want ErrNodeExists (the first op error)", err)
		}
		if len(res) != 4 {
			return fmt.Errorf("failed Multi: %d results, want 4", len(res))
		}
		if res[0] != (zk.MultiResponse{}) {
			t.Errorf("result 0 = %+v, want {} (ok)", res[0])
		}
		if res[1].Error != zk.ErrNodeExists || res[1].Stat != nil || res[1].String != "" {
			t.Errorf("result 1 = %+v, want {Error: ErrNodeExists}", res[1])
		}
		for i := 2; i < 4; i++ {
			if res[i].Error == nil || res[i].Error.Error() != "unknown error: -2" || res[i].Stat != nil || res[i].String != "" {
				t.Errorf("result %d = %+v, want {Error: unknown error: -2}", i, res[i])
			}
			if errors.Is(res[i].Error, zk.ErrUnknown) || errors.Is(res[i].Error, zk.ErrAPIError) {
				t.Errorf("result %d error %v should be no sentinel", i, res[i].Error)
			}
		}
		if ok, _, _ := c.Exists(ctx, "/f"); ok {
			t.Errorf("/f exists after a failed multi")
		}
		if ok, _, _ := c.Exists(ctx, "/v"); !ok {
			t.Errorf("/v is gone after a failed multi")
		}

		// Multi checks no path on the client: the server answers.
		res, err = c.Multi(ctx, &zk.CheckVersionRequest{Path: "/./a", Version: -1})
		if err != zk.ErrBadArguments || len(res) != 1 || res[0].Error != zk.ErrBadArguments {
			t.Errorf("Multi(check /./a) = (%+v, %v), want ([{ErrBadArguments}], ErrBadArguments)", res, err)
		}
		// An op of another type is refused before anything is sent.
		res, err = c.Multi(ctx, &zk.PathVersionRequest{Path: "/v", Version: -1})
		if res != nil || err == nil || err.Error() != "unknown operation type *zk.PathVersionRequest" {
			t.Errorf("Multi(PathVersionRequest) = (%+v, %v)", res, err)
		}
		return nil
	})
}

func TestClientCreateFlags(t *testing.T) {
	cases := []struct {
		name  string
		path  string
		flags int32
		check func(t *testing.T, p string, err error)
	}{
		{"TTL flag 5 -> ErrInvalidFlags (Create with TTL flag disallowed: %w)", "/t", zk.FlagTTL,
			func(t *testing.T, p string, err error) {
				if p != "" || !errors.Is(err, zk.ErrInvalidFlags) {
					t.Errorf("= (%q, %v), want errors.Is ErrInvalidFlags", p, err)
				}
			}},
		{"TTL sequential flag 6 -> ErrInvalidFlags", "/t-", zk.FlagPersistentSequentialWithTTL,
			func(t *testing.T, p string, err error) {
				if p != "" || !errors.Is(err, zk.ErrInvalidFlags) {
					t.Errorf("= (%q, %v), want errors.Is ErrInvalidFlags", p, err)
				}
			}},
		{"flag 7 -> parseCreateMode's plain \"invalid flag value: [7]\" (no sentinel)", "/t", 7,
			func(t *testing.T, p string, err error) {
				if p != "" || err == nil || err.Error() != "invalid flag value: [7]" || errors.Is(err, zk.ErrInvalidFlags) {
					t.Errorf("= (%q, %v), want the plain error \"invalid flag value: [7]\"", p, err)
				}
			}},
		{"container flag 4 -> a plain node (the create opcode decides; CreateContainer makes containers)", "/t", zk.FlagContainer,
			func(t *testing.T, p string, err error) {
				if p != "/t" || err != nil {
					t.Errorf("= (%q, %v), want (/t, nil)", p, err)
				}
			}},
		{"TTL flag 5 with a bad path -> ErrInvalidPath (validatePath runs before the isTTL check)", "t", zk.FlagTTL,
			func(t *testing.T, p string, err error) {
				if p != "" || err != zk.ErrInvalidPath {
					t.Errorf("= (%q, %v), want ErrInvalidPath", p, err)
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run(t, Config{Seed: 4}, func(ctx context.Context, c client.Conn) error {
				p, err := c.Create(ctx, tc.path, nil, tc.flags, acl)
				tc.check(t, p, err)
				return nil
			})
		})
	}
}

func TestClientPathValidation(t *testing.T) {
	run(t, Config{Seed: 5}, func(ctx context.Context, c client.Conn) error {
		must2(c.Create(ctx, "/a", nil, 0, acl))
		// Refused by go-zookeeper/zk's validatePath before sending: ErrInvalidPath,
		// with nil values.
		for _, p := range []string{"", "a", "/a/", "/a//b", "/a/.", "/a/..", "/../a", "/a\x00", "/a\x01", "/a\u0085", "/\uf000", "/\ufff0", "/a\xff"} {
			if got, err := c.Create(ctx, p, nil, 0, acl); got != "" || err != zk.ErrInvalidPath {
				t.Errorf("Create(%q) = (%q, %v), want ErrInvalidPath", p, got, err)
			}
			if ok, st, err := c.Exists(ctx, p); ok || st != nil || err != zk.ErrInvalidPath {
				t.Errorf("Exists(%q) = (%v, %v, %v), want (false, nil, ErrInvalidPath)", p, ok, st, err)
			}
			if d, st, err := c.Get(ctx, p); d != nil || st != nil || err != zk.ErrInvalidPath {
				t.Errorf("Get(%q) = (%q, %v, %v), want (nil, nil, ErrInvalidPath)", p, d, st, err)
			}
			if st, err := c.Set(ctx, p, nil, -1); st != nil || err != zk.ErrInvalidPath {
				t.Errorf("Set(%q) = (%v, %v), want (nil, ErrInvalidPath)", p, st, err)
			}
			if ch, st, err := c.Children(ctx, p); ch != nil || st != nil || err != zk.ErrInvalidPath {
				t.Errorf("Children(%q) = (%q, %v, %v), want (nil, nil, ErrInvalidPath)", p, ch, st, err)
			}
			expectErr(t, fmt.Sprintf("Delete(%q)", p), c.Delete(ctx, p, -1), zk.ErrInvalidPath)
			if s, err := c.Sync(ctx, p); s != "" || err != zk.ErrInvalidPath {
				t.Errorf("Sync(%q) = (%q, %v), want ErrInvalidPath", p, s, err)
			}
		}
		// A trailing '/' is allowed for a sequential create (validatePath with
		// isSequential).
		if p, err := c.Create(ctx, "/a/", nil, zk.FlagSequence, acl); p != "/a/0000000000" || err != nil {
			t.Errorf("Create(/a/ sequential) = (%q, %v)", p, err)
		}

		// "/./a" gets past the client (its '.' check looks at the wrong
		// rune). The server then answers as its own checks go: setData and
		// check validate the path first (BadArguments); create looks up the
		// parent "/." first (NoNode, PrepRequestProcessor step 5, before
		// validatePath at step 8); delete looks up the parent (NoNode);
		// reads do not validate (not found).
		if p, err := c.Create(ctx, "/./a", nil, 0, acl); p != "" || err != zk.ErrNoNode {
			t.Errorf("Create(/./a) = (%q, %v), want (\"\", ErrNoNode): the parent \"/.\" is looked up before validatePath", p, err)
		}
		if st, err := c.Set(ctx, "/./a", nil, -1); !isZeroStat(st) || err != zk.ErrBadArguments {
			t.Errorf("Set(/./a) = (%v, %v), want (&Stat{}, ErrBadArguments)", st, err)
		}
		expectErr(t, "Delete(/./a)", c.Delete(ctx, "/./a", -1), zk.ErrNoNode)
		if ok, st, err := c.Exists(ctx, "/./a"); ok || !isZeroStat(st) || err != nil {
			t.Errorf("Exists(/./a) = (%v, %v, %v), want (false, &Stat{}, nil)", ok, st, err)
		}
		if _, _, err := c.Get(ctx, "/./a"); err != zk.ErrNoNode {
			t.Errorf("Get(/./a) err = %v, want ErrNoNode", err)
		}
		// Characters the client allows and the server refuses: the parent
		// "/" exists, so create reaches validatePath -> BadArguments.
		for _, p := range []string{"/\ue000", "/\uefff", "/\uffff", "/\U0001F600", "/a/\ud7ff\U00010000"} {
			if got, err := c.Create(ctx, p, nil, 0, acl); got != "" || err != zk.ErrBadArguments {
				t.Errorf("Create(%q) = (%q, %v), want ErrBadArguments from the server", p, got, err)
			}
			if st, err := c.Set(ctx, p, nil, -1); !isZeroStat(st) || err != zk.ErrBadArguments {
				t.Errorf("Set(%q) = (%v, %v), want ErrBadArguments from the server", p, st, err)
			}
		}
		// Allowed by both.
		for _, p := range []string{"/a b", "/.a", "/...", "/a.", "/\ud7ff", "/\uffef", "/zookeeper2"} {
			if got, err := c.Create(ctx, p, nil, 0, acl); got != p || err != nil {
				t.Errorf("Create(%q) = (%q, %v), want success", p, got, err)
			}
		}
		return nil
	})
}

// Every write takes a zxid before its checks run, and a failed one is logged
// as an error txn: so after a failed write the next successful create's czxid
// is 2 more than the previous one. Reads, and calls the client refuses, take
// none.
func TestClientFailedWritesUseZxid(t *testing.T) {
	run(t, Config{Seed: 6}, func(ctx context.Context, c client.Conn) error {
		must2(c.Create(ctx, "/v", nil, 0, acl))
		must2(c.Create(ctx, "/p", nil, 0, acl))
		must2(c.Create(ctx, "/p/c", nil, 0, acl))
		n := 0
		czxid := func() int64 {
			n++
			p := fmt.Sprintf("/z%d", n)
			must2(c.Create(ctx, p, nil, 0, acl))
			_, st, err := c.Exists(ctx, p)
			must(err)
			return st.Czxid
		}
		steps := []struct {
			name  string
			do    func() error
			delta int64
		}{
			{"nothing in between", func() error { return nil }, 1},
			{"create NodeExists", func() error { return errOnly(c.Create(ctx, "/v", nil, 0, acl)) }, 2},
			{"create NoNode", func() error { return errOnly(c.Create(ctx, "/x/y", nil, 0, acl)) }, 2},
			{"create InvalidACL", func() error { return errOnly(c.Create(ctx, "/x", nil, 0, nil)) }, 2},
			{"create BadArguments (server-side path check)", func() error { return errOnly(c.Create(ctx, "/\ue000", nil, 0, acl)) }, 2},
			{"delete NoNode", func() error { return c.Delete(ctx, "/missing", -1) }, 2},
			{"delete NotEmpty", func() error { return c.Delete(ctx, "/p", -1) }, 2},
			{"delete BadArguments", func() error { return c.Delete(ctx, "/zookeeper", -1) }, 2},
			{"setData BadVersion", func() error { _, err := c.Set(ctx, "/v", nil, 9); return err }, 2},
			{"setData NoAuth", func() error { _, err := c.Set(ctx, "/zookeeper/config", nil, -1); return err }, 2},
			{"failed multi (one zxid for the whole multi)", func() error {
				_, err := c.Multi(ctx, &zk.CreateRequest{Path: "/w", Acl: acl}, &zk.CreateRequest{Path: "/w", Acl: acl})
				return err
			}, 2},
			{"two failed writes", func() error {
				c.Delete(ctx, "/missing", -1)
				return c.Delete(ctx, "/missing", -1)
			}, 3},
			{"reads take none", func() error {
				c.Exists(ctx, "/missing")
				c.Get(ctx, "/missing")
				c.Children(ctx, "/")
				_, err := c.Sync(ctx, "/")
				return err
			}, 1},
			{"calls the client refuses are never sent", func() error {
				c.Create(ctx, "bad", nil, 0, acl)
				c.Create(ctx, "/t", nil, zk.FlagTTL, acl)
				c.Set(ctx, "/a/", nil, -1)
				return c.Delete(ctx, "", -1)
			}, 1},
		}
		prev := czxid()
		for _, s := range steps {
			if err := s.do(); err == nil && s.delta != 1 {
				t.Errorf("%s: the write succeeded", s.name)
			}
			got := czxid()
			if got-prev != s.delta {
				t.Errorf("%s: czxid went from %#x to %#x, want +%d", s.name, prev, got, s.delta)
			}
			prev = got
		}
		return nil
	})
}

func errOnly(_ string, err error) error { return err }

// A listing handed out is a snapshot: creates and deletes after it (the
// next writes of the lock directory its reader waits on) leave it as it was,
// and the tree lists the change.
func TestChildrenSnapshotUnchangedByLaterWrites(t *testing.T) {
	tr := clientTree(7)
	mustCreate(t, tr, "/d", "", 0, 0, 1, 0)
	for i := 0; i < 5; i++ {
		mustCreate(t, tr, "/d/n-", "", zk.FlagSequence, 0, int64(2+i), 0)
	}
	before, _, _ := tr.children("/d")
	kept := slices.Clone(before)
	again, _, _ := tr.children("/d")
	if &again[0] != &before[0] {
		t.Errorf("two listings with no write between them are separate copies")
	}
	mustCreate(t, tr, "/d/n-", "", zk.FlagSequence, 0, 8, 0)
	if code := tr.delete("/d/n-0000000002", -1, 99); code != codeOK {
		t.Fatalf("delete: code %d", code)
	}
	if !slices.Equal(before, kept) {
		t.Errorf("a listing changed after it was handed out: %q, was %q", before, kept)
	}
	after := sortedChildren(t, tr, "/d")
	want := []string{"n-0000000000", "n-0000000001", "n-0000000003", "n-0000000004", "n-0000000005"}
	if !slices.Equal(after, want) {
		t.Errorf("children after the writes = %q, want %q", after, want)
	}
}

// firedEvent is a trigger without the ACL it carries, to compare.
type firedEvent struct {
	path string
	typ  zk.EventType
}

func events(fired []trigger) []firedEvent {
	out := make([]firedEvent, len(fired))
	for i, tr := range fired {
		out[i] = firedEvent{tr.path, tr.typ}
	}
	return out
}

// clientTree is a fresh tree applying a plain client's requests: one
// authenticated as nothing but its address.
func clientTree(salt uint64) *Tree {
	tr := newTree(salt)
	tr.ids = []authID{ipID}
	return tr
}
