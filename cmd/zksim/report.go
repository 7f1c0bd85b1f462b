package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zksim/zksim/live"
	"github.com/zksim/zksim/reports"
	"github.com/zksim/zksim/scenarios"
	"github.com/zksim/zksim/search"
)

func reportCmd() *cobra.Command {
	var (
		out       string
		withLive  bool
		liveSizes string
	)
	cmd := &cobra.Command{
		Use:   "report [--out DIR] [--live]",
		Short: "Write the HTML report: verdicts, herd-effect figures, counterexamples",
		Long: `report runs the teaching suite and the herd sweeps in the simulator and writes
the HTML report under --out (default reports/out/index.html): the verdict
table, the figures (notifications and requests per lock release and per
leader change against the clients contending, recipe beside its herd
variant; acquisition latency; traffic per server around a release), each
counterexample's timeline and porcupine's visualization. --live adds points
measured on a local live ensemble (up to about 100 clients) to the same
axes.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutDir("--out", out); err != nil {
				return err
			}
			var sizes []int
			if withLive {
				for _, f := range strings.Split(liveSizes, ",") {
					var n int
					if _, err := fmt.Sscan(f, &n); err != nil || n < 1 || n > 200 {
						return usageError{fmt.Errorf("--live-clients: %q: want numbers from 1 to 200, comma-separated", f)}
					}
					sizes = append(sizes, n)
				}
			}
			// The first interrupt ends the work (the live sweep at once, with
			// the servers; the simulations at their next step) and leaves
			// --out as it was.
			ctx, cancel := interruptContext()
			defer cancel()
			stage, err := stageOut(out)
			if err != nil {
				return err
			}
			defer stage.abandon()
			var liveSeries []search.HerdSeries
			if withLive {
				// While the servers start, localEnsemble stops them on an
				// interrupt; once they run, one handler stops them and
				// removes their directories and the report's scratch.
				e, stop, err := localEnsemble(cmd, 3, func(os.Signal) {}, live.EnsembleOptions{})
				if err != nil {
					return err
				}
				defer stop()
				endLive := interruptible(cmd, func() string { stop(); return stage.leave() })
				for _, v := range []string{"", "lock-herd"} {
					s, err := search.LiveHerdSweep(scenarios.LiveOptions{Servers: e.ConnectString(), Ensemble: e, Timeout: 2 * time.Minute},
						func() (rx, tx int64) { rx, tx, _ = e.ServerCounters(); return rx, tx }, "lock", v, sizes, cmd.ErrOrStderr())
					if err != nil {
						return err
					}
					liveSeries = append(liveSeries, s)
				}
				endLive()
			}
			r, err := buildReport(ctx, cmd, stage, search.ReportOptions{Progress: cmd.ErrOrStderr()}, liveSeries)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (%d of %d verdicts as expected, %d figure files)\n", r.Index,
				r.Matches(), len(r.Verdicts), len(r.Figures))
			if r.Matches() != len(r.Verdicts) {
				return errViolations
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", filepath.Join("reports", "out"), "where to write the report")
	f.BoolVar(&withLive, "live", false, "add points measured on a local live ensemble")
	f.StringVar(&liveSizes, "live-clients", "2,5,10,20,50", "the live sweep's client counts")
	return cmd
}

// buildReport makes the report's runs (search.ForReport), renders them
// into stage with the live series, and publishes it. When ctx is cancelled
// (an interrupt) it publishes nothing, says so, and ends with
// errInterrupted.
func buildReport(ctx context.Context, cmd *cobra.Command, stage *stagedOut, opt search.ReportOptions, liveSeries []search.HerdSeries) (*reports.Report, error) {
	runs, err := search.ForReport(ctx, opt)
	var r *reports.Report
	if err == nil {
		r, err = reports.Build(reports.Options{Out: stage.Dir, Runs: runs, Live: liveSeries})
	}
	if ctx.Err() != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "interrupted; %s\n", stage.leave())
		return nil, errInterrupted
	}
	if err != nil {
		return nil, err
	}
	if err := stage.publish(); err != nil {
		return nil, err
	}
	r.Dir, r.Index = stage.final, stage.path("index.html")
	return r, nil
}
