package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/zksim/zksim/scenarios"
	"github.com/zksim/zksim/search"
)

// An interrupt during --shrink keeps the smallest counterexample found so
// far, says so, still writes the report whole, and ends run with exit 130:
// the shrinking listens for the signal (it used to die of it, 143, with
// nothing printed).
func TestShrinkInterrupted(t *testing.T) {
	sc, err := scenarios.LoadScenario("lock-noguid")
	if err != nil {
		t.Fatal(err)
	}
	oc, err := scenarios.Run(sc.Spec, 1, scenarios.Options{})
	if err != nil || !oc.Failed() {
		t.Fatalf("lock-noguid seed 1: %v, failed %v; want a violation to shrink", err, oc != nil && oc.Failed())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the interrupt came as the shrinking began
	out := t.TempDir()
	var o runOutput
	report, err := firstReport(ctx, &o, sc.Spec, search.Failure{Seed: 1, Violations: oc.Violations},
		firstReportOptions{arg: "lock-noguid", shrink: true, out: out})
	if err != nil {
		t.Fatal(err)
	}
	if o.Shrunk == nil || !o.Shrunk.Interrupted || o.Shrunk.Replay == "" {
		t.Fatalf("shrunk %+v; want the counterexample so far, marked interrupted, with its replay line", o.Shrunk)
	}
	if report == nil || len(o.Report) == 0 {
		t.Fatalf("no report written after an interrupted shrink")
	}
	if _, err := os.Stat(filepath.Join(out, "history.json")); err != nil {
		t.Errorf("the report's history: %v", err)
	}
	o.AsExpected = true
	if err := runExit(o); !errors.Is(err, errInterrupted) {
		t.Errorf("exit after an interrupted shrink: %v, want the interrupt's (130)", err)
	}
}
