package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/reports"
	"github.com/zksim/zksim/scenarios"
)

// What zksim serve and zksim replay --tape say of a served run: who came,
// how long it ran, the faults, the checks that judged it and what they
// found; its timeline on request.

// servedSummary is the one-object form of a served run's summary (--json).
func servedSummary(o *scenarios.Outcome, seed uint64) map[string]any {
	res := o.Result
	var vs []map[string]any
	for _, v := range o.Violations {
		vs = append(vs, map[string]any{"check": v.Check, "kind": string(v.Kind), "at_ns": v.At, "message": v.Message})
	}
	return map[string]any{"scenario": o.Spec.Name, "seed": seed, "clients": o.World.Clients(),
		"virtual_ms": res.End.Std().Milliseconds(), "trace_hash": scenarios.HashString(res.Hash), "records": res.Records,
		"faults_struck": res.Struck.Texts(), "checks": o.Spec.Checks, "violations": append([]map[string]any{}, vs...),
		"self_check_violations": append([]string{}, res.Violations...), "verdict": servedVerdict(o),
		"recording_clients": append([]string{}, recorders(o)...)}
}

// recorders are the clients whose operations the recipe events hold, in
// their order: a process names its first session's client on every event,
// so a session it opened and lost before it knew of it (its connect
// answer lost) is a client that records nothing.
func recorders(o *scenarios.Outcome) []string {
	seen := map[int]bool{}
	for _, op := range o.Input.Ops {
		seen[op.Client] = true
	}
	var names []string
	for c := range len(o.World.Clients()) {
		if seen[c] {
			names = append(names, fmt.Sprintf("c%d", c+1))
		}
	}
	return names
}

// servedVerdict is "held" or the checks that found a violation.
func servedVerdict(o *scenarios.Outcome) string {
	if len(o.Violations) == 0 && len(o.Result.Violations) == 0 {
		return "held"
	}
	var checks []string
	for _, v := range o.Violations {
		checks = append(checks, v.Check)
	}
	if len(o.Result.Violations) > 0 {
		checks = append(checks, "self-check")
	}
	return "violation (" + strings.Join(checks, ", ") + ")"
}

// printServedOutcome prints a served run's summary, its violations (their
// report's files written into out, if set), and its timeline when asked.
// An interrupt while the report is written ends it, once written, with
// errInterrupted.
func printServedOutcome(w io.Writer, o *scenarios.Outcome, seed uint64, timeline bool, out string) error {
	res := o.Result
	if timeline {
		t, err := reports.NewTimeline(o)
		if err != nil {
			return err
		}
		fmt.Fprint(w, t.String())
	}
	clients := fmt.Sprintf("%d client(s)", len(o.World.Clients()))
	if rec := recorders(o); len(rec) > 0 && len(rec) < len(o.World.Clients()) {
		clients += fmt.Sprintf(" (%s recorded operations)", strings.Join(rec, ", "))
	}
	fmt.Fprintf(w, "%s, seed %d: served %s for %s of virtual time; %d fault(s) struck; trace hash %s\n",
		o.Spec.Name, seed, clients, res.End.Std().Round(time.Millisecond), len(res.Struck), scenarios.HashString(res.Hash))
	judged := "those that need nothing from the clients"
	if n := len(o.Input.Ops); n > 0 {
		judged = fmt.Sprintf("on the %d operations the clients recorded and what the servers saw", n)
	}
	fmt.Fprintf(w, "checks: %s (%s): %s\n", strings.Join(o.Spec.Checks, ", "), judged, servedVerdict(o))
	interrupted := false
	if o.Failed() {
		r := &reports.ViolationReport{Outcome: o}
		if out != "" {
			var err error
			if interrupted, err = writeViolationReport(r, out); err != nil {
				return err
			}
		}
		if !timeline {
			fmt.Fprint(w, r)
		}
	}
	for _, v := range o.Violations {
		if timeline {
			fmt.Fprintf(w, "  %s %s: %s\n", v.Check, kindWord(v.Kind), v.Message)
		}
	}
	for _, v := range res.Violations {
		fmt.Fprintf(w, "  simulator self-check failed: %s\n", v)
	}
	if interrupted {
		return errInterrupted
	}
	return nil
}

// kindWord is a violation's kind as the summary says it.
func kindWord(k models.ViolationKind) string { return string(k) + " violation" }
