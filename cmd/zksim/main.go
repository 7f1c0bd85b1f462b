// Command zksim runs ZooKeeper recipes in a deterministic simulated ensemble
// and shows what happened.
//
// Exit status: 0 when the run held, 1 when it found a violation or failed,
// 2 for bad input or usage, 3 when the run could not be made (no server
// reachable), 130 when interrupted.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zksim/zksim/live"
)

// usageError marks an error as the user's input's fault: exit status 2.
type usageError struct{ error }

// runNotMadeError says the run could not be made (no server could be
// reached, a local ensemble could not start): exit status 3, distinct
// from a verdict's 1.
type runNotMadeError struct{ error }

func main() {
	tuneGC()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// tuneGC sets the garbage collector for a batch simulator: the live data of
// a run is small and short-lived, so the heap may grow to seventeen times
// it before a collection (GOGC=1600), under a soft limit of 768 MiB, so that
// even a run of 10,000 clients stays well under 1 GiB (it peaks at about
// 780 MiB resident, the limit doing the collector's pacing). Measured here:
// GOGC=400 had taken 15–20% off Go's default on lock-contention and a third
// with 10,000 clients (whose coroutine stacks every collection scans);
// GOGC=1600 gives 5–10% more operations a second than GOGC=400 on
// lock-contention and 10–20% more seeds a second with faults. GOGC and
// GOMEMLIMIT in the environment override either.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(1600)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(768 << 20)
	}
}

// newRoot is the zksim command and its subcommands.
func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "zksim",
		Short:         "Deterministic simulation of the ZooKeeper recipes",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(demoCmd(), listCmd(), runCmd(), replayCmd(), checkCmd(), liveCmd(), ensembleCmd(), reportCmd(), benchCmd(), exploreCmd(),
		mergeCmd(), serveCmd())
	return root
}

// run runs the command line args and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		var quiet silentError
		if errors.As(err, &quiet) {
			return 1
		}
		var stopped interruptedError
		if errors.As(err, &stopped) {
			return 130
		}
		var failed childFailed
		if errors.As(err, &failed) {
			return failed.exitCode()
		}
		fmt.Fprintln(stderr, "zksim:", err)
		var notMade runNotMadeError
		if errors.As(err, &notMade) || errors.Is(err, live.ErrNoSession) {
			return 3
		}
		var u usageError
		if errors.As(err, &u) || isCobraUsage(err) {
			return 2
		}
		return 1
	}
	return 0
}

// isCobraUsage recognises cobra's own argument errors (unknown command,
// wrong argument count), which are usage errors too.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "accepts ", "requires ", "unknown flag", "unknown shorthand", "none of the others can be"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// printJSON prints v as one indented JSON object, as --json asks of
// every command that has it.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
