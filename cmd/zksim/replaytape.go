package main

import (
	"fmt"
	"io"
	"os"

	"github.com/zksim/zksim/scenarios"
	"github.com/zksim/zksim/serve"
)

// replayTape is zksim replay --tape: the server side of a served run
// rebuilt from its tape, checked frame by frame; --trace prints its
// trace and --hash its hash, last.
func replayTape(w io.Writer, fl replayFlags) error {
	if fl.out != "" {
		if err := checkOutDir("--out", fl.out); err != nil {
			return err
		}
	}
	f, err := os.Open(fl.tape)
	if err != nil {
		return usageError{fmt.Errorf("--tape: %w", err)}
	}
	defer f.Close()
	r, err := serve.Replay(f)
	if err != nil {
		if r == nil {
			return usageError{fmt.Errorf("%s: %w", fl.tape, err)}
		}
		return fmt.Errorf("%s: %w", fl.tape, err)
	}
	ops, err := scenarios.RecordedOps(r.Ops, r.Result.End)
	if err != nil {
		return fmt.Errorf("%s: %w", fl.tape, err)
	}
	judging, err := decodeJudging(r.Judging)
	if err != nil {
		return fmt.Errorf("%s: its judging settings: %w", fl.tape, err)
	}
	o, err := scenarios.Served(scenarios.ServedRun{Name: r.Name, World: r.World, Result: r.Result, Schedule: r.Faults,
		Checks: r.Checks, Kind: r.Kind, Ops: ops, Workload: judging.Workload, Bound: judging.Bound})
	if err != nil {
		return fmt.Errorf("%s: %w", fl.tape, err)
	}
	if err := printServedOutcome(w, o, r.World.Seed(), fl.trace, fl.out); err != nil {
		return err
	}
	fmt.Fprintf(w, "replayed from %s: every frame the servers wrote is the tape's\n", fl.tape)
	if fl.hash {
		fmt.Fprintln(w, scenarios.HashString(r.Result.Hash))
	}
	if o.Failed() || len(r.Result.Violations) > 0 {
		return errViolations
	}
	return nil
}
