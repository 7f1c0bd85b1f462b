package sim

import (
	"fmt"
	"math"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/trace"
)

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
		{"/q/plain", 0, acl, trace.CodeNodeExists},
		{"/q/n-", zk.FlagSequence, nil, trace.CodeInvalidACL},
		{"/q/n-\x01", zk.FlagSequence, acl, trace.CodeBadArguments},
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
			if code := tr.delete("/q/plain/x-0000000000", -1, next()); code != trace.CodeOK {
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
