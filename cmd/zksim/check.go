package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/zksim/zksim/models"
)

func checkCmd() *cobra.Command {
	var model, out string
	cmd := &cobra.Command{
		Use:   "check HISTORY.json --model NAME",
		Short: "Check a recorded history (also one recorded elsewhere) with a model or checker",
		Long: `check reads a history, a JSON list of operations as zksim writes them
(history.json in a violation report; the fields are models.Operation's), and
judges it with the named porcupine model or checker (zksim list prints them).
--out writes porcupine's visualization of a failed linearizability check.

Exit status: 0 when the history holds, 1 when it does not, 2 for bad input.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if model == "" {
				return usageError{fmt.Errorf("--model: name the model or checker (zksim list prints them)")}
			}
			c, err := models.Lookup(model)
			if err != nil {
				return usageError{fmt.Errorf("--model: %w", err)}
			}
			if out != "" {
				if err := checkOutFile("--out", out); err != nil {
					return err
				}
			}
			data, err := os.ReadFile(args[0])
			if err != nil {
				return usageError{err}
			}
			var ops []models.Operation
			if err := json.Unmarshal(data, &ops); err != nil {
				return usageError{fmt.Errorf("%s:%s", args[0], jsonError(data, err))}
			}
			vs := c.Check(&models.Input{Ops: ops})
			w := cmd.OutOrStdout()
			if len(vs) == 0 {
				fmt.Fprintf(w, "%s: %d operations hold under %s\n", args[0], len(ops), c.Name)
				return nil
			}
			for _, v := range vs {
				fmt.Fprintln(w, v)
				if out != "" && v.Linearization != nil {
					f, err := os.Create(out)
					if err != nil {
						return err
					}
					if err := v.Linearization.Visualize(f); err != nil {
						f.Close()
						return err
					}
					if err := f.Close(); err != nil {
						return err
					}
					fmt.Fprintf(w, "wrote %s\n", out)
					out = ""
				}
			}
			return errViolations
		},
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
