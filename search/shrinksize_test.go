package search

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/scenarios"
)

var shrinkSizes = flag.Bool("shrink.sizes", false, "TestShrinkSizes: every teaching variant under random faults, shrunk (`make shrink-sizes`)")

// shrinkRates are zksimtest's default faults: trigger-heavy schedules, a
// fault tied to a write, a read or a notification of every client.
var shrinkRates = fault.Rates{Crash: 0.1, LeaderCrash: 0.1, Partition: 0.2, Isolate: 0.05, Spike: 0.1, LoseReply: 1,
	ShortPause: 0.2, Disconnect: 0.2, Outage: 0.02, Lag: 0.2, LoseRequest: 0.5, Triggered: 1}

// TestShrinkSizes measures the shrinker where it has most to do: every
// teaching variant in the session-paced experiment under random,
// trigger-heavy faults (its scripted schedule set aside), the first
// failing seed of 200 shrunk as zksimtest shrinks it. It logs the faults
// each counterexample ends with, and fails if more than a few end above
// 3. Opt-in: a few minutes.
func TestShrinkSizes(t *testing.T) {
	if !*shrinkSizes {
		t.Skip("opt-in: -shrink.sizes (make shrink-sizes)")
	}
	lessons, err := scenarios.Lessons()
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	var above []string
	runs := 0
	for _, l := range lessons {
		spec := scenarios.SessionPaced(scenarios.Spec{Kind: l.Scenario.Spec.Kind, Variant: l.Variant.Name, Rates: &shrinkRates,
			Ensemble: l.Scenario.Spec.Ensemble})
		res, err := Sweep{Spec: spec, Seeds: 200, StopAtFirst: true}.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Failures) == 0 {
			t.Logf("%-36s not found in 200 seeds", l.Variant.Name)
			continue
		}
		f := res.Failures[0]
		o, _ := scenarios.Replay(spec, f.Seed)
		c, err := Shrink(spec, f.Seed, 100)
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(c.Schedule))
		runs += c.Tries
		t.Logf("%-36s seed %4d: %3d faults → %d in %4d runs: %s", l.Variant.Name, f.Seed, len(o.Schedule), len(c.Schedule),
			c.Tries, c.Faults())
		if len(c.Schedule) > 3 {
			above = append(above, fmt.Sprintf("%s (%d)", l.Variant.Name, len(c.Schedule)))
		}
	}
	slices.Sort(sizes)
	t.Logf("%d counterexamples; faults after shrinking: %v; above 3: %d %s; %d shrinking runs", len(sizes), sizes,
		len(above), strings.Join(above, ", "), runs)
	if len(above) > 0 {
		t.Errorf("%d counterexamples end above 3 faults: %s", len(above), strings.Join(above, ", "))
	}
}
