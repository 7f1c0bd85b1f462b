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
	if fl.trace {
		if _, err := r.World.Trace().WriteTo(w); err != nil {
			return err
		}
	}
	res := r.Result
	fmt.Fprintf(w, "%s: replayed %d client(s) over %s of virtual time, %d records; every frame the servers wrote is the tape's\n",
		fl.tape, len(r.World.Clients()), res.End.Std(), res.Records)
	for _, v := range res.Violations {
		fmt.Fprintf(w, "  simulator self-check failed: %s\n", v)
	}
	if fl.hash {
		fmt.Fprintln(w, scenarios.HashString(res.Hash))
	}
	if len(res.Violations) > 0 {
		return errViolations
	}
	return nil
}
