package sim

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/trace"
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
	if code != trace.CodeOK {
		t.Fatalf("create %q: code %d", path, code)
	}
	return p
}

func mustSet(t *testing.T, tr *Tree, path, data string, zxid int64, now Time) zk.Stat {
	t.Helper()
	st, code := tr.setData(path, []byte(data), -1, zxid, now)
	if code != trace.CodeOK {
		t.Fatalf("setData %q: code %d", path, code)
	}
	return st
}

func mustDelete(t *testing.T, tr *Tree, path string, zxid int64) {
	t.Helper()
	if code := tr.delete(path, -1, zxid); code != trace.CodeOK {
		t.Fatalf("delete %q: code %d", path, code)
	}
}

func statOf(t *testing.T, tr *Tree, path string) zk.Stat {
	t.Helper()
	_, st, code := tr.get(path)
	if code != trace.CodeOK {
		t.Fatalf("get %q: code %d", path, code)
	}
	return st
}

func sortedChildren(t *testing.T, tr *Tree, path string) []string {
	t.Helper()
	ch, _, code := tr.children(path)
	if code != trace.CodeOK {
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
	for owner, set := range tr.ephemerals {
		if len(set.nodes) == 0 {
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
	for o, set := range tr.ephemerals {
		for i, n := range set.nodes {
			if n.ephIdx != i || n.stat.EphemeralOwner != o || tr.nodes[n.path] != n {
				t.Errorf("invariant: ephemerals index of %#x holds %q at %d (its index %d, owner %#x)", o, n.path, i, n.ephIdx, n.stat.EphemeralOwner)
			}
		}
	}
	owners := 0
	for _, set := range tr.ephemerals {
		if len(set.nodes) > 0 {
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
		if code != trace.CodeOK || got != st || len(data) != 0 {
			t.Errorf("get(%q) = (%q, %+v, %d), want (empty, %+v, 0)", p, data, got, code, st)
		}
	}
	ch, st, code := tr.children("/")
	if code != trace.CodeOK || !slices.Equal(ch, []string{"zookeeper"}) || st != want["/"] {
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
			if code != trace.CodeOK || p != tc.wantPath {
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
		{"flags 7 is no CreateMode -> BadArguments (CreateMode.fromFlag)", "/x", 7, acl, trace.CodeBadArguments},
		{"flags -1 is no CreateMode -> BadArguments (CreateMode.fromFlag)", "/x", -1, acl, trace.CodeBadArguments},
		{"no '/' -> BadArguments (validatePathForCreate: lastIndexOf('/') == -1)", "x", 0, acl, trace.CodeBadArguments},
		{"empty path -> BadArguments (validatePathForCreate)", "", 0, acl, trace.CodeBadArguments},
		{"NUL -> BadArguments (validatePathForCreate: indexOf('\\0')), before the parent lookup", "/missing/x\x00", 0, acl, trace.CodeBadArguments},
		{"no '/' -> BadArguments comes before InvalidACL (validatePathForCreate runs before fixupACL)", "x", 0, noACL, trace.CodeBadArguments},
		{"empty ACL -> InvalidACL (fixupACL)", "/x", 0, noACL, trace.CodeInvalidACL},
		{"nil ACL -> InvalidACL (fixupACL: null list)", "/x", 0, nil, trace.CodeInvalidACL},
		{"InvalidACL comes before NoNode (fixupACL runs before getRecordForPath(parent))", "/missing/x", 0, noACL, trace.CodeInvalidACL},
		{"create: parent missing -> NoNode (PrepRequestProcessor checks the parent before the node)", "/missing/x", 0, acl, trace.CodeNoNode},
		{"sequential, parent missing -> NoNode", "/missing/x-", zk.FlagSequence, acl, trace.CodeNoNode},
		{"'/a//b': parent \"/a/\" is looked up (NoNode) before validatePath", "/a//b", 0, acl, trace.CodeNoNode},
		{"'/./a': parent \"/.\" is looked up (NoNode) before validatePath", "/./a", 0, acl, trace.CodeNoNode},
		{"under /zookeeper/config (ACL world:anyone:r) -> NoAuth (checkACL CREATE on the parent)", "/zookeeper/config/x", 0, acl, trace.CodeNoAuth},
		{"sequential under /zookeeper/config -> NoAuth", "/zookeeper/config/x-", zk.FlagSequence, acl, trace.CodeNoAuth},
		{"trailing '/' without SEQUENTIAL -> BadArguments (validatePath on the full path)", "/a/", 0, acl, trace.CodeBadArguments},
		{"'.' component -> BadArguments (validatePath: relative paths not allowed)", "/a/.", 0, acl, trace.CodeBadArguments},
		{"'..' component -> BadArguments (validatePath: relative paths not allowed)", "/a/..", 0, acl, trace.CodeBadArguments},
		{"control character -> BadArguments (validatePath: \\u0001-\\u001F)", "/a\x01", 0, acl, trace.CodeBadArguments},
		{"U+0080 -> BadArguments (validatePath: \\u007F-\\u009F)", "/a\u0080", 0, acl, trace.CodeBadArguments},
		{"U+E000 -> BadArguments (validatePath: \\uD800-\\uF8FF)", "/\ue000", 0, acl, trace.CodeBadArguments},
		{"U+FFFF -> BadArguments (validatePath: \\uFFF0-\\uFFFF)", "/\uffff", 0, acl, trace.CodeBadArguments},
		{"a character above U+FFFF -> BadArguments (its UTF-16 surrogates are refused)", "/\U0001F600", 0, acl, trace.CodeBadArguments},
		{"invalid UTF-8 -> BadArguments (decoded as U+FFFD)", "/a\xff", 0, acl, trace.CodeBadArguments},
		{"existing node -> NodeExists", "/a", 0, acl, trace.CodeNodeExists},
		{"existing node, ephemeral flags -> NodeExists", "/a/b", zk.FlagEphemeral, acl, trace.CodeNodeExists},
		{"'/' -> NodeExists (parent \"\" is the root; validatePath(\"/\") passes)", "/", 0, acl, trace.CodeNodeExists},
		{"'/zookeeper' -> NodeExists", "/zookeeper", 0, acl, trace.CodeNodeExists},
		{"'/zookeeper/config' -> NodeExists, not NoAuth (its parent /zookeeper is open)", "/zookeeper/config", 0, acl, trace.CodeNodeExists},
		{"child of an ephemeral -> NoChildrenForEphemerals", "/e/x", 0, acl, trace.CodeNoChildrenForEphemeral},
		{"ephemeral child of an ephemeral -> NoChildrenForEphemerals", "/e/x", zk.FlagEphemeral, acl, trace.CodeNoChildrenForEphemeral},
		{"sequential child of an ephemeral -> NoChildrenForEphemerals", "/e/x-", zk.FlagEphemeralSequential, acl, trace.CodeNoChildrenForEphemeral},
		{"'/e/' sequential under an ephemeral -> NoChildrenForEphemerals", "/e/", zk.FlagSequence, acl, trace.CodeNoChildrenForEphemeral},
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
	if _, code := tr.create("/p/c", nil, 0, acl, sessB, zx(12), t2); code != trace.CodeNodeExists {
		t.Errorf("create existing child of an ephemeral = %d, want NodeExists (%d)", code, trace.CodeNodeExists)
	}
	if _, code := tr.create("/p/d", nil, 0, acl, sessB, zx(13), t2); code != trace.CodeNoChildrenForEphemeral {
		t.Errorf("create new child of an ephemeral = %d, want NoChildrenForEphemerals (%d)", code, trace.CodeNoChildrenForEphemeral)
	}
}

func TestTreeDeleteErrors(t *testing.T) {
	cases := []struct {
		name    string
		path    string
		version int32
		want    int32
	}{
		{"'/' -> BadArguments (getParentPathAndValidate: isSpecialPath)", "/", -1, trace.CodeBadArguments},
		{"'/zookeeper' -> BadArguments (isSpecialPath)", "/zookeeper", -1, trace.CodeBadArguments},
		{"'/zookeeper/quota' -> BadArguments (isSpecialPath)", "/zookeeper/quota", -1, trace.CodeBadArguments},
		{"'/zookeeper/config' -> BadArguments (isSpecialPath), whatever the version", "/zookeeper/config", 99, trace.CodeBadArguments},
		{"no '/' -> BadArguments (getParentPathAndValidate)", "x", -1, trace.CodeBadArguments},
		{"empty path -> BadArguments (getParentPathAndValidate)", "", -1, trace.CodeBadArguments},
		{"NUL -> BadArguments (getParentPathAndValidate: indexOf('\\0'))", "/a\x00", -1, trace.CodeBadArguments},
		{"parent missing -> NoNode (getRecordForPath(parent))", "/missing/x", -1, trace.CodeNoNode},
		{"node missing -> NoNode", "/missing", -1, trace.CodeNoNode},
		{"node missing, wrong version -> NoNode (node looked up before the version)", "/missing", 5, trace.CodeNoNode},
		{"'/a/': no PathUtils on delete, the node \"/a/\" is not found -> NoNode", "/a/", -1, trace.CodeNoNode},
		{"'/./a': parent \"/.\" missing -> NoNode", "/./a", -1, trace.CodeNoNode},
		{"wrong version -> BadVersion (checkAndIncVersion)", "/v", 0, trace.CodeBadVersion},
		{"version too high -> BadVersion", "/v", 2, trace.CodeBadVersion},
		{"version -2 is not 'any' -> BadVersion", "/v", -2, trace.CodeBadVersion},
		{"has children -> NotEmpty", "/a", -1, trace.CodeNotEmpty},
		{"has children, wrong version -> BadVersion (version checked before NotEmpty)", "/a", 3, trace.CodeBadVersion},
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
			if code := tr.delete(tc.path, tc.version, zx(50)); code != trace.CodeOK {
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
		{"no '/' -> BadArguments (validatePath)", "x", -1, trace.CodeBadArguments},
		{"empty path -> BadArguments (validatePath)", "", -1, trace.CodeBadArguments},
		{"trailing '/' -> BadArguments (validatePath)", "/a/", -1, trace.CodeBadArguments},
		{"'//' -> BadArguments (validatePath: empty node name)", "/a//b", -1, trace.CodeBadArguments},
		{"'.' component -> BadArguments (validatePath)", "/a/.", -1, trace.CodeBadArguments},
		{"'/./a' -> BadArguments: setData validates before the lookup", "/./a", -1, trace.CodeBadArguments},
		{"NUL -> BadArguments (validatePath)", "/a\x00", -1, trace.CodeBadArguments},
		{"U+E000 -> BadArguments (validatePath)", "/\ue000", -1, trace.CodeBadArguments},
		{"above U+FFFF -> BadArguments (validatePath: surrogates)", "/\U0001F600", -1, trace.CodeBadArguments},
		{"missing -> NoNode", "/missing", -1, trace.CodeNoNode},
		{"missing, wrong version -> NoNode (lookup before version)", "/missing", 5, trace.CodeNoNode},
		{"/zookeeper/config -> NoAuth (checkACL WRITE; its ACL is world:anyone:r)", "/zookeeper/config", -1, trace.CodeNoAuth},
		{"/zookeeper/config, wrong version -> NoAuth (ACL before version)", "/zookeeper/config", 5, trace.CodeNoAuth},
		{"wrong version -> BadVersion (checkAndIncVersion)", "/v", 0, trace.CodeBadVersion},
		{"version too high -> BadVersion", "/v", 2, trace.CodeBadVersion},
		{"version -2 is not 'any' -> BadVersion", "/v", -2, trace.CodeBadVersion},
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
			if code != trace.CodeOK {
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
	if code != trace.CodeOK || st.Version != math.MinInt32 {
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
		{"version -1 matches any", "/v", -1, trace.CodeOK},
		{"the exact version matches", "/v", 1, trace.CodeOK},
		{"/zookeeper/config is readable (check needs READ only)", "/zookeeper/config", 0, trace.CodeOK},
		{"no '/' -> BadArguments (validatePath)", "x", -1, trace.CodeBadArguments},
		{"'/./a' -> BadArguments (validatePath before the lookup)", "/./a", -1, trace.CodeBadArguments},
		{"trailing '/' -> BadArguments", "/v/", -1, trace.CodeBadArguments},
		{"missing -> NoNode", "/missing", -1, trace.CodeNoNode},
		{"missing, wrong version -> NoNode", "/missing", 3, trace.CodeNoNode},
		{"wrong version -> BadVersion", "/v", 0, trace.CodeBadVersion},
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
		if _, st, code := tr.get(p); code != trace.CodeNoNode || st != (zk.Stat{}) {
			t.Errorf("get(%q) = (%+v, %d), want (zero, NoNode)", p, st, code)
		}
		if ch, st, code := tr.children(p); code != trace.CodeNoNode || ch != nil || st != (zk.Stat{}) {
			t.Errorf("children(%q) = (%q, %+v, %d), want (nil, zero, NoNode)", p, ch, st, code)
		}
	}
}

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

// sessionEphemerals lists the paths of a session's ephemeral nodes,
// sorted, for comparing with a set.
func (t *Tree) sessionEphemerals(owner int64) []string {
	return slices.Sorted(slices.Values(t.ephemeralOrder(owner)))
}
