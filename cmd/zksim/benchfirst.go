package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/zksim/zksim/scenarios"
)

// firstCounterexample is how long one teaching variant takes, from the
// start of a `zksim run --stop-at-first` process to its verdict, plain
// and with --shrink: the medians of several processes.
type firstCounterexample struct {
	Scenario string `json:"scenario"`
	// Seed is the first failing seed found; SeedsRun how many seeds the
	// process ran to find it (every core runs one at a time).
	Seed     uint64  `json:"seed"`
	SeedsRun int     `json:"seeds_run"`
	Ms       float64 `json:"median_ms"`
	ShrinkMs float64 `json:"shrink_median_ms"`
	// Shrunk is the shrunk counterexample's fault count and clients.
	ShrunkFaults  string `json:"shrunk_faults"`
	ShrunkClients int    `json:"shrunk_clients"`
}

// teachingVariants are the built-in scenarios that expect a violation.
func teachingVariants() ([]string, error) {
	lib, err := scenarios.Library()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, sc := range lib {
		if !sc.Expect.Pass {
			names = append(names, sc.Name)
		}
	}
	return names, nil
}

// measureFirstCounterexamples times, for every teaching variant, `runs`
// processes of this executable running it until its first violation, and
// as many with --shrink. Each must find the violation its scenario
// expects.
func measureFirstCounterexamples(runs, only int) ([]firstCounterexample, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	names, err := teachingVariants()
	if err != nil {
		return nil, err
	}
	if only > 0 {
		names = names[:min(only, len(names))]
	}
	var out []firstCounterexample
	for _, name := range names {
		fc := firstCounterexample{Scenario: name}
		var plain, shrunk []time.Duration
		for range runs {
			o, wall, err := timeFirstRun(exe, name, false)
			if err != nil {
				return nil, err
			}
			plain = append(plain, wall)
			fc.Seed, fc.SeedsRun = o.Violations[0].Seed, o.Ran
			if o, wall, err = timeFirstRun(exe, name, true); err != nil {
				return nil, err
			}
			shrunk = append(shrunk, wall)
			fc.ShrunkFaults, fc.ShrunkClients = strings.Join(o.Shrunk.Schedule, "; "), o.Shrunk.Clients
		}
		fc.Ms, fc.ShrinkMs = medianMs(plain), medianMs(shrunk)
		out = append(out, fc)
	}
	return out, nil
}

// timeFirstRun runs `zksim run NAME --stop-at-first --json [--shrink]` in a
// process of its own and returns what it printed and its wall time from
// start to exit.
func timeFirstRun(exe, name string, shrink bool) (runOutput, time.Duration, error) {
	args := []string{"run", name, "--stop-at-first", "--json"}
	if shrink {
		args = append(args, "--shrink")
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	began := time.Now()
	err := cmd.Run()
	wall := time.Since(began)
	var o runOutput
	if jerr := json.Unmarshal(stdout.Bytes(), &o); jerr != nil {
		return o, 0, fmt.Errorf("zksim %v: %v, %v: %s", args, err, jerr, stderr.Bytes())
	}
	if err != nil || !o.AsExpected || len(o.Violations) == 0 || (shrink && o.Shrunk == nil) {
		return o, 0, fmt.Errorf("zksim %v: got %s, expected %s (%v)", args, o.Got, o.Expected, err)
	}
	return o, wall, nil
}

func medianMs(ds []time.Duration) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[len(s)/2].Microseconds()) / 1000
}
