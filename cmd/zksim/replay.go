package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/reports"
	"github.com/zksim/zksim/scenarios"
)

// replayFlags are zksim replay's options.
type replayFlags struct {
	seed             uint64
	trace, hash, all bool
	swarm            bool
	faults           string
	clients, rounds  int
	out              string
	tape             string
}

func replayCmd() *cobra.Command {
	var fl replayFlags
	cmd := &cobra.Command{
		Use:   "replay SCENARIO --seed S",
		Short: "Run one seed of a scenario again, exactly, and show what happened",
		Long: `replay runs one seed of a scenario (a built-in one or a file) again: the same
seed gives the same run, event for event. It prints the run's verdict and
violations; --trace prints the timeline (a column per client and server),
--hash the run's trace hash on the last line. --faults, --clients and
--rounds replace the scenario's, to replay a shrunk counterexample as
zksim run --shrink prints it; --swarm replays a seed of zksim run --swarm
(the seed draws its own mix of the random faults' rates, as it did
there); --out writes the violation report's files.

--tape FILE replays a run of zksim serve from its tape instead: the
server side is rebuilt exactly, every frame the servers wrote checked
against the tape's, and judged as zksim serve judged it; --trace prints
its timeline, --hash its hash, --out the violation report's files.

Exit status: 0 when the run held, 1 when a check found a violation, 2 for
bad input.`,
		Args: cobra.RangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if fl.tape != "" {
				if len(args) > 0 {
					return usageError{fmt.Errorf("replay --tape takes no scenario: the tape says what was served (got %q)", args[0])}
				}
				return replayTape(cmd.OutOrStdout(), fl)
			}
			if len(args) != 1 {
				return usageError{fmt.Errorf("replay: name the scenario to replay (or --tape FILE)")}
			}
			return replaySeed(cmd, args[0], fl)
		},
	}
	f := cmd.Flags()
	f.Uint64Var(&fl.seed, "seed", 0, "the seed to replay")
	f.BoolVar(&fl.trace, "trace", false, "print the run's timeline")
	f.BoolVar(&fl.all, "all", false, "show every event in the violation's timeline, not only the operations involved")
	f.BoolVar(&fl.hash, "hash", false, "print the run's trace hash on the last line")
	f.StringVar(&fl.faults, "faults", "", "replace the scenario's faults (schedule syntax, '; '-separated; none: no faults)")
	f.IntVar(&fl.clients, "clients", 0, "replace the scenario's number of clients")
	f.BoolVar(&fl.swarm, "swarm", false, "the seed draws its own mix of the scenario's random fault rates, as in zksim run --swarm")
	f.IntVar(&fl.rounds, "rounds", 0, "replace the workload's rounds")
	f.StringVar(&fl.out, "out", "", "write the violation report's files into this directory")
	f.StringVar(&fl.tape, "tape", "", "replay the server side of a zksim serve run from its tape (no scenario, no client)")
	return cmd
}

// replaySeed is zksim replay on the scenario arg names: it runs --seed
// again, with the flags' replacements, shows the run and ends with status
// 1 when a check found a violation.
func replaySeed(cmd *cobra.Command, arg string, fl replayFlags) error {
	sc, spec, err := resolveReplay(cmd, arg, fl)
	if err != nil {
		return err
	}
	o, err := scenarios.Replay(spec, fl.seed)
	if err != nil {
		if o == nil {
			return usageError{err}
		}
		return err
	}
	if err := showReplay(cmd.OutOrStdout(), sc.Name, o, fl); err != nil {
		return err
	}
	if o.Failed() {
		return errViolations
	}
	return nil
}

// resolveReplay loads the scenario arg names and the spec to replay: the
// scenario's, with --faults, --clients and --rounds in place of its own.
// Bad input is a usage error, refused before the run.
func resolveReplay(cmd *cobra.Command, arg string, fl replayFlags) (*scenarios.Scenario, scenarios.Spec, error) {
	sc, err := scenarios.LoadScenario(arg)
	if err != nil {
		return nil, scenarios.Spec{}, usageError{err}
	}
	if fl.seed == 0 {
		return nil, scenarios.Spec{}, usageError{fmt.Errorf("--seed: want the seed to replay (1 or more)")}
	}
	if fl.out != "" {
		if err := checkOutDir("--out", fl.out); err != nil {
			return nil, scenarios.Spec{}, err
		}
	}
	spec := sc.Spec
	if fl.swarm {
		if err := swarmOn(&spec, arg); err != nil {
			return nil, scenarios.Spec{}, err
		}
	}
	if cmd.Flags().Changed("faults") {
		faults := fl.faults
		if faults == "none" {
			faults = ""
		}
		s, err := fault.ParseSchedule(faults)
		if err != nil {
			return nil, scenarios.Spec{}, usageError{fmt.Errorf("--faults: %w", err)}
		}
		spec.Faults, spec.Rates = s, nil
	}
	for _, f := range []struct {
		name string
		n    int
	}{{"clients", fl.clients}, {"rounds", fl.rounds}} {
		if cmd.Flags().Changed(f.name) && f.n < 1 {
			return nil, scenarios.Spec{}, usageError{fmt.Errorf("--%s %d: want 1 or more (leave it out for the scenario's)", f.name, f.n)}
		}
	}
	if fl.clients > 0 {
		spec.Clients = fl.clients
	}
	if fl.rounds > 0 {
		spec.Workload.Rounds = fl.rounds
	}
	return sc, spec, nil
}

// showReplay prints the replayed run o of the scenario named name: its
// timeline (--trace); its violations, with their report unless the
// timeline was shown, the report's files written into --out; or that
// every check held; and its trace hash last (--hash). An interrupt while
// the report is written ends it, once written and shown, with
// errInterrupted.
func showReplay(w io.Writer, name string, o *scenarios.Outcome, fl replayFlags) error {
	interrupted := false
	if fl.trace {
		tl, err := reports.NewTimeline(o)
		if err != nil {
			return err
		}
		fmt.Fprint(w, tl)
	}
	if o.Failed() {
		r := &reports.ViolationReport{Outcome: o, All: fl.all}
		if fl.out != "" {
			var err error
			if interrupted, err = writeViolationReport(r, fl.out); err != nil {
				return err
			}
		}
		if fl.trace {
			for _, v := range o.Violations {
				fmt.Fprintf(w, "VIOLATION %s\n", v)
			}
		} else {
			fmt.Fprint(w, r)
		}
	} else {
		fmt.Fprintf(w, "%s, seed %d: every check held (%s)\n", name, fl.seed, strings.Join(o.Spec.Checks, ", "))
	}
	if fl.hash {
		fmt.Fprintln(w, scenarios.HashString(o.Result.Hash))
	}
	if interrupted {
		return errInterrupted
	}
	return nil
}
