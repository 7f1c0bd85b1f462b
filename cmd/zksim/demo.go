package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/zksim/zksim/reports"
	"github.com/zksim/zksim/scenarios"
)

func demoCmd() *cobra.Command {
	var (
		seeds     int
		out       string
		only      string
		noFigures bool
	)
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "The teaching suite: every built-in scenario in the simulator, with its verdict, and the report",
		Long: `demo runs every built-in scenario in the simulator: each recipe under the
faults that matter to it (it must hold), each teaching variant under the
experiment that breaks it (the check its lesson names must catch it), and
the findings. It prints a table (scenario, recipe, variant, faults,
expected, got, seeds, time), writes the HTML report (the table, the
herd-effect figures, each violation's timeline and porcupine's
visualization) under --out, and exits 0 when every verdict is the expected
one.

A scenario expecting a pass runs --seeds seeds (at most its own number); one
expecting a violation runs its seeds until one shows it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if seeds < 1 {
				return usageError{fmt.Errorf("--seeds: want at least 1, got %d", seeds)}
			}
			if err := checkOutDir("--out", out); err != nil {
				return err
			}
			defer interruptible(cmd, "the report in "+out+" is incomplete")()
			lib, err := scenarios.Library()
			if err != nil {
				return err
			}
			if !slices.ContainsFunc(lib, func(sc *scenarios.Scenario) bool { return strings.Contains(sc.Name, only) }) {
				return usageError{fmt.Errorf("--only: no built-in scenario's name contains %q", only)}
			}
			var progress io.Writer
			if isTerminal(cmd.ErrOrStderr()) {
				progress = cmd.ErrOrStderr()
			}
			r, err := reports.Build(reports.Options{Out: out, Seeds: seeds, Only: only, NoFigures: noFigures, Progress: progress})
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SCENARIO\tRECIPE\tVARIANT\tFAULTS\tEXPECTED\tGOT\tSEEDS\tTIME\t")
			for _, v := range r.Verdicts {
				variant, got := v.Variant, v.Got
				if variant == "" {
					variant = "(the recipe)"
				}
				if !v.AsExpected {
					got += "  ← NOT AS EXPECTED"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t\n", v.Scenario, v.Kind, variant, v.Faults, v.Expected, got, v.Seeds, v.Time)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			bad := len(r.Verdicts) - r.Matches()
			fmt.Fprintf(w, "\n%d scenarios: ", len(r.Verdicts))
			if bad == 0 {
				fmt.Fprintln(w, "every verdict as expected.")
			} else {
				fmt.Fprintf(w, "%d verdicts NOT as expected.\n", bad)
			}
			fmt.Fprintf(w, "The report (verdicts, herd-effect figures, counterexamples): %s\n", r.Index)
			if bad > 0 {
				return errViolations
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&seeds, "seeds", 20, "seeds for a scenario expecting a pass (at most its own number)")
	f.StringVar(&out, "out", filepath.Join("reports", "out"), "where to write the report")
	f.StringVar(&only, "only", "", "run only the scenarios whose name contains this")
	f.BoolVar(&noFigures, "no-figures", false, "leave the herd sweeps and figures out of the report")
	return cmd
}
