package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/live"
	"github.com/zksim/zksim/scenarios"
)

var (
	libraries     = flag.Bool("libraries", false, "TestLibraryTable: run every library recipe under every trial (make libraries)")
	librariesRuns = flag.Int("libraries.runs", 3, "TestLibraryTable: the runs of each trial")
	librariesOut  = flag.String("libraries.out", "", "TestLibraryTable: write the table (Markdown) to this file too")
	// Two at once suit two cores: a trial's clients mostly wait on the
	// simulated ensemble's clock.
	librariesOnly     = flag.String("libraries.only", "", "TestLibraryTable: only the trials whose \"library recipe: faults\" this regular expression matches")
	librariesTapes    = flag.String("libraries.tapes", "", "TestLibraryTable: keep each breaking trial's first breaking run's tape in this directory")
	librariesParallel = flag.Int("libraries.parallel", 2, "TestLibraryTable: the trials run at once")
)

// librariesReady installs what the library recipes need and compiles the
// Java; it fails, saying what is missing and how to get it, rather than
// skip.
func librariesReady(t *testing.T) string {
	t.Helper()
	for _, ensure := range []func() error{func() error { return live.EnsureInstalled(os.Stderr) },
		func() error { return harness.EnsureInstalled(os.Stderr) }} {
		if err := ensure(); err != nil {
			t.Fatal(err)
		}
	}
	classes := t.TempDir()
	if err := harness.CompileJava(classes); err != nil {
		t.Fatal(err)
	}
	return classes
}

// serveRecipe serves r's scenario under faults, runs times, its clients
// run with args, and returns zksim serve's exit status and output; with
// tape set, the first breaking run's tape is kept there (--tape).
func serveRecipe(r harness.Recipe, classes, faults, args string, runs int, tape string) (int, string) {
	return serveTrial(r, r.Command(classes, args), faults, runs, tape)
}

// serveTrial is serveRecipe with the shell command that runs the clients.
func serveTrial(r harness.Recipe, command, faults string, runs int, tape string) (int, string) {
	var out bytes.Buffer
	argv := []string{"serve", r.Scenario, "--faults", faults, "--runs", fmt.Sprint(runs)}
	if tape != "" {
		argv = append(argv, "--tape", tape)
	}
	code := run(append(argv, "--", "sh", "-c", command), &out, &out)
	return code, out.String()
}

// kazoo's Lock and Curator's InterProcessMutex, the table's first rows,
// unmodified, judged through zksim serve by the lock's checks on what
// their clients recorded, without faults: each holds. Curator's
// DistributedAtomicLong under a short schedule that breaks it: the reply
// to its setData lost, the retried setData fails on its own write's
// version and the increment is applied again. And, in the full run,
// kazoo's Lock under a schedule that breaks it: its holder, cut off past
// its session timeout, goes on using what the lock protects after the
// servers gave the lock to the next client (the lock does not watch its
// session).
func TestServeJudgesKazooAndCurator(t *testing.T) {
	classes := librariesReady(t)
	// The two locks; the other recipes are kazoo_test's and curator_test's.
	for _, r := range harness.Recipes()[:2] {
		code, out := serveRecipe(r, classes, "none", r.Args, 1, "")
		if code != 0 || !strings.Contains(out, "(on the ") || !strings.Contains(out, "): held") {
			t.Errorf("%s %s under no fault: exit %d, want its kind's checks held on what its clients recorded\n%s", r.Library, r.Name, code, out)
		}
	}
	atomic := recipeNamed(t, "DistributedAtomicLong")
	code, out := serveRecipe(atomic, classes, "when c1 setData#1 applied: lose-reply", "1 4 10", 1, "")
	if code != 1 || !strings.Contains(out, "counter (safety)") || !strings.Contains(out, "an increment was applied twice") {
		t.Errorf("Curator's DistributedAtomicLong, its setData's reply lost: exit %d, want a counter violation\n%s", code, out)
	}
	if testing.Short() {
		t.Log("-short (the race run): kazoo's Lock under the cut-off runs in the full run")
		return
	}
	kazoo := harness.Recipes()[0]
	code, out = serveRecipe(kazoo, classes, "at 1s disconnect c1 for 14s", "1 14 1", 1, "")
	if code != 1 || !strings.Contains(out, "mutex (safety)") || !strings.Contains(out, "c1 and c2 held it at once") {
		t.Fatalf("kazoo's Lock, its holder cut off past its session timeout: exit %d, want a mutex violation\n%s", code, out)
	}
	// c1's process opened a new session after its first expired: a fourth
	// client, which records nothing (its events name the first session).
	if !strings.Contains(out, "served 4 client(s) (c1, c2, c3 recorded operations)") {
		t.Errorf("the summary does not say which of the four clients recorded operations:\n%s", out)
	}
}

// recipeNamed is the table's recipe of that name.
func recipeNamed(t *testing.T, name string) harness.Recipe {
	t.Helper()
	for _, r := range harness.Recipes() {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no recipe %s in the table", name)
	return harness.Recipe{}
}

// brokeIn reads "a check broke in k of K runs [...]" and its caveats (the
// runs stopped, faults that did not strike in every run).
var brokeIn = regexp.MustCompile(`a check broke in (\d+) of (\d+) runs \[[0-9 ]*\]((?:; [^;(]+)*)`)

// TestLibraryTable runs every library recipe under every trial, each
// --libraries.runs times, --libraries.parallel trials at once, and prints
// the table README holds (make libraries; not part of make test, where
// TestServeJudgesKazooAndCurator, kazoo_test and curator_test run each
// recipe once). Each trial's verdict is logged as it comes.
func TestLibraryTable(t *testing.T) {
	if !*libraries {
		t.Log("the library table runs with -libraries (make libraries)")
		return
	}
	rows := tableTrials(t)
	classes := librariesReady(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	slots, done, began := make(chan struct{}, max(*librariesParallel, 1)), 0, time.Now()
	for _, w := range rows {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			kept := w.run(classes)
			mu.Lock()
			done++
			t.Logf("[%d/%d, %s in all] %s %s, %s (%s): %s [%s]%s", done, len(rows), time.Since(began).Round(time.Second),
				w.r.Library, w.r.Name, w.trial.Faults, w.trial.Why, w.verdict, w.took, kept)
			mu.Unlock()
		}()
	}
	wg.Wait()
	table := tableMarkdown(rows)
	t.Logf("the table:\n%s", table)
	if *librariesOut != "" {
		if err := os.WriteFile(*librariesOut, []byte(table), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// tableRow is one trial of the library table and how it went.
type tableRow struct {
	r       harness.Recipe
	trial   harness.Trial
	verdict string
	took    time.Duration
}

// tableTrials are the trials -libraries.only selects, and the tapes'
// directory made.
func tableTrials(t *testing.T) []*tableRow {
	only, err := regexp.Compile(*librariesOnly)
	if err != nil {
		t.Fatalf("-libraries.only: %v", err)
	}
	var rows []*tableRow
	for _, r := range harness.Recipes() {
		for _, trial := range r.Trials {
			if only.MatchString(fmt.Sprintf("%s %s: %s", r.Library, r.Name, trial.Faults)) {
				rows = append(rows, &tableRow{r: r, trial: trial})
			}
		}
	}
	if len(rows) == 0 {
		t.Fatalf("-libraries.only %q matches no trial: a trial is named \"library recipe: faults\", as \"kazoo 2.8 Counter: none\"", *librariesOnly)
	}
	if *librariesTapes != "" {
		if err := os.MkdirAll(*librariesTapes, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return rows
}

// run serves the trial --libraries.runs times and sets its verdict; it
// returns where the tape of a breaking trial was kept, for the log.
func (w *tableRow) run(classes string) (kept string) {
	start := time.Now()
	tape := ""
	if *librariesTapes != "" {
		tape = filepath.Join(*librariesTapes, tapeName(w.r, w.trial))
	}
	code, out := serveTrial(w.r, w.r.TrialCommand(w.trial, classes), w.trial.Faults, *librariesRuns, tape)
	w.verdict, w.took = tableVerdict(out), time.Since(start).Round(time.Second)
	switch {
	case tape == "":
	case code != 1:
		os.Remove(tape) //nolint:errcheck // kept only where a check broke
	default:
		kept = "; its tape: " + tape
	}
	return kept
}

// tableMarkdown is the table as README holds it.
func tableMarkdown(rows []*tableRow) string {
	var table strings.Builder
	table.WriteString("| library | recipe | promises | scenario | faults | clients | runs | time | verdict |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, w := range rows {
		fmt.Fprintf(&table, "| %s | %s | %s | %s | `%s` (%s) | %d | %d | %s | %s |\n", w.r.Library, w.r.Name, w.r.Promise, w.r.Scenario,
			w.trial.Faults, w.trial.Why, w.r.Clients, *librariesRuns, w.took, w.verdict)
	}
	return table.String()
}

// tapeName is the file a trial's tape is kept in: its library, recipe and
// faults, in letters, digits and dashes.
func tapeName(r harness.Recipe, t harness.Trial) string {
	name := strings.ToLower(fmt.Sprintf("%s %s %s", r.Library, r.Name, t.Faults))
	name = regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(name, "-")
	return strings.Trim(name, "-") + ".tape"
}

// tableVerdict is a trial's verdict as the table says it: held in every
// run, or broke in k of K with the checks that broke.
func tableVerdict(out string) string {
	m := brokeIn.FindStringSubmatch(out)
	if m == nil {
		return "did not run: " + lastLine(out)
	}
	caveats := strings.ReplaceAll(strings.TrimSpace(m[3]), "; ", ", ")
	if caveats != "" {
		caveats = " (" + strings.TrimPrefix(strings.TrimSpace(caveats), ", ") + ")"
	}
	if m[1] == "0" {
		return fmt.Sprintf("held in %s of %s%s", m[2], m[2], caveats)
	}
	checks := map[string]bool{}
	var names []string
	for _, c := range regexp.MustCompile(`violation \(([a-z0-9, -]+)\)`).FindAllStringSubmatch(out, -1) {
		for _, name := range strings.Split(c[1], ", ") {
			if !checks[name] {
				checks[name] = true
				names = append(names, name)
			}
		}
	}
	return fmt.Sprintf("**broke** in %s of %s (%s)%s", m[1], m[2], strings.Join(names, ", "), caveats)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// "pause c1" stops c1's process alone, as a collection pause stops one
// process: of two kazoo clients, each its own process, the first stops
// for 2s while the second goes on (each prints the longest it went
// without waking from a 50ms sleep).
func TestServePausesOneProcessOfTheCommand(t *testing.T) {
	librariesReady(t)
	program := `import os, sys, time
from kazoo.client import KazooClient
zk = KazooClient(hosts=os.environ["ZKSIM_CONNECT"], timeout=10)
zk.start(timeout=30)
longest, last, end = 0, time.monotonic(), time.monotonic() + 6
while time.monotonic() < end:
    time.sleep(0.05)
    now = time.monotonic()
    longest, last = max(longest, now - last), now
print(sys.argv[1], "%.1f" % longest, flush=True)
zk.stop()`
	// The first runs under GNU timeout, as the table's programs do, which
	// puts it in a process group of its own.
	script := fmt.Sprintf(`timeout 60 %s -c '%s' first & sleep 1; %s -c '%s' second & wait`, harness.Python, program, harness.Python, program)
	// zksim serve writes what it paused into the writer the command's
	// errors are copied into meanwhile (by exec's goroutine, as the
	// writer is no file): a plain buffer, which zksim serve must lock.
	var out, errOut bytes.Buffer
	code := run([]string{"serve", "lock-contention", "--faults", "at 2s pause c1 2s", "--", "sh", "-c", script}, &out, &errOut)
	if code != 0 {
		t.Fatalf("zksim serve exited %d\n%s\n%s", code, out.String(), errOut.String())
	}
	gaps := map[string]float64{}
	for _, m := range regexp.MustCompile(`(?m)^(first|second) ([0-9.]+)$`).FindAllStringSubmatch(out.String(), -1) {
		var g float64
		fmt.Sscan(m[2], &g)
		gaps[m[1]] = g
	}
	if len(gaps) != 2 || gaps["first"] < 1.5 || gaps["second"] > 1 {
		t.Fatalf("longest waits %v, want the first client's process stopped about 2s and the second's not\n%s\n%s", gaps, out.String(), errOut.String())
	}
	if !regexp.MustCompile(`zksim serve: pause c1 for 2s, process \d+ \(\S*python3 -c import os`).MatchString(errOut.String()) {
		t.Fatalf("zksim serve did not say which process it stopped:\n%s\n%s", out.String(), errOut.String())
	}
}

// Every row of the library table names a built-in scenario, and every
// trial a schedule that parses, each trial once (its tape's name too):
// make libraries runs for an hour, and a typo should not wait that long.
func TestLibraryTableIsWellFormed(t *testing.T) {
	names := map[string]bool{}
	for _, r := range harness.Recipes() {
		if _, err := scenarios.LoadServedScenario(r.Scenario); err != nil {
			t.Errorf("%s %s: scenario %s: %v", r.Library, r.Name, r.Scenario, err)
		}
		if len(r.Trials) == 0 || r.Clients < 1 || r.Promise == "" {
			t.Errorf("%s %s: %d trials, %d clients, promise %q", r.Library, r.Name, len(r.Trials), r.Clients, r.Promise)
		}
		for _, trial := range r.Trials {
			if _, err := fault.ParseSchedule(strings.TrimPrefix(trial.Faults, "none")); err != nil { // as --faults reads it
				t.Errorf("%s %s: %v", r.Library, r.Name, err)
			}
			if name := tapeName(r, trial); names[name] {
				t.Errorf("%s %s: trial %q twice", r.Library, r.Name, trial.Faults)
			} else {
				names[name] = true
			}
			if trial.Args == "" || trial.Why == "" || r.TrialCommand(trial, "/classes") == "" {
				t.Errorf("%s %s, %s: args %q, why %q", r.Library, r.Name, trial.Faults, trial.Args, trial.Why)
			}
		}
	}
}
