package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/scenarios"
)

func checkCmd() *cobra.Command {
	var model, out string
	cmd := &cobra.Command{
		Use:   "check HISTORY.json [--model NAME]",
		Short: "Check a recorded history (also one recorded elsewhere) as a run does, or with one model or checker",
		Long: `check reads a history as zksim writes it (history.json in a violation
report: the operations, the run's kind, checks and end) and judges it as the
run that recorded it did: the same checks, the same violations in the same
words. --model judges it with one porcupine model or checker instead (zksim
list prints them); a bare JSON list of operations (the fields are
models.Operation's; a client is "c1", "c2", ..., or a number from 0),
recorded elsewhere, needs --model. --out writes
porcupine's visualization of a failed linearizability check.

Exit status: 0 when the history holds, 1 when it does not, 2 for bad input
(an unknown model, kind or check, or one not of the history's kind; a
malformed history: an unknown operation or result, an operation that
returns before its call or before the run, a negative client, a missing
kind, more after the JSON document; a file that is not a regular file or
is over a gigabyte).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runCheck(cmd, args[0], model, out) },
	}
	cmd.Flags().StringVar(&model, "model", "", "the porcupine model or checker to judge with")
	cmd.Flags().StringVar(&out, "out", "", "write porcupine's visualization of a failed check to this HTML file")
	return cmd
}

// jsonError says where a JSON document went wrong: its line, and what.
func jsonError(data []byte, err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	offset := int64(-1)
	msg := err.Error()
	switch {
	case errors.As(err, &syn):
		offset = syn.Offset
	case errors.As(err, &typ):
		offset = typ.Offset
		msg = fmt.Sprintf("%s: want %s, got %s", typ.Field, typ.Type, typ.Value)
	}
	if offset < 0 {
		return " " + msg
	}
	line := 1 + bytes.Count(data[:min(int(offset), len(data))], []byte("\n"))
	return fmt.Sprintf("%d: %s", line, msg)
}

// writeVisualization writes porcupine's visualization of v into file.
func writeVisualization(file string, v models.Violation) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := v.Linearization.Visualize(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// runCheck is zksim check of the history at path, with one model or
// checker (model) or the history's own, writing porcupine's visualization
// of a failed check into out.
func runCheck(cmd *cobra.Command, path, model, out string) error {
	var checks []string
	if model != "" {
		c, err := models.Lookup(model)
		if err != nil {
			return usageError{fmt.Errorf("--model: %w", err)}
		}
		checks = []string{c.Name}
	}
	if out != "" {
		if err := checkOutFile("--out", out); err != nil {
			return err
		}
	}
	data, err := scenarios.ReadHistoryFile(path)
	if err != nil {
		return usageError{err}
	}
	h, err := scenarios.ParseHistory(data)
	if err != nil {
		var syntax *json.SyntaxError
		var typ *json.UnmarshalTypeError
		if errors.As(err, &syntax) || errors.As(err, &typ) {
			return usageError{fmt.Errorf("%s:%s", path, jsonError(data, err))}
		}
		return usageError{fmt.Errorf("%s: %w", path, err)}
	}
	if kc := scenarios.KindChecks(h.Kind); len(checks) > 0 && kc != nil && !slices.Contains(kc, checks[0]) {
		return usageError{fmt.Errorf("--model %s: not a check of kind %s, whose history it could not judge; want one of %s",
			checks[0], h.Kind, strings.Join(kc, ", "))}
	}
	if len(checks) == 0 && len(h.Checks) == 0 {
		return usageError{fmt.Errorf("%s: a history without its checks (a bare list of operations): name a model or checker with --model (zksim list prints them)", path)}
	}
	vs, err := h.Judge(checks...)
	if err != nil {
		return usageError{err}
	}
	w := cmd.OutOrStdout()
	if len(vs) == 0 {
		names := checks
		if len(names) == 0 {
			names = h.Checks
		}
		fmt.Fprintf(w, "%s: %d operations hold under %s\n", path, len(h.Ops), strings.Join(names, ", "))
		return nil
	}
	for _, v := range vs {
		fmt.Fprintln(w, v)
		if out != "" && v.Linearization != nil {
			if err := writeVisualization(out, v); err != nil {
				return err
			}
			fmt.Fprintf(w, "wrote %s\n", out)
			out = ""
		}
	}
	return errViolations
}
