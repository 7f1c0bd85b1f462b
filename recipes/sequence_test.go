package recipes

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// sequenceOf reads a name's last ten characters as strconv.ParseInt does
// (the sign ZooKeeper prints past 2³¹ creates included), and -1 for any
// name ParseInt refuses.
func TestSequenceOfAgreesWithParseInt(t *testing.T) {
	names := []string{"lock-0000000001", "x-0000000000", "-000000001", "+000000007", "n_2147483647",
		"short", "lock-00000000a1", "lock-000000001-", "lock- 00000001", "0123456789"}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := "0123456789-+a "
	for range 5000 {
		b := make([]byte, 10+r.IntN(4))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		names = append(names, string(b))
	}
	for _, n := range names {
		want := int64(-1)
		if len(n) >= 10 {
			if v, err := strconv.ParseInt(n[len(n)-10:], 10, 64); err == nil {
				want = v
			}
		}
		if got := sequenceOf(n); got != want {
			t.Errorf("sequenceOf(%q) = %d, want %d", n, got, want)
		}
	}
}

// The one-pass predecessor finds what sorting the children and taking the
// node before ours finds, whatever the prefixes and the listing order.
func TestPredecessorAgreesWithSorting(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	prefixes := []string{"lock-", "guid-7-lock-", "read-", "write-", "x"}
	for trial := range 2000 {
		n := 1 + r.IntN(12)
		var kids []string
		seen := map[string]bool{}
		for len(kids) < n {
			k := fmt.Sprintf("%s%010d", prefixes[r.IntN(len(prefixes))], r.IntN(20))
			switch r.IntN(10) {
			case 0:
				k = "other" // not sequential: sorts first
			case 1:
				k = fmt.Sprintf("%s-%09d", prefixes[r.IntN(len(prefixes))], r.IntN(20)) // past 2³¹: negative
			}
			if !seen[k] {
				seen[k] = true
				kids = append(kids, k)
			}
		}
		mine := kids[r.IntN(len(kids))]
		sorted := slices.Clone(kids)
		slices.SortFunc(sorted, bySequence)
		i := slices.Index(sorted, mine)
		want := ""
		if i > 0 {
			want = sorted[i-1]
		}
		got, found := predecessor(kids, mine)
		if !found || got != want {
			t.Fatalf("trial %d: predecessor(%q, %q) = %q, %v; sorted %q gives %q", trial, kids, mine, got, found, sorted, want)
		}
		if _, found := predecessor(kids, "absent-0000000099"); found {
			t.Fatalf("trial %d: found a node not among %q", trial, kids)
		}
	}
}

// attemptGUID writes what fmt's "%016x%04x" writes.
func TestLockGUIDAsFmt(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	cases := [][2]int64{{0, 0}, {1, 1}, {-1, 3}, {1 << 62, 65535}, {0x7fffffffffffffff, 70000}, {5, -2}}
	for range 2000 {
		cases = append(cases, [2]int64{int64(r.Uint64()), int64(r.IntN(1 << 20))})
	}
	for _, c := range cases {
		if got, want := attemptGUID(c[0], int(c[1])), fmt.Sprintf("%016x%04x", c[0], int(c[1])); got != want {
			t.Fatalf("attemptGUID(%d, %d) = %q, want %q", c[0], c[1], got, want)
		}
	}
}
