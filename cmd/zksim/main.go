// Command zksim runs ZooKeeper recipes in a deterministic simulated ensemble
// and shows what happened.
//
// Exit status: 0 when the run held, 1 when it found a violation or failed,
// 2 for bad input or usage.
package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// usageError marks an error as the user's input's fault: exit status 2.
type usageError struct{ error }

func main() {
	root := &cobra.Command{
		Use:           "zksim",
		Short:         "Deterministic simulation of the ZooKeeper recipes",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(demoCmd())
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "zksim:", err)
		var u usageError
		if errors.As(err, &u) || isCobraUsage(err) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// isCobraUsage recognises cobra's own argument errors (unknown command,
// wrong argument count), which are usage errors too.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "accepts ", "requires ", "unknown flag", "unknown shorthand"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
