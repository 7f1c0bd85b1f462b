package search

import (
	"context"
	"testing"

	"github.com/zksim/zksim/scenarios"
)

// The shards of a range are contiguous, disjoint, and cover it exactly,
// whatever the sizes.
func TestShardsCoverTheRange(t *testing.T) {
	for _, count := range []int{0, 1, 7, 100, 10001} {
		for n := 1; n <= 9; n++ {
			next := uint64(5)
			for i := 1; i <= n; i++ {
				first, c := Shard{I: i, N: n}.Range(5, count)
				if first != next || c < 0 {
					t.Fatalf("%d seeds, shard %d/%d starts at %d (%d seeds), want %d", count, i, n, first, c, next)
				}
				next += uint64(c)
			}
			if next != 5+uint64(count) {
				t.Fatalf("%d seeds in %d shards end at %d, want %d", count, n, next, 5+count)
			}
		}
	}
}

func TestParseShard(t *testing.T) {
	if s, err := ParseShard("2/4"); err != nil || s != (Shard{I: 2, N: 4}) || s.String() != "2/4" {
		t.Fatalf("2/4: %v %v", s, err)
	}
	for _, bad := range []string{"", "2", "0/4", "5/4", "a/b", "1/0", "-1/3"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted it", bad)
		}
	}
}

// A search runs each seed of its shard once, in parallel, and reports the
// same failures whatever the number of workers.
func TestSearchIsDeterministicAcrossWorkers(t *testing.T) {
	spec := scenarios.Spec{Kind: "lock", Variant: "lock-unsorted", Clients: 4}
	var prev *Result
	for _, workers := range []int{1, 3} {
		res, err := Sweep{Spec: spec, Seeds: 24, Shard: Shard{I: 2, N: 3}, Workers: workers}.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if res.First != 9 || res.Seeds != 8 || res.Ran != 8 {
			t.Fatalf("shard 2/3 of seeds 1..24 ran seeds %d.. (%d of %d), want 9..16", res.First, res.Ran, res.Seeds)
		}
		if prev != nil {
			if len(prev.Failures) != len(res.Failures) || prev.Ops != res.Ops {
				t.Fatalf("1 worker: %d failures, %d ops; 3 workers: %d, %d", len(prev.Failures), prev.Ops, len(res.Failures), res.Ops)
			}
			for i := range res.Failures {
				if prev.Failures[i].Seed != res.Failures[i].Seed || prev.Failures[i].TraceHash != res.Failures[i].TraceHash {
					t.Fatalf("failure %d differs: %+v vs %+v", i, prev.Failures[i], res.Failures[i])
				}
			}
		}
		prev = res
	}
	if len(prev.Failures) == 0 {
		t.Fatal("the unsorted lock never failed on 8 seeds")
	}
}
