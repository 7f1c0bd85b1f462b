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
	"github.com/zksim/zksim/search"
)

// demoFlags are zksim demo's options.
type demoFlags struct {
	seeds     int
	out       string
	only      string
	noFigures bool
}

func demoCmd() *cobra.Command {
	var fl demoFlags
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
			return runDemo(cmd, fl)
		},
	}
	f := cmd.Flags()
	f.IntVar(&fl.seeds, "seeds", 20, "seeds for a scenario expecting a pass (at most its own number)")
	f.StringVar(&fl.out, "out", filepath.Join("reports", "out"), "where to write the report")
	f.StringVar(&fl.only, "only", "", "run only the scenarios whose name contains this")
	f.BoolVar(&fl.noFigures, "no-figures", false, "leave the herd sweeps and figures out of the report")
	return cmd
}

// runDemo is zksim demo: it checks the flags, judges the built-in
// scenarios and writes the report (an interrupt writes nothing, leaves
// --out as it was, and exits 130), prints the verdicts and ends with status 1
// when one is not the expected one.
func runDemo(cmd *cobra.Command, fl demoFlags) error {
	if fl.seeds < 1 {
		return usageError{fmt.Errorf("--seeds: want at least 1, got %d", fl.seeds)}
	}
	if err := checkOutDir("--out", fl.out); err != nil {
		return err
	}
	if err := checkOnly(fl.only); err != nil {
		return err
	}
	ctx, cancel := interruptContext()
	defer cancel()
	stage, err := stageOut(fl.out)
	if err != nil {
		return err
	}
	defer stage.abandon()
	var progress io.Writer
	if isTerminal(cmd.ErrOrStderr()) {
		progress = cmd.ErrOrStderr()
	}
	r, err := buildReport(ctx, cmd, stage, search.ReportOptions{Seeds: fl.seeds, Only: fl.only, NoFigures: fl.noFigures, Progress: progress}, nil)
	if err != nil {
		return err
	}
	if err := printDemo(cmd.OutOrStdout(), r); err != nil {
		return err
	}
	if r.Matches() < len(r.Verdicts) {
		return errViolations
	}
	return nil
}

// checkOnly refuses an --only that no built-in scenario's name contains:
// it would run nothing.
func checkOnly(only string) error {
	lib, err := scenarios.Library()
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(lib, func(sc *scenarios.Scenario) bool { return strings.Contains(sc.Name, only) }) {
		return usageError{fmt.Errorf("--only: no built-in scenario's name contains %q", only)}
	}
	return nil
}

// printDemo prints the demo's verdicts as a table, a line saying how many
// were as expected, and where the report is.
func printDemo(w io.Writer, r *reports.Report) error {
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
	return nil
}
