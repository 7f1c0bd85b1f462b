package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

func TestExitStatus(t *testing.T) {
	cases := []struct {
		args   []string
		status int
		out    string // in stdout
		errOut string // in stderr
	}{
		{[]string{"list"}, 0, "lock-herd", ""},
		{[]string{"list"}, 0, "at-least-once   safety    no item put is lost", ""},
		{[]string{"list"}, 0, "leaks           safety    no node is left behind", ""},
		{[]string{"demo", "--seeds", "0"}, 2, "", "--seeds: want at least 1, got 0"},
		{[]string{"demo", "--only", "no-such"}, 2, "", `--only: no built-in scenario's name contains "no-such"`},
		{[]string{"demo", "--no-such-flag"}, 2, "", "unknown flag"},
		{[]string{"frobnicate"}, 2, "", "unknown command"},
		{[]string{"bench", "--first-variants", "-1"}, 2, "", "--first-variants: want 0 (every one) or more, got -1"},
		{[]string{"live", "lock-breaks-stale"}, 2, "", "expects a violation of the ownership check, which only the simulator judges"},
		{[]string{"run", "lock-faults", "--seeds", "4"}, 0, "lock-faults: 4 seeds from 1", ""},
		{[]string{"run", "lock-unsorted", "--seeds", "4"}, 0, "mutex (safety)", ""},
		{[]string{"run", "lock-unsorted", "--seeds", "4"}, 0, "expected: safety violation (mutex): as expected", ""},
		{[]string{"run", "lock-fenced-pause"}, 0, "lock-fenced-pause: 5 seeds from 1", ""},
		{[]string{"run", "no-such-scenario"}, 2, "", `no built-in scenario "no-such-scenario" and no such file`},
		{[]string{"run", "missing.yaml"}, 2, "", "missing.yaml: no such file; want a scenario file"},
		{[]string{"check", "missing.json"}, 2, "", "missing.json: no such file; want a history file"},
		{[]string{"run", "lock-faults", "--shard", "5/4"}, 2, "", "--shard: shard \"5/4\": want I/N"},
		{[]string{"run", "lock-faults", "--seeds", "0"}, 2, "", "--seeds: want at least 1"},
		{[]string{"run", "lock-faults", "--seed", "3", "--seeds", "9"}, 2, "", "none of the others can be"},
		{[]string{"run"}, 2, "", "accepts 1 arg"},
		{[]string{"explore", "lock-noguid", "--max-faults", "1"}, 0, "expected: liveness violation (liveness): as expected", ""},
		{[]string{"explore", "lock-noguid", "--max-faults", "1"}, 0, "schedules explored (every schedule within the bound", ""},
		{[]string{"explore", "lock-faults", "--max-faults", "1", "--min-clients", "2", "--reads", "--notifications"}, 0,
			"no counterexample", ""},
		{[]string{"explore", "lock-faults", "--max-faults", "0"}, 2, "", "--max-faults: want at least 1"},
		{[]string{"explore", "lock-faults", "--min-clients", "3", "--max-clients", "2"}, 2, "", "more than --max-clients"},
		{[]string{"explore", "lock-faults", "--max-clients", "4"}, 2, "", "--max-clients 4 is fewer than the scenario's 5 clients"},
		{[]string{"explore", "lock-faults", "--faults", "explode"}, 2, "", `unknown fault "explode"`},
		{[]string{"explore", "lock-faults", "--max-faults", "1", "--limit", "3"}, 0, "3 schedules explored (stopped early", ""},
	}
	for _, tc := range cases {
		var out, errOut bytes.Buffer
		status := run(tc.args, &out, &errOut)
		if status != tc.status || !strings.Contains(out.String(), tc.out) || !strings.Contains(errOut.String(), tc.errOut) {
			t.Errorf("zksim %v: status %d (want %d)\nstdout: %.200s\nstderr: %s", tc.args, status, tc.status, out.String(), errOut.String())
		}
	}
}

// The demo runs the teaching suite: a row per scenario with its expected
// and actual verdict, each violation's report written, status 0 when
// every verdict is as expected. No progress bar when stderr is not a
// terminal.
func TestDemo(t *testing.T) {
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	status := run([]string{"demo", "--only", "lock-", "--seeds", "3", "--no-figures", "--out", dir}, &out, &errOut)
	if status != 0 || errOut.Len() != 0 {
		t.Fatalf("status %d, stderr %q\n%s", status, errOut.String(), out.String())
	}
	for _, want := range []string{"SCENARIO", "EXPECTED", "GOT", "lock-herd", "herd violation (herd)", "lock-fenced-pause",
		"every verdict as expected", "The report (verdicts, herd-effect figures, counterexamples): " + dir + "/index.html"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the demo does not say %q:\n%s", want, out.String())
		}
	}
	report, err := os.ReadFile(dir + "/violations/lock-herd/report.txt")
	if err != nil {
		t.Errorf("no report for lock-herd: %v", err)
	}
	// The report shows the shrunk counterexample: lock-herd's first failing
	// seed has six clients, the shrunk one three.
	timeline, err := os.ReadFile(dir + "/violations/lock-herd/timeline.txt")
	if err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(string(timeline), "\n")
	if clients := strings.Count(header, "│ c"); clients != 3 {
		t.Errorf("lock-herd's report shows %d clients, want the shrunk counterexample's 3:\n%s", clients, header)
	}
	// A saved report names the files beside it, never the scratch
	// directory it was written in before it was published.
	if !strings.Contains(string(report), "\nwrote timeline.txt\n") || strings.Contains(string(report), "zksim-partial") {
		t.Errorf("the saved report does not name its files beside it:\n%s", report[max(0, len(report)-400):])
	}
	if _, err := os.Stat(dir + "/violations/lock-fenced-pause"); err == nil {
		t.Errorf("a report for a scenario that held")
	}
}

// run --json prints the object the brief names: scenario, seeds,
// violations (seed, check, kind, schedule, trace hash), ops and wall time;
// a shard runs its part of the range; --shrink adds the counterexample and
// --out writes its report.
func TestRunJSON(t *testing.T) {
	var out, errOut bytes.Buffer
	dir := t.TempDir()
	status := run([]string{"run", "lock-noguid", "--seeds", "20", "--shard", "1/2", "--json", "--shrink", "--out", dir}, &out, &errOut)
	if status != 0 {
		t.Fatalf("status %d: %s", status, errOut.String())
	}
	var o runOutput
	if err := json.Unmarshal(out.Bytes(), &o); err != nil {
		t.Fatalf("%v:\n%s", err, out.String())
	}
	if o.Scenario != "lock-noguid" || o.First != 1 || o.Seeds != 10 || o.Shard != "1/2" || o.Ops == 0 || len(o.Violations) == 0 {
		t.Fatalf("%+v", o)
	}
	// The split of the runs' time between simulating and checking.
	if o.SimMs+o.CheckMs == 0 || o.CheckShare <= 0 || o.CheckShare >= 1 || o.OpsPerSec <= 0 {
		t.Fatalf("sim_ms %d, check_ms %d, check_share %v, ops_per_sec %v", o.SimMs, o.CheckMs, o.CheckShare, o.OpsPerSec)
	}
	for _, v := range o.Violations {
		if v.Seed < 1 || v.Seed > 10 || v.Check == "" || v.Kind == "" || len(v.Schedule) == 0 || len(v.TraceHash) != 16 {
			t.Fatalf("violation %+v", v)
		}
	}
	if o.Shrunk == nil || o.Shrunk.Clients > 2 || len(o.Shrunk.Schedule) == 0 || !strings.HasSuffix(o.Shrunk.Schedule[len(o.Shrunk.Schedule)-1], "lose-reply") ||
		!o.Shrunk.Minimal || len(o.Report) == 0 {
		t.Fatalf("shrunk %+v, report %v", o.Shrunk, o.Report)
	}
	// The shrunk counterexample's replay gives the trace hash reported.
	var again bytes.Buffer
	run([]string{"run", "lock-noguid", "--seed", fmt.Sprint(o.Violations[0].Seed), "--json"}, &again, &errOut)
	var a runOutput
	if err := json.Unmarshal(again.Bytes(), &a); err != nil || a.Violations[0].TraceHash != o.Violations[0].TraceHash {
		t.Fatalf("seed %d again: %v %+v", o.Violations[0].Seed, err, a.Violations)
	}
}

// replay runs a violation's seed again: the same trace hash as run
// reported, on the last line with --hash; a shrunk counterexample replays
// with the command run printed.
func TestReplay(t *testing.T) {
	var out, errOut bytes.Buffer
	if status := run([]string{"run", "lock-noguid", "--seeds", "10", "--json", "--shrink"}, &out, &errOut); status != 0 {
		t.Fatalf("run: %d %s", status, errOut.String())
	}
	var o runOutput
	if err := json.Unmarshal(out.Bytes(), &o); err != nil {
		t.Fatal(err)
	}
	last := func(s string) string {
		lines := strings.Split(strings.TrimSpace(s), "\n")
		return lines[len(lines)-1]
	}
	v := o.Violations[0]
	out.Reset()
	if status := run([]string{"replay", "lock-noguid", "--seed", fmt.Sprint(v.Seed), "--hash"}, &out, &errOut); status != 1 {
		t.Fatalf("replay: %d %s", status, errOut.String())
	}
	if last(out.String()) != v.TraceHash || !strings.Contains(out.String(), "liveness (liveness)") {
		t.Fatalf("replay printed %q, want the hash %s last:\n%s", last(out.String()), v.TraceHash, out.String())
	}
	// The shrunk counterexample, by the command run printed.
	args := []string{"replay", "lock-noguid", "--seed", fmt.Sprint(o.Shrunk.Seed), "--clients", fmt.Sprint(o.Shrunk.Clients),
		"--rounds", fmt.Sprint(o.Shrunk.Rounds), "--faults", strings.Join(o.Shrunk.Schedule, "; "), "--hash", "--trace"}
	if !strings.Contains(o.Shrunk.Replay, "--faults '"+strings.Join(o.Shrunk.Schedule, "; ")+"'") {
		t.Fatalf("replay command %q", o.Shrunk.Replay)
	}
	out.Reset()
	if status := run(args, &out, &errOut); status != 1 || last(out.String()) != o.Shrunk.TraceHash ||
		!strings.Contains(out.String(), "│ c1") {
		t.Fatalf("shrunk replay: %d, last line %q, want %s", status, last(out.String()), o.Shrunk.TraceHash)
	}
	// A run that holds: status 0.
	out.Reset()
	if status := run([]string{"replay", "lock-fenced-pause", "--seed", "1", "--hash"}, &out, &errOut); status != 0 ||
		!strings.Contains(out.String(), "every check held") {
		t.Fatalf("replay of a passing run: %d %s", status, out.String())
	}
	for _, bad := range [][]string{{"replay", "lock-herd"}, {"replay", "lock-herd", "--seed", "1", "--faults", "at 1s smash"}} {
		if status := run(bad, &out, &errOut); status != 2 {
			t.Errorf("%v: status %d, want 2", bad, status)
		}
	}
}

// A seed of zksim run --swarm replays with replay --swarm: the same trace
// hash, and its own mix (without --swarm the seed draws the fixed mix's
// faults, another run). A scenario without rates refuses --swarm.
func TestReplaySwarmSeed(t *testing.T) {
	var out, errOut bytes.Buffer
	if status := run([]string{"run", "lock-noguid", "--swarm", "--seeds", "5", "--json"}, &out, &errOut); status != 0 {
		t.Fatalf("run --swarm: %d %s", status, errOut.String())
	}
	var o runOutput
	if err := json.Unmarshal(out.Bytes(), &o); err != nil {
		t.Fatal(err)
	}
	hash := func(args ...string) string {
		var out, errOut bytes.Buffer
		if status := run(append([]string{"replay", "lock-noguid", "--hash"}, args...), &out, &errOut); status != 1 {
			t.Fatalf("replay %v: status %d, want 1: %s", args, status, errOut.String())
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		return lines[len(lines)-1]
	}
	differ := 0
	for _, v := range o.Violations {
		seed := fmt.Sprint(v.Seed)
		if got := hash("--seed", seed, "--swarm"); got != v.TraceHash {
			t.Errorf("seed %s: replay --swarm gave %s, run --swarm %s", seed, got, v.TraceHash)
		}
		if hash("--seed", seed) != v.TraceHash {
			differ++
		}
	}
	if len(o.Violations) == 0 || differ == 0 {
		t.Errorf("%d violations, %d of them another run without --swarm: want the swarm's own runs", len(o.Violations), differ)
	}
	if status := run([]string{"replay", "lock-herd", "--seed", "1", "--swarm"}, &out, &errOut); status != 2 ||
		!strings.Contains(errOut.String(), "--swarm") {
		t.Errorf("replay --swarm of a scenario without rates: status %d, want 2: %s", status, errOut.String())
	}
}

// check judges a recorded history with a named model: the history a
// violation report wrote fails; one that holds passes; bad input is
// refused with its line.
func TestCheckHistory(t *testing.T) {
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	if status := run([]string{"replay", "lock-unsorted", "--seed", "1", "--out", dir}, &out, &errOut); status != 1 {
		t.Fatalf("replay: %d %s", status, errOut.String())
	}
	history := dir + "/history.json"
	html := dir + "/check.html"
	out.Reset()
	if status := run([]string{"check", history, "--model", "mutex", "--out", html}, &out, &errOut); status != 1 ||
		!strings.Contains(out.String(), "mutex (safety) on /zksim/lock") || !strings.Contains(out.String(), "wrote "+html) {
		t.Fatalf("check: %d\n%s%s", status, out.String(), errOut.String())
	}
	ok := dir + "/ok.json"
	os.WriteFile(ok, []byte(`[{"client":0,"kind":"acquire","path":"/l","result":"ok","token":1,"call":0,"return":10},
 {"client":0,"kind":"release","path":"/l","result":"ok","call":10,"return":20}]`), 0o644)
	out.Reset()
	if status := run([]string{"check", ok, "--model", "mutex"}, &out, &errOut); status != 0 || !strings.Contains(out.String(), "2 operations hold under mutex") {
		t.Fatalf("check ok: %d %s", status, out.String())
	}
	broken := dir + "/broken.json"
	os.WriteFile(broken, []byte("[\n {\"client\": \"one\"}\n]"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"check", broken, "--model", "mutex"}, broken + `: client "one": want c1, c2, ... (or a number from 0)`},
		{[]string{"check", ok, "--model", "mutx"}, `--model: no check named "mutx"`},
		{[]string{"check", ok}, "a history without its checks (a bare list of operations): name a model or checker with --model"},
		{[]string{"check", dir + "/none.json", "--model", "mutex"}, "no such file"},
	} {
		errOut.Reset()
		if status := run(tc.args, &out, &errOut); status != 2 || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v: %d %q, want 2 and %q", tc.args, status, errOut.String(), tc.want)
		}
	}
}

// explore --json: the schedules it ran, each counterexample with its
// replay command, and the verdict against the scenario's expectation; the
// replay command gives the same trace hash.
func TestExploreJSON(t *testing.T) {
	var out, errOut bytes.Buffer
	if status := run([]string{"explore", "lock-noguid", "--max-faults", "1", "--stop-at-first", "--json"}, &out, &errOut); status != 0 {
		t.Fatalf("status %d: %s", status, errOut.String())
	}
	var o exploreOutput
	if err := json.Unmarshal(out.Bytes(), &o); err != nil {
		t.Fatal(err)
	}
	if o.Explored < 1 || o.Complete || len(o.Counterexamples) != 1 || !o.AsExpected {
		t.Fatalf("explored %d, complete %v, %d counterexamples, as expected %v", o.Explored, o.Complete, len(o.Counterexamples), o.AsExpected)
	}
	c := o.Counterexamples[0]
	args := []string{"replay", "lock-noguid", "--seed", "1", "--clients", fmt.Sprint(c.Clients), "--faults", strings.Join(c.Schedule, "; "), "--hash"}
	out.Reset()
	run(args, &out, &errOut)
	if !strings.Contains(out.String(), c.TraceHash) {
		t.Fatalf("replay %v printed %q, want trace hash %s", args, out.String(), c.TraceHash)
	}
}

// A scenario that expects a pass, explored into a counterexample, exits 1.
func TestExploreUnexpectedCounterexample(t *testing.T) {
	path := t.TempDir() + "/noguid.yaml"
	if err := os.WriteFile(path, []byte("kind: lock\nvariant: lock-noguid\nclients: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	status := run([]string{"explore", path, "--max-faults", "1", "--stop-at-first"}, &out, &errOut)
	if status != 1 || !strings.Contains(out.String(), "expected: pass: NOT as expected") || !strings.Contains(out.String(), "replay: zksim replay") {
		t.Fatalf("status %d\n%s%s", status, out.String(), errOut.String())
	}
}

// A teaching variant's run says its lesson beside its verdict, as text
// and as JSON; the recipe's says none.
func TestRunSaysTheLesson(t *testing.T) {
	var out, errOut bytes.Buffer
	if status := run([]string{"run", "lock-noguid", "--seeds", "2"}, &out, &errOut); status != 0 {
		t.Fatalf("status %d: %s", status, errOut.String())
	}
	if !strings.Contains(out.String(), "\nlesson (lock-noguid): After a connection loss during create()") {
		t.Errorf("no lesson beside the verdict:\n%s", out.String())
	}
	out.Reset()
	if status := run([]string{"run", "lock-noguid", "--seeds", "2", "--json"}, &out, &errOut); status != 0 {
		t.Fatalf("status %d: %s", status, errOut.String())
	}
	var o runOutput
	if err := json.Unmarshal(out.Bytes(), &o); err != nil || o.Variant != "lock-noguid" || !strings.HasPrefix(o.Lesson, "After a connection loss") {
		t.Errorf("the JSON's variant %q and lesson %q (%v)", o.Variant, o.Lesson, err)
	}
	out.Reset()
	if status := run([]string{"run", "lock-faults", "--seeds", "2"}, &out, &errOut); status != 0 || strings.Contains(out.String(), "lesson") {
		t.Errorf("the recipe's run (status %d) speaks of a lesson:\n%s", status, out.String())
	}
}

// Off a terminal, long work shows as plain lines, every so often, never
// as a bar's control characters.
func TestProgressLinesOffATerminal(t *testing.T) {
	var buf bytes.Buffer
	p := newProgressLines(&buf, "explore lock-faults", "schedules", time.Hour)
	p.set(1, 0)
	if buf.Len() != 0 {
		t.Fatalf("a line before the first interval: %q", buf.String())
	}
	p.line.next = time.Now().Add(-time.Second) // the interval is over
	p.set(42, 1)
	p.done()
	if got := buf.String(); !strings.HasPrefix(got, "explore lock-faults: 42 schedules run, 1 failing, ") || strings.ContainsAny(got, "\r\x1b") {
		t.Fatalf("progress off a terminal: %q", got)
	}
}

// A run without faults gives each violation's schedule as an empty list,
// not null: a program reading the JSON iterates it either way.
func TestRunJSONScheduleIsAList(t *testing.T) {
	var out, errOut bytes.Buffer
	if status := run([]string{"run", "lock-herd", "--seeds", "1", "--json"}, &out, &errOut); status != 0 {
		t.Fatalf("status %d: %s", status, errOut.String())
	}
	var o struct {
		Violations []struct {
			Schedule json.RawMessage `json:"schedule"`
		} `json:"violations"`
	}
	if err := json.Unmarshal(out.Bytes(), &o); err != nil || len(o.Violations) == 0 {
		t.Fatalf("%v: %s", err, out.String())
	}
	if got := string(o.Violations[0].Schedule); got != "[]" {
		t.Fatalf("schedule %s, want []", got)
	}
}
