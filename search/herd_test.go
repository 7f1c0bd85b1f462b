package search

import (
	"context"
	"testing"
)

// The recipes' lines stay at about one notification per release however
// many clients wait; the herd variants' grow with them.
func TestHerdSweepShowsTheHerd(t *testing.T) {
	clients := []int{5, 20, 50}
	for _, kind := range []string{"lock", "election"} {
		recipe, err := HerdSweep(context.Background(), kind, "", clients, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		herd, err := HerdSweep(context.Background(), kind, kind+"-herd", clients, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, n := range clients {
			r, h := recipe.Points[i], herd.Points[i]
			if r.NotificationsPerRelease > 1.2 || h.NotificationsPerRelease < float64(n)/3 || r.Releases < n-1 {
				t.Errorf("%s, %d clients: recipe %.2f, herd %.2f notifications per release (%d releases)", kind, n,
					r.NotificationsPerRelease, h.NotificationsPerRelease, r.Releases)
			}
			if len(r.Latencies) != n {
				t.Errorf("%s, %d clients: %d latencies", kind, n, len(r.Latencies))
			}
		}
	}
}

// A verdict's seeds are those up to its first failing seed, not the
// seeds a stopped search let finish in parallel (more of them on a loaded
// machine): the same figure on every machine.
func TestSeedsTakenIsTheMachinesNot(t *testing.T) {
	for _, tc := range []struct {
		r    Result
		want int
	}{
		{Result{First: 1, Ran: 2, Failures: []Failure{{Seed: 1}}}, 1},
		{Result{First: 5, Ran: 8, Failures: []Failure{{Seed: 7}, {Seed: 8}}}, 3},
		{Result{First: 1, Ran: 20}, 20},
	} {
		if got := SeedsTaken(&tc.r); got != tc.want {
			t.Errorf("SeedsTaken(%+v) = %d, want %d", tc.r, got, tc.want)
		}
	}
}
