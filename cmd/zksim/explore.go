package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/scenarios"
	"github.com/zksim/zksim/search"
)

// exploreOutput is what `zksim explore --json` prints.
type exploreOutput struct {
	Scenario        string           `json:"scenario"`
	Expected        string           `json:"expected"`
	AsExpected      bool             `json:"as_expected"`
	Seed            uint64           `json:"seed"`
	MinClients      int              `json:"min_clients"`
	MaxClients      int              `json:"max_clients"`
	MaxFaults       int              `json:"max_faults"`
	Faults          []string         `json:"faults"`
	Reads           bool             `json:"reads"`
	Notifications   bool             `json:"notifications"`
	Holds           bool             `json:"holds"`
	Explored        int              `json:"explored"`
	Complete        bool             `json:"complete"`
	Interrupted     bool             `json:"interrupted,omitempty"`
	Counterexamples []exploreExample `json:"counterexamples"`
	WallMs          int64            `json:"wall_ms"`
}

// exploreExample is one failing schedule found.
type exploreExample struct {
	Clients    int            `json:"clients"`
	Schedule   []string       `json:"schedule"` // each fault as the schedule syntax writes it
	TraceHash  string         `json:"trace_hash"`
	Violations []runViolation `json:"violations"`
	Replay     string         `json:"replay"`
}

func exploreCmd() *cobra.Command {
	var (
		e            search.Explore
		faults       string
		stop, asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "explore SCENARIO",
		Short: "Run every fault schedule within a bound (bounded exhaustive exploration)",
		Long: `explore runs a scenario under every fault schedule within a bound and says
how many it ran: each fault strikes at one of the run's events (a client's
write answered; with --reads its reads too, with --notifications the watch
notifications sent to it, with --holds, or a fenced workload, the moments a
client comes to hold its lock or leadership) and is one of a few kinds
(--faults; by default a lost reply, a lost request, a crash of the server
that applied it, a leader crash, a pause past the session timeout, a
disconnect just over and just under it, and a lag of the server that
applied it), at most --max-faults of them, each after the last, with --min-clients to --max-clients clients.
The runs' other choices come from --seed, so the same bound explores the
same schedules. A failing schedule is not extended: it is the smaller
counterexample. A progress line shows the schedules run.

Exit status: 0 when the outcome is what the scenario expects (no expect:
means pass), 1 when it is not, 2 for bad input, 130 when interrupted (after
printing what was explored).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExplore(cmd, args[0], e, faults, stop, asJSON)

		},
	}
	f := cmd.Flags()
	f.Uint64Var(&e.Seed, "seed", 1, "the seed of the runs' other choices")
	f.IntVar(&e.MinClients, "min-clients", 0, "the fewest clients explored (default: the scenario's)")
	f.IntVar(&e.MaxClients, "max-clients", 0, "the most clients explored (default: --min-clients)")
	f.IntVar(&e.MaxFaults, "max-faults", 2, "the most faults in a schedule")
	f.IntVar(&e.Limit, "limit", 0, "stop after this many runs (0: none)")
	f.StringVar(&faults, "faults", "", "the faults that may strike at an event, '; '-separated ({c}: its client; {over}, {under}: 1.5 and 0.8 session timeouts)")
	f.BoolVar(&e.Reads, "reads", false, "tie faults to the clients' reads too")
	f.BoolVar(&e.Notifications, "notifications", false, "tie faults to the watch notifications sent to the clients too")
	f.BoolVar(&e.Holds, "holds", false, "tie faults to the moments a client comes to hold its lock or leadership too (on for a fenced workload)")
	f.BoolVar(&stop, "stop-at-first", false, "stop at the first counterexample that breaks a safety or liveness check, or of the kind the scenario expects; a herd alone does not stop it")
	f.BoolVar(&asJSON, "json", false, "print one JSON object")
	return cmd
}

// runExplore is explore's work: load the scenario, check the bound, explore
// (until done or interrupted), print, and say how it went.
func runExplore(cmd *cobra.Command, name string, e search.Explore, faults string, stop, asJSON bool) error {
	sc, err := scenarios.LoadScenario(name)
	if err != nil {
		return usageError{err}
	}
	if err := checkExploreBounds(&e, sc); err != nil {
		return usageError{err}
	}
	if faults != "" {
		e.Faults = splitFaults(faults)
	}
	if len(e.Faults) == 0 {
		e.Faults = search.ExploreFaults
	}
	e.Spec, e.StopAtFirst = sc.Spec, stop
	if !sc.Expect.Pass && !sc.Expect.Kind.Dangerous() {
		e.StopAlso = []models.ViolationKind{sc.Expect.Kind} // the cost the scenario expects ends it
	}
	if err := e.Check(); err != nil {
		return usageError{err}
	}
	ctx, cancel := interruptContext()
	defer cancel()
	start := time.Now()
	// A bar on a terminal; off one (a log, a CI job), a line every five
	// seconds, so that a long exploration is seen to move.
	bar := newProgressLines(cmd.ErrOrStderr(), "explore "+sc.Name, "schedules", 5*time.Second)
	e.Progress = func(explored, failed int) { bar.set(explored, failed) }
	res, err := e.RunContext(ctx)
	bar.done()
	interrupted := errors.Is(err, context.Canceled)
	if err != nil && !interrupted {
		return err
	}
	o := exploreOutput{Scenario: sc.Name, Expected: sc.Expect.String(), Seed: e.Seed, MinClients: e.MinClients,
		MaxClients: e.MaxClients, MaxFaults: e.MaxFaults, Faults: e.Faults, Reads: e.Reads,
		Notifications: e.Notifications, Holds: e.Holds || sc.Spec.Workload.Fenced, Explored: res.Explored, Complete: res.Complete, Interrupted: interrupted,
		Counterexamples: []exploreExample{}, WallMs: time.Since(start).Milliseconds()}
	var all []models.Violation
	for _, c := range res.Counterexamples {
		all = append(all, c.Violations...)
		o.Counterexamples = append(o.Counterexamples, exploreExample{Clients: c.Clients, Schedule: c.Schedule.Texts(),
			TraceHash: c.TraceHash, Violations: violationsOf(c.Seed, c.Schedule.Texts(), c.TraceHash, c.Violations),
			Replay: fmt.Sprintf("zksim replay %s --seed %d --clients %d --faults '%s'",
				name, c.Seed, c.Clients, orNone(c.Faults()))})
	}
	// An interrupted exploration decides nothing: the schedules it did not
	// run might have met or broken the expectation.
	o.AsExpected = sc.Expect.Met(all) && !interrupted
	if asJSON {
		if err := printJSON(cmd.OutOrStdout(), o); err != nil {
			return err
		}
	} else {
		printExplore(cmd.OutOrStdout(), o)
	}
	switch {
	case interrupted:
		return errInterrupted
	case !o.AsExpected:
		return errViolations
	}
	return nil
}

// checkExploreBounds refuses bounds that mean nothing, before any run.
func checkExploreBounds(e *search.Explore, sc *scenarios.Scenario) error {
	switch {
	case e.Seed == 0:
		return fmt.Errorf("--seed: want a seed of 1 or more")
	case e.MaxFaults < 1:
		return fmt.Errorf("--max-faults: want at least 1, got %d", e.MaxFaults)
	case e.MinClients < 0 || e.MaxClients < 0:
		return fmt.Errorf("--min-clients, --max-clients: want at least 1")
	case e.MaxClients > 0 && e.MinClients > e.MaxClients:
		return fmt.Errorf("--min-clients %d is more than --max-clients %d", e.MinClients, e.MaxClients)
	case e.Limit < 0:
		return fmt.Errorf("--limit: want 0 (none) or more, got %d", e.Limit)
	}
	if e.MinClients == 0 {
		e.MinClients = sc.Spec.ClientCount()
		if e.MaxClients > 0 && e.MaxClients < e.MinClients {
			return fmt.Errorf("--max-clients %d is fewer than the scenario's %d clients, the fewest explored by default: "+
				"give --min-clients too", e.MaxClients, e.MinClients)
		}
	}
	if e.MaxClients == 0 {
		e.MaxClients = e.MinClients
	}
	return nil
}

// splitFaults reads "; "-separated fault texts.
func splitFaults(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ";") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func printExplore(w io.Writer, o exploreOutput) {
	how := "every schedule within the bound"
	switch {
	case o.Interrupted:
		how = "interrupted: part of the bound"
	case !o.Complete:
		how = "stopped early: part of the bound"
	}
	plural := "s"
	if o.MaxFaults == 1 {
		plural = ""
	}
	fmt.Fprintf(w, "%s: %d schedules explored (%s: up to %d fault%s from {%s} at each write", o.Scenario, o.Explored, how,
		o.MaxFaults, plural, strings.Join(o.Faults, "; "))
	if o.Reads {
		fmt.Fprint(w, ", read")
	}
	if o.Notifications {
		fmt.Fprint(w, ", notification")
	}
	if o.Holds {
		fmt.Fprint(w, ", holding")
	}
	fmt.Fprintf(w, ", %d to %d clients, seed %d) in %dms: ", o.MinClients, o.MaxClients, o.Seed, o.WallMs)
	if len(o.Counterexamples) == 0 {
		fmt.Fprintln(w, "no counterexample")
	} else {
		fmt.Fprintf(w, "%d counterexamples\n", len(o.Counterexamples))
		for i, c := range o.Counterexamples {
			if i == 5 {
				fmt.Fprintf(w, "  ... and %d more (--json lists them all)\n", len(o.Counterexamples)-5)
				break
			}
			fmt.Fprintf(w, "  %d clients, faults: %s\n", c.Clients, orNone(strings.Join(c.Schedule, "; ")))
			for _, v := range c.Violations {
				fmt.Fprintf(w, "    %s (%s): %s\n", v.Check, v.Kind, v.Message)
			}
			fmt.Fprintf(w, "    replay: %s\n", c.Replay)
		}
	}
	verdict := "as expected"
	switch {
	case o.Interrupted:
		verdict = "not decided (interrupted)"
	case !o.AsExpected:
		verdict = "NOT as expected"
	}
	fmt.Fprintf(w, "expected: %s: %s\n", o.Expected, verdict)
}

// errInterrupted ends a command that was interrupted, after it printed
// what it finished: exit status 130.
var errInterrupted = interruptedError{fmt.Errorf("interrupted")}

type interruptedError struct{ error }
