package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/scenarios"
	"github.com/zksim/zksim/serve"
)

// Shrinking a served run's schedule. Real clients do not replay, so a
// schedule fails in some of its runs, not all: a fault is left out when the
// schedule without it still breaks a check in at least --min-fails of
// --runs runs (issue 48's m of K). Each try serves the scenario --runs
// times with the command, quietly; a line says what each try found.

// shrinkServed shrinks opts.Faults, fault by fault, and prints the
// smallest schedule found and its reproduction rate. It reports whether
// that schedule breaks a check (in at least minFails of the runs).
func shrinkServed(out servedOut, sc *scenarios.Scenario, opts serve.Options, command []string, fl serveFlags) (bool, error) {
	runs, minFails := max(fl.runs, 1), max(fl.minFails, 1)
	rate := func(sched fault.Schedule) (int, bool, error) {
		o := opts
		o.Faults = sched
		return brokenRuns(o, sc, command, fl, runs)
	}
	sched := opts.Faults
	broke, interrupted, err := rate(sched)
	fmt.Fprintf(out.w, "shrink: the schedule of %d fault(s) broke a check in %d of %d runs\n", len(sched), broke, runs)
	if err != nil || interrupted || broke < minFails {
		return broke >= minFails, err
	}
	for i := 0; i < len(sched) && !interrupted; {
		without := slices.Delete(slices.Clone(sched), i, i+1)
		n, stopped, err := rate(without)
		if err != nil {
			return true, err
		}
		interrupted = stopped
		kept := n >= minFails
		fmt.Fprintf(out.w, "shrink: without %q: broke in %d of %d runs; %s\n", sched[i], n, runs, map[bool]string{true: "left out", false: "kept"}[kept])
		if kept {
			sched, broke = without, n
			continue
		}
		i++
	}
	fmt.Fprintf(out.w, "shrink: smallest schedule found (%d fault(s)), broke a check in %d of %d runs: %s\n", len(sched), broke, runs,
		scheduleText(sched))
	if interrupted {
		return true, interruptedError{fmt.Errorf("interrupted while shrinking")}
	}
	return true, nil
}

// brokenRuns serves the scenario runs times with the command, quietly,
// and counts the runs in which a check broke.
func brokenRuns(opts serve.Options, sc *scenarios.Scenario, command []string, fl serveFlags, runs int) (int, bool, error) {
	quiet := servedOut{io.Discard, io.Discard}
	broke := 0
	for range runs {
		r, err := serveOnce(quiet, sc, opts, command, fl, "")
		if err != nil {
			return broke, false, err
		}
		if r.broke() {
			broke++
		}
		if r.interrupted {
			return broke, true, nil
		}
	}
	return broke, false, nil
}

// scheduleText is a schedule as --faults takes it ("none" for no fault).
func scheduleText(s fault.Schedule) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s.Texts(), "; ")
}
