package search

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/zksim/zksim/scenarios"
)

// Judged is one built-in scenario judged for the teaching suite: its
// verdict over its seeds and, when a run broke, its first failure shown
// (shrunk when a check decided it, replayed with its trace).
type Judged struct {
	Scenario *scenarios.Scenario
	Verdict  *Verdict
	// Seeds is how many seeds the verdict took (SeedsTaken).
	Seeds int
	// Time is how long its seeds took (not showing its failure).
	Time time.Duration
	// Shown is its first failure as a report shows it; nil when every
	// run held.
	Shown *Shown
}

// Suite judges every built-in scenario whose name contains only (all of
// them for ""): one that expects a pass on up to seeds of its seeds, one
// that expects a violation until the first shows; and shows each first
// failure. progress, when set, gets a line per scenario. Cancelling ctx
// ends it with ctx's error.
func Suite(ctx context.Context, seeds int, only string, progress io.Writer) ([]Judged, error) {
	lib, err := scenarios.Library()
	if err != nil {
		return nil, err
	}
	var out []Judged
	for _, sc := range lib {
		if !strings.Contains(sc.Name, only) {
			continue
		}
		j, err := judgeForSuite(ctx, sc, seeds)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sc.Name, err)
		}
		if progress != nil {
			fmt.Fprintf(progress, "  %-36s %-30s %s\n", sc.Name, j.Verdict.Got(),
				map[bool]string{true: "as expected", false: "NOT AS EXPECTED"}[j.Verdict.Matches])
		}
		out = append(out, j)
	}
	return out, nil
}

// judgeForSuite judges sc as Suite does.
func judgeForSuite(ctx context.Context, sc *scenarios.Scenario, seeds int) (Judged, error) {
	sweep := Sweep{Seeds: min(max(sc.Seeds, 1), seeds)}
	if !sc.Expect.Pass {
		sweep = Sweep{Seeds: max(sc.Seeds, 1), StopAtFirst: true}
	}
	began := time.Now()
	v, err := Judge(ctx, sc, sweep)
	if err != nil {
		return Judged{}, err
	}
	j := Judged{Scenario: sc, Verdict: v, Seeds: SeedsTaken(v.Result), Time: time.Since(began).Round(time.Millisecond)}
	if f, ok := v.Result.Worst(); ok {
		if j.Shown, err = Show(ctx, sc.Spec, f.Seed, f.Violations, ShowOptions{Shrink: true}); err != nil {
			return Judged{}, err
		}
	}
	return j, nil
}

// SeedsTaken is how many seeds a verdict took: up to the failing seed it
// shows (Result.Worst) when it found a violation, every seed run when it
// did not. A search that stops at its first violation lets the seeds
// already under way in parallel finish, and a loaded machine gets further
// with them: counted, they would make the figure depend on the machine.
func SeedsTaken(r *Result) int {
	if f, ok := r.Worst(); ok {
		return int(f.Seed-r.First) + 1
	}
	return r.Ran
}
