package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zksim/zksim/scenarios"
	"github.com/zksim/zksim/sim"
)

func replayCmd() *cobra.Command {
	var (
		seed             uint64
		trace, hash, all bool
		faults           string
		clients, rounds  int
		out              string
	)
	cmd := &cobra.Command{
		Use:   "replay SCENARIO --seed S",
		Short: "Run one seed of a scenario again, exactly, and show what happened",
		Long: `replay runs one seed of a scenario (a built-in one or a file) again: the same
seed gives the same run, event for event. It prints the run's verdict and
violations; --trace prints the timeline (a column per client and server),
--hash the run's trace hash on the last line. --faults, --clients and
--rounds replace the scenario's, to replay a shrunk counterexample as
zksim run --shrink prints it; --out writes the violation report's files.

Exit status: 0 when the run held, 1 when a check found a violation, 2 for
bad input.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sc, err := scenarios.LoadScenario(args[0])
			if err != nil {
				return usageError{err}
			}
			if seed == 0 {
				return usageError{fmt.Errorf("--seed: want the seed to replay (1 or more)")}
			}
			if out != "" {
				if err := checkOutDir("--out", out); err != nil {
					return err
				}
			}
			spec := sc.Spec
			if cmd.Flags().Changed("faults") {
				if faults == "none" {
					faults = ""
				}
				s, err := sim.ParseSchedule(faults)
				if err != nil {
					return usageError{fmt.Errorf("--faults: %w", err)}
				}
				spec.Faults, spec.Rates = s, nil
			}
			if clients > 0 {
				spec.Clients = clients
			}
			if rounds > 0 {
				spec.Workload.Rounds = rounds
			}
			o, err := scenarios.Replay(spec, seed)
			if err != nil {
				if o == nil {
					return usageError{err}
				}
				return err
			}
			w := cmd.OutOrStdout()
			if trace {
				tl, err := scenarios.NewTimeline(o)
				if err != nil {
					return err
				}
				fmt.Fprint(w, tl)
			}
			if o.Failed() {
				r := &scenarios.ViolationReport{Outcome: o, All: all}
				if out != "" {
					if err := r.Write(out); err != nil {
						return err
					}
				}
				if trace {
					for _, v := range o.Violations {
						fmt.Fprintf(w, "VIOLATION %s\n", v)
					}
				} else {
					fmt.Fprint(w, r)
				}
			} else {
				fmt.Fprintf(w, "%s, seed %d: every check held (%s)\n", sc.Name, seed, strings.Join(o.Spec.Checks, ", "))
			}
			if hash {
				fmt.Fprintln(w, scenarios.HashString(o.Result.Hash))
			}
			if o.Failed() {
				return errViolations
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.Uint64Var(&seed, "seed", 0, "the seed to replay")
	f.BoolVar(&trace, "trace", false, "print the run's timeline")
	f.BoolVar(&all, "all", false, "show every event in the violation's timeline, not only the operations involved")
	f.BoolVar(&hash, "hash", false, "print the run's trace hash on the last line")
	f.StringVar(&faults, "faults", "", "replace the scenario's faults (schedule syntax, '; '-separated; none: no faults)")
	f.IntVar(&clients, "clients", 0, "replace the scenario's number of clients")
	f.IntVar(&rounds, "rounds", 0, "replace the workload's rounds")
	f.StringVar(&out, "out", "", "write the violation report's files into this directory")
	return cmd
}
