// Command zksim runs ZooKeeper recipes in a deterministic simulated ensemble
// and shows what happened.
//
// Exit status: 0 when the run held, 1 when it found a violation or failed,
// 2 for bad input or usage.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// usageError marks an error as the user's input's fault: exit status 2.
type usageError struct{ error }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the command line args and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	root := &cobra.Command{
		Use:           "zksim",
		Short:         "Deterministic simulation of the ZooKeeper recipes",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(demoCmd(), listCmd(), runCmd(), replayCmd(), checkCmd(), liveCmd(), ensembleCmd(), reportCmd(), benchCmd())
	if err := root.Execute(); err != nil {
		var quiet silentError
		if errors.As(err, &quiet) {
			return 1
		}
		fmt.Fprintln(stderr, "zksim:", err)
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
