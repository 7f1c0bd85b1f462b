package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/zksim/zksim/scenarios"
)

func demoCmd() *cobra.Command {
	var (
		seeds int
		out   string
		only  string
	)
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "The teaching suite: every built-in scenario in the simulator, with its verdict",
		Long: `demo runs every built-in scenario in the simulator: each recipe under the
faults that matter to it (it must hold), each teaching variant under the
experiment that breaks it (the check its lesson names must catch it), and
the findings. It prints a table (scenario, recipe, variant, faults,
expected, got, seeds, time), writes each violation's report (timeline,
history, porcupine's visualization) under --out, and exits 0 when every
verdict is the expected one.

A scenario expecting a pass runs --seeds seeds (at most its own number); one
expecting a violation runs its seeds until one shows it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if seeds < 1 {
				return usageError{fmt.Errorf("--seeds: want at least 1, got %d", seeds)}
			}
			lib, err := scenarios.Library()
			if err != nil {
				return err
			}
			if only != "" {
				var kept []*scenarios.Scenario
				for _, sc := range lib {
					if strings.Contains(sc.Name, only) {
						kept = append(kept, sc)
					}
				}
				if len(kept) == 0 {
					return usageError{fmt.Errorf("--only: no built-in scenario's name contains %q", only)}
				}
				lib = kept
			}
			w := cmd.OutOrStdout()
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SCENARIO\tRECIPE\tVARIANT\tFAULTS\tEXPECTED\tGOT\tSEEDS\tTIME\t")
			bar := newProgress(cmd.ErrOrStderr(), len(lib), "teaching suite", true)
			mismatches := 0
			var reports []string
			start := time.Now()
			for i, sc := range lib {
				search := scenarios.Search{Seeds: min(max(sc.Seeds, 1), seeds)}
				if !sc.Expect.Pass {
					search = scenarios.Search{Seeds: max(sc.Seeds, 1), StopAtFirst: true}
				}
				t0 := time.Now()
				v, err := scenarios.Judge(context.Background(), sc, search)
				if err != nil {
					return fmt.Errorf("%s: %w", sc.Name, err)
				}
				got := v.Got()
				if !v.Matches {
					got += "  ← NOT AS EXPECTED"
					mismatches++
				}
				variant := sc.Spec.Variant
				if variant == "" {
					variant = "(the recipe)"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t\n", sc.Name, sc.Spec.Kind, variant, faultSummary(sc),
					sc.Expect, got, v.Result.Ran, time.Since(t0).Round(time.Millisecond))
				if out != "" && len(v.Result.Failures) > 0 {
					dir := filepath.Join(out, sc.Name)
					if err := writeReport(sc, v.Result.Failures[0].Seed, dir); err != nil {
						return err
					}
					reports = append(reports, dir)
				}
				bar.set(i+1, mismatches)
			}
			bar.done()
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(w, "\n%d scenarios in %s: ", len(lib), time.Since(start).Round(time.Millisecond))
			if mismatches == 0 {
				fmt.Fprintln(w, "every verdict as expected.")
			} else {
				fmt.Fprintf(w, "%d verdicts NOT as expected.\n", mismatches)
			}
			if len(reports) > 0 {
				fmt.Fprintf(w, "Violation reports (timeline, history, porcupine's visualization) under %s/\n", out)
			}
			if mismatches > 0 {
				return errViolations
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&seeds, "seeds", 20, "seeds for a scenario expecting a pass (at most its own number)")
	f.StringVar(&out, "out", filepath.Join("reports", "out", "demo"), "where to write the violation reports (empty: nowhere)")
	f.StringVar(&only, "only", "", "run only the scenarios whose name contains this")
	return cmd
}

// faultSummary says in a few words what a scenario's faults are.
func faultSummary(sc *scenarios.Scenario) string {
	var parts []string
	if n := len(sc.Spec.Faults); n > 0 {
		if n == 1 {
			parts = append(parts, sc.Spec.Faults[0].String())
		} else {
			parts = append(parts, fmt.Sprintf("%d scheduled", n))
		}
	}
	if sc.Spec.Rates != nil {
		parts = append(parts, "random")
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " + ")
}

// writeReport replays seed of sc and writes its violation report into dir.
func writeReport(sc *scenarios.Scenario, seed uint64, dir string) error {
	o, err := scenarios.Replay(sc.Spec, seed)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	r := &scenarios.ViolationReport{Outcome: o}
	return r.Write(dir)
}
