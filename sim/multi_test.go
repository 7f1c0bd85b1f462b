package sim

import (
	"reflect"
	"slices"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/trace"
)

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
	if code != trace.CodeOK {
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
	if !reflect.DeepEqual(res, want) {
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
	if code != trace.CodeOK || len(res) != 0 {
		t.Errorf("empty multi = (%+v, %d), want ([], 0)", res, code)
	}
}

func TestTreeMultiRollback(t *testing.T) {
	R := trace.CodeRuntimeInconsistency
	cases := []struct {
		name  string
		ops   []subOp
		codes []int32 // per op: 0 before the failure, its error, -2 after
		after func(t *testing.T, tr *Tree)
	}{
		{"NodeExists at op 1: [create /n, create /n, setData /n] -> 0, NodeExists, -2",
			[]subOp{{op: client.OpCreate, path: "/n", acl: acl}, {op: client.OpCreate, path: "/n", acl: acl}, {op: client.OpSetData, path: "/n", version: -1}},
			[]int32{0, trace.CodeNodeExists, R}, nil},
		{"ops see earlier ops: [create /n, create /n/c, check /n version 5] -> 0, 0, BadVersion",
			[]subOp{{op: client.OpCreate, path: "/n", acl: acl}, {op: client.OpCreate, path: "/n/c", acl: acl}, {op: client.OpCheck, path: "/n", version: 5}},
			[]int32{0, 0, trace.CodeBadVersion}, nil},
		{"a later op sees a delete: [delete /v, create /v/x] -> 0, NoNode",
			[]subOp{{op: client.OpDelete, path: "/v", version: 1}, {op: client.OpCreate, path: "/v/x", acl: acl}},
			[]int32{0, trace.CodeNoNode}, nil},
		{"a later op sees a setData's version: [setData /v v1, setData /v v1] -> 0, BadVersion",
			[]subOp{{op: client.OpSetData, path: "/v", version: 1}, {op: client.OpSetData, path: "/v", version: 1}},
			[]int32{0, trace.CodeBadVersion}, nil},
		{"two sequential creates then a failure: the parent's counter is restored",
			[]subOp{{op: client.OpCreate, path: "/q/s-", flags: zk.FlagSequence, acl: acl},
				{op: client.OpCreate, path: "/q/s-", flags: zk.FlagSequence, acl: acl},
				{op: client.OpCreate, path: "/missing/z", acl: acl}},
			[]int32{0, 0, trace.CodeNoNode},
			func(t *testing.T, tr *Tree) {
				if p := mustCreate(t, tr, "/q/s-", "", zk.FlagSequence, sessB, zx(60), t5); p != "/q/s-0000000001" {
					t.Errorf("next sequential create after rollback = %q, want /q/s-0000000001", p)
				}
			}},
		{"an ephemeral deleted then rolled back is its session's again",
			[]subOp{{op: client.OpDelete, path: "/e", version: -1}, {op: client.OpCheck, path: "/e", version: -1}},
			[]int32{0, trace.CodeNoNode}, nil},
		{"an ephemeral created then rolled back is in no session's ephemerals",
			[]subOp{{op: client.OpCreate, path: "/f", flags: zk.FlagEphemeral, acl: acl}, {op: client.OpCreate, path: "/f", acl: acl}},
			[]int32{0, trace.CodeNodeExists}, nil},
		{"create then delete then fail: [create /n, delete /n, check /n] -> 0, 0, NoNode",
			[]subOp{{op: client.OpCreate, path: "/n", acl: acl}, {op: client.OpDelete, path: "/n", version: -1}, {op: client.OpCheck, path: "/n", version: -1}},
			[]int32{0, 0, trace.CodeNoNode}, nil},
		{"delete then recreate then fail: the original /v comes back with its own stat and data",
			[]subOp{{op: client.OpDelete, path: "/v", version: 1}, {op: client.OpCreate, path: "/v", data: []byte("new"), acl: acl}, {op: client.OpCheck, path: "/v", version: 1}},
			[]int32{0, 0, trace.CodeBadVersion}, nil},
		{"first op fails: [check /missing, create /x, delete /v] -> NoNode, -2, -2",
			[]subOp{{op: client.OpCheck, path: "/missing", version: -1}, {op: client.OpCreate, path: "/x", acl: acl}, {op: client.OpDelete, path: "/v", version: -1}},
			[]int32{trace.CodeNoNode, R, R}, nil},
		{"a subtree built and torn down, then a failure: every stat of /a restored",
			[]subOp{{op: client.OpCreate, path: "/a/d", acl: acl}, {op: client.OpSetData, path: "/a", data: []byte("zz"), version: 0},
				{op: client.OpDelete, path: "/a/b", version: -1}, {op: client.OpDelete, path: "/a/d", version: -1},
				{op: client.OpDelete, path: "/a", version: 1}, {op: client.OpCreate, path: "/a", acl: acl},
				{op: client.OpCreate, path: "/a/b", acl: acl}, {op: client.OpCheck, path: "/a", version: 1}},
			[]int32{0, 0, 0, 0, 0, 0, 0, trace.CodeBadVersion}, nil},
		{"NotEmpty: [create /a/d, delete /a] -> 0, NotEmpty",
			[]subOp{{op: client.OpCreate, path: "/a/d", acl: acl}, {op: client.OpDelete, path: "/a", version: -1}},
			[]int32{0, trace.CodeNotEmpty}, nil},
		{"BadArguments for a malformed path: [create /n, create /n/] -> 0, BadArguments",
			[]subOp{{op: client.OpCreate, path: "/n", acl: acl}, {op: client.OpCreate, path: "/n/", acl: acl}},
			[]int32{0, trace.CodeBadArguments}, nil},
		{"invalid flags: [create /n, create /o flags 7] -> 0, BadArguments (CreateMode.fromFlag)",
			[]subOp{{op: client.OpCreate, path: "/n", acl: acl}, {op: client.OpCreate, path: "/o", flags: 7, acl: acl}},
			[]int32{0, trace.CodeBadArguments}, nil},
		{"NoChildrenForEphemerals: [setData /e, create /e/x] -> 0, NoChildrenForEphemerals",
			[]subOp{{op: client.OpSetData, path: "/e", version: -1}, {op: client.OpCreate, path: "/e/x", acl: acl}},
			[]int32{0, trace.CodeNoChildrenForEphemeral}, nil},
		{"NoAuth: [create /n, setData /zookeeper/config] -> 0, NoAuth",
			[]subOp{{op: client.OpCreate, path: "/n", acl: acl}, {op: client.OpSetData, path: "/zookeeper/config", version: -1}},
			[]int32{0, trace.CodeNoAuth}, nil},
		{"InvalidACL: [delete /a/b, create /n with no ACL] -> 0, InvalidACL",
			[]subOp{{op: client.OpDelete, path: "/a/b", version: -1}, {op: client.OpCreate, path: "/n"}},
			[]int32{0, trace.CodeInvalidACL}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := baseTree(t)
			before := dumpTree(tr)
			res, code := tr.multi(tc.ops, sessB, zx(50), t5)
			failed := slices.IndexFunc(tc.codes, func(c int32) bool { return c != trace.CodeOK })
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
			if code != trace.CodeBadArguments || len(res) != 2 || res[0].code != 0 || res[1].code != trace.CodeBadArguments {
				t.Errorf("multi = (%+v, %d), want codes [0, BadArguments]", res, code)
			}
			if d := diffDump(before, dumpTree(tr)); d != "" {
				t.Errorf("rollback left changes:\n%s", d)
			}
		})
	}
}

// ---- end to end, through a simulated go-zookeeper/zk client -----------------
