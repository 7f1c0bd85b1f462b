package sim

import (
	"slices"
	"testing"

	"github.com/go-zookeeper/zk"
)

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
