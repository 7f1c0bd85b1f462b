package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The command-line contract, through the built binary: exit status by
// the scenario's expectation, bad input refused before any work with a
// message naming what is wrong, interrupts ending with what finished.

var (
	binOnce sync.Once
	binDir  string // the built zksim's directory, removed by TestMain
	binPath string
	binErr  error
)

// zksimBinary builds zksim once for the tests that run it.
func zksimBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "zksim-bin-"); binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "zksim")
		if out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			binErr = errors.New(string(out))
		}
	})
	if binErr != nil {
		t.Fatalf("go build: %v", binErr)
	}
	return binPath
}

// runBinary runs zksim with args in dir and returns its exit status,
// stdout and stderr.
func runBinary(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	return runBinaryEnv(t, dir, nil, args...)
}

// runBinaryEnv is runBinary with these variables (NAME=value) added to the
// environment.
func runBinaryEnv(t *testing.T, dir string, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(zksimBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String(), errOut.String()
	case errors.As(err, &exit):
		return exit.ExitCode(), out.String(), errOut.String()
	}
	t.Fatalf("zksim %v: %v", args, err)
	return 0, "", ""
}

// cliCase is one command line and what it must do.
type cliCase struct {
	name   string
	args   []string
	status int
	out    string // in stdout
	errOut string // in stderr
}

func checkCLI(t *testing.T, dir string, cases []cliCase) {
	t.Helper()
	for _, tc := range cases {
		status, out, errOut := runBinary(t, dir, tc.args...)
		if status != tc.status || !strings.Contains(out, tc.out) || !strings.Contains(errOut, tc.errOut) {
			t.Errorf("%s: zksim %s: status %d (want %d)\nstdout: %.400s\nstderr: %.400s", tc.name,
				strings.Join(tc.args, " "), status, tc.status, out, errOut)
		}
		if tc.status == 2 && out != "" {
			t.Errorf("%s: refused input printed to stdout: %.200s", tc.name, out)
		}
	}
}

// writeFiles writes name → content into dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// run and live exit by the scenario's expect:: 0 when the outcome is the
// one expected, 1 when it is not (an unexpected violation, an expected
// one not found, or found by another check); the summary says the same.
func TestCLIExitByExpectation(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"unexpected.yaml":    "kind: lock\nvariant: lock-noguid\nclients: 3\nfaults: [\"when c1 create#3 applied: lose-reply\"]\nseeds: 2\n",
		"not-found.yaml":     "kind: lock\nseeds: 2\nexpect: {verdict: violation, check: liveness}\n",
		"another-check.yaml": "kind: lock\nvariant: lock-noguid\nclients: 3\nfaults: [\"when c1 create#3 applied: lose-reply\"]\nseeds: 2\nexpect: {verdict: violation, check: mutex}\n",
		"expected.yaml":      "kind: lock\nvariant: lock-noguid\nclients: 3\nfaults: [\"when c1 create#3 applied: lose-reply\"]\nseeds: 2\nexpect: {verdict: violation, check: liveness}\n",
	})
	checkCLI(t, dir, []cliCase{
		{"an expected violation found", []string{"run", "expected.yaml"}, 0, "liveness violation (liveness): as expected", ""},
		{"a built-in teaching variant", []string{"run", "lock-noguid", "--seeds", "3"}, 0, "as expected", ""},
		{"a pass expected and found", []string{"run", "lock-faults", "--seeds", "3"}, 0, "pass: as expected", ""},
		{"a violation not expected", []string{"run", "unexpected.yaml"}, 1, "expected: pass: NOT as expected", ""},
		{"an expected violation not found", []string{"run", "not-found.yaml"}, 1, "NOT as expected", ""},
		{"found by another check", []string{"run", "another-check.yaml"}, 1, "safety violation (mutex): NOT as expected", ""},
		{"the JSON says the same", []string{"run", "another-check.yaml", "--json"}, 1, `"as_expected": false`, ""},
	})
}

// Bad input is refused at once, exit 2, saying what is wrong and where.
func TestCLIRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{
		"big.yaml":         strings.Repeat("# padding\n", 110_000),
		"binary.yaml":      "kind: lock\n\xff\xfe\n",
		"fraction.yaml":    "kind: lock\nclients: 2.5\n",
		"nan.yaml":         "kind: lock\nrates: {crash: .nan}\n",
		"negative.yaml":    "kind: lock\nrates: {crash: -1}\n",
		"infinite.yaml":    "kind: lock\nrates: {crash: .inf}\n",
		"zero-step.yaml":   "kind: lock\nworkload: {step: 0s}\n",
		"negative-d.yaml":  "kind: lock\nworkload: {step: -1s}\n",
		"two-docs.yaml":    "kind: lock\n---\nkind: queue\n",
		"nested.yaml":      "kind: lock\nensemble: {servers: 3, colour: red}\n",
		"wrong-check.yaml": "kind: lock\nexpect: {verdict: violation, check: fifo}\n",
		"other-kind.yaml":  "kind: lock\nchecks: [fifo]\n",
		"applier.yaml":     "kind: lock\nfaults: [\"when c1 create#1 applied: crash applier\"]\n",
		"no-jitter.yaml":   "kind: lock\nensemble: {jitter: 0s, latency: 0s}\nseeds: 2\n",
		"neg-delay.yaml":   "kind: lock\nensemble: {disk_delay: -1ms}\n",
		"file":             "not a directory",
	})
	checkCLI(t, dir, []cliCase{
		{"a device", []string{"run", "/dev/zero"}, 2, "", "/dev/zero: a device, not a scenario file"},
		{"a directory", []string{"run", dir}, 2, "", "a directory, not a scenario file"},
		{"a FIFO", []string{"run", "fifo.yaml"}, 2, "", "fifo.yaml: a named pipe, not a scenario file"},
		{"over a megabyte", []string{"run", "big.yaml"}, 2, "", "big.yaml: larger than 1048576 bytes"},
		{"not UTF-8", []string{"run", "binary.yaml"}, 2, "", "binary.yaml:2: not UTF-8 text"},
		{"a fraction", []string{"run", "fraction.yaml"}, 2, "", "fraction.yaml:2: clients: 2.5; want a whole number"},
		{"NaN", []string{"run", "nan.yaml"}, 2, "", "nan.yaml:2: rates.crash: NaN"},
		{"a negative rate", []string{"run", "negative.yaml"}, 2, "", "rates.crash: -1; want a rate per second from 0 to 1000"},
		{"an infinite rate", []string{"run", "infinite.yaml"}, 2, "", "rates.crash: +Inf"},
		{"a zero duration", []string{"run", "zero-step.yaml"}, 2, "", "workload.step: 0s; a zero duration takes the default"},
		{"a negative duration", []string{"run", "negative-d.yaml"}, 2, "", "workload.step: -1s"},
		{"a second document", []string{"run", "two-docs.yaml"}, 2, "", "a second YAML document"},
		{"a delay of 0s is none, not bad input", []string{"run", "no-jitter.yaml"}, 0, "pass: as expected", ""},
		{"a negative delay", []string{"run", "neg-delay.yaml"}, 2, "", "neg-delay.yaml:2: ensemble.disk_delay: -1ms; want a delay from 0s (none)"},
		{"explore beyond the scenario's clients", []string{"explore", "lock-faults", "--max-clients", "4"}, 2, "",
			"--max-clients 4 is fewer than the scenario's 5 clients"},
		{"an unknown nested field", []string{"run", "nested.yaml"}, 2, "", "nested.yaml:2: ensemble.colour: unknown field"},
		{"a check of another kind", []string{"run", "wrong-check.yaml"}, 2, "", "wrong-check.yaml:2: expect.check: \"fifo\""},
		{"checks of another kind", []string{"run", "other-kind.yaml"}, 2, "", "other-kind.yaml:2: checks[0]: \"fifo\" is not a check of kind lock"},
		{"--seed 0", []string{"run", "lock-faults", "--seed", "0"}, 2, "", "--seed: seeds are numbered from 1, got 0"},
		{"--first 0", []string{"run", "lock-faults", "--first", "0"}, 2, "", "--first: seeds are numbered from 1"},
		{"--seeds 0", []string{"run", "lock-faults", "--seeds", "0"}, 2, "", "--seeds: want at least 1"},
		{"--workers 0", []string{"run", "lock-faults", "--workers", "0"}, 2, "", "--workers: want at least 1"},
		{"--keep 0", []string{"run", "lock-faults", "--keep", "0"}, 2, "", "--keep: want at least 1"},
		{"--shard 5/4", []string{"run", "lock-faults", "--shard", "5/4"}, 2, "", "want I/N with 1 <= I <= N"},
		{"--shard 0/4", []string{"run", "lock-faults", "--shard", "0/4"}, 2, "", "want I/N with 1 <= I <= N"},
		{"--shard 1/0", []string{"run", "lock-faults", "--shard", "1/0"}, 2, "", "want I/N with 1 <= I <= N"},
		{"more shards than seeds", []string{"run", "lock-faults", "--seeds", "2", "--shard", "3/4"}, 2, "", "more shards than seeds"},
		{"a range past the last seed", []string{"run", "lock-faults", "--first", "18446744073709551615", "--seeds", "5"}, 2, "",
			"the range runs past the last seed"},
		{"replay --clients -1", []string{"replay", "lock-noguid", "--seed", "1", "--clients", "-1"}, 2, "", "--clients -1: want 1 or more"},
		{"replay --clients 0", []string{"replay", "lock-noguid", "--seed", "1", "--clients", "0"}, 2, "", "--clients 0: want 1 or more"},
		{"replay --rounds 0", []string{"replay", "lock-noguid", "--seed", "1", "--rounds", "0"}, 2, "", "--rounds 0: want 1 or more"},
		{"run --check-limit -1s", []string{"run", "lock-noguid", "--check-limit", "-1s"}, 2, "", "--check-limit: want a duration of 0"},
		{"--all with no report", []string{"run", "lock-noguid", "--all"}, 2, "", "--all: it widens the timeline"},
		{"--out not creatable", []string{"run", "lock-noguid", "--out", "/proc/zksim-out"}, 2, "", "--out /proc/zksim-out: cannot be created"},
		{"--out a file", []string{"run", "lock-noguid", "--out", "file"}, 2, "", "--out file: not a directory"},
		{"--out under a file", []string{"demo", "--out", "file/sub"}, 2, "", "--out file/sub: cannot be created: file is not a directory"},
		{"a live fault the live world cannot inject", []string{"live", "applier.yaml"}, 2, "", "cannot be injected on a live ensemble"},
		{"live --seed 0", []string{"live", "lock-contention", "--seed", "0"}, 2, "", "--seed: seeds are numbered from 1"},
		{"a scenario's old name", []string{"run", "doublebarrier-herd"}, 2, "", `it is called "double-barrier-herd" now`},
		{"live --timeout 0", []string{"live", "lock-contention", "--timeout", "0s"}, 2, "", "--timeout: want a duration above zero"},
		{"servers that cannot be reached", []string{"live", "lock-contention", "--servers", "127.0.0.1:1",
			"--timeout", "2s"}, 3, "", "the run could not be made: no server can be reached: 127.0.0.1:1: dial tcp 127.0.0.1:1"},
		{"a server whose host does not resolve", []string{"live", "lock-contention", "--servers", "no-such-host.invalid:2181"},
			3, "", "the run could not be made: no server can be reached: no-such-host.invalid:2181"},
	})
	if _, err := os.Stat(filepath.Join(dir, "file", "sub")); err == nil {
		t.Error("a refused --out was created")
	}
}

// --timeout holds against servers that accept connections and never
// answer (the sessions' closes, which the library waits on, go together):
// the run ends with the reason, exit 3 (the run could not be made), not
// when the closes are done one after another.
func TestCLITimeoutAgainstSilentServers(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var held []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c) // accepted, never answered
			mu.Unlock()
		}
	}()
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	}()
	addr := l.Addr().String()
	began := time.Now()
	checkCLI(t, t.TempDir(), []cliCase{{"silent servers", []string{"live", "lock-contention", "--servers", addr,
		"--timeout", "3s"}, 3, "", "got no session from [" + addr + "] within 3s"}})
	t.Logf("ended %s after it began, against a 3s bound", time.Since(began).Round(time.Millisecond))
}

// An interrupted run stops at once and says what finished: the seeds run,
// the violations found with the command that replays each; the JSON says
// it was interrupted; exit 130 (SIGINT) as for SIGTERM.
func TestCLIInterruptedRun(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		// On a loaded machine the first seed may not have finished after a
		// second: interrupt later and later until one has (the contract
		// is about what finished).
		var out bytes.Buffer
		for wait := time.Second; ; wait *= 2 {
			out.Reset()
			cmd := exec.Command(zksimBinary(t), "run", "lock-noguid", "--seeds", "100000000")
			var errOut bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(wait)
			cmd.Process.Signal(sig)
			err := cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 130 {
				t.Fatalf("%s: %v, want exit 130\n%s", sig, err, errOut.String())
			}
			if !strings.Contains(out.String(), "interrupted after 0,") || wait >= 16*time.Second {
				break
			}
		}
		for _, want := range []string{"interrupted after", "replay: zksim replay lock-noguid --seed 1", "not decided (interrupted)"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%s: the summary does not say %q:\n%.600s", sig, want, out.String())
			}
		}
	}
}

// An interrupted explore prints what it explored, as text and as JSON
// (interrupted, the schedules run), decides nothing (not as expected), and
// exits 130.
func TestCLIInterruptedExplore(t *testing.T) {
	for _, asJSON := range []bool{false, true} {
		args := []string{"explore", "lock-faults", "--max-faults", "3", "--max-clients", "6"}
		if asJSON {
			args = append(args, "--json")
		}
		cmd := exec.Command(zksimBinary(t), args...)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Second)
		cmd.Process.Signal(syscall.SIGINT)
		err := cmd.Wait()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 130 {
			t.Fatalf("%v: %v, want exit 130\n%s%s", args, err, out.String(), errOut.String())
		}
		if !asJSON {
			if !strings.Contains(out.String(), "schedules explored (interrupted: part of the bound") ||
				!strings.Contains(out.String(), "expected: pass: not decided (interrupted)") {
				t.Errorf("the summary does not say it was interrupted, and decided nothing:\n%s", out.String())
			}
			continue
		}
		var o exploreOutput
		if err := json.Unmarshal(out.Bytes(), &o); err != nil || !o.Interrupted || o.Explored == 0 || o.Complete || o.AsExpected {
			t.Errorf("the JSON: %+v (%v), want interrupted with schedules explored:\n%.400s", o, err, out.String())
		}
	}
}

// An interrupted report writes nothing: --out is as it was (a file of the
// user's in it untouched), no scratch beside it, exit 130. A report that
// finishes replaces its own files (its violations/ whole) and keeps the
// user's.
func TestCLIInterruptedReport(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	listing := func() []string {
		var names []string
		filepath.WalkDir(dir, func(p string, _ os.DirEntry, _ error) error {
			names = append(names, strings.TrimPrefix(p, dir))
			return nil
		})
		return names
	}
	// prepare puts what the user had under out back: a report that
	// finished before its interrupt wrote its own files there.
	prepare := func() {
		if err := os.RemoveAll(out); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(out, "violations", "stale"), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFiles(t, out, map[string]string{"mine.txt": "the user's"})
	}
	prepare()
	before := listing()
	// The report takes a second or more: interrupt it sooner and sooner
	// until it is interrupted (a quick machine may finish first).
	for wait := time.Second; ; wait /= 2 {
		prepare()
		cmd := exec.Command(zksimBinary(t), "report", "--out", out)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(wait)
		cmd.Process.Signal(syscall.SIGINT)
		err := cmd.Wait()
		if err == nil && wait > 100*time.Millisecond {
			continue
		}
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 130 {
			t.Fatalf("interrupted after %s: %v, want exit 130\n%s", wait, err, stderr.String())
		}
		if !strings.Contains(stderr.String(), "interrupted; nothing written: "+out+" is as it was") {
			t.Errorf("the interrupt does not say what it left:\n%s", stderr.String())
		}
		break
	}
	if after := listing(); !slices.Equal(after, before) {
		t.Errorf("an interrupted report changed what was there:\nbefore %v\nafter  %v", before, after)
	}
	status, stdout, stderr := runBinary(t, dir, "demo", "--only", "lock-noguid", "--no-figures", "--seeds", "2", "--out", out)
	if status != 0 || !strings.Contains(stdout, filepath.Join(out, "index.html")) {
		t.Fatalf("demo: %d\n%s%s", status, stdout, stderr)
	}
	after := listing()
	for _, want := range []string{"/out/mine.txt", "/out/index.html", "/out/violations/lock-noguid/timeline.txt"} {
		if !slices.Contains(after, want) {
			t.Errorf("the report left out %s: %v", want, after)
		}
	}
	for _, p := range after {
		if strings.Contains(p, "stale") || strings.Contains(p, "partial") {
			t.Errorf("the report left %s: %v", p, after)
		}
	}
}

// violationLine is a violation's line in a report ("  liveness (liveness)
// on /zksim/lock at ..."), not a deadlock's wait ("  c1: waiting on a watch
// (set by exists) on ...").
var violationLine = regexp.MustCompile(`^  [\w-]+ \([\w-]+\) on `)

// check judges a report's history.json as the run did: the same
// violations, in the same words, for a liveness mistake (its run stuck),
// a herd and a safety one; a malformed history is bad input.
func TestCLICheckJudgesAsRun(t *testing.T) {
	dir := t.TempDir()
	for _, sc := range []string{"lock-noguid", "lock-herd", "lock-unsorted"} {
		status, out, errOut := runBinary(t, dir, "replay", sc, "--seed", "1", "--out", sc)
		if status != 1 {
			t.Fatalf("replay %s: %d\n%s%s", sc, status, out, errOut)
		}
		status, checked, errOut := runBinary(t, dir, "check", filepath.Join(sc, "history.json"))
		if status != 1 {
			t.Fatalf("check %s: %d\n%s%s", sc, status, checked, errOut)
		}
		said := 0
		for _, line := range strings.Split(out, "\n") {
			if !violationLine.MatchString(line) {
				continue
			}
			said++
			if !strings.Contains(checked, strings.TrimSpace(line)) {
				t.Errorf("%s: the replay said\n  %s\nbut check said\n%s", sc, strings.TrimSpace(line), checked)
			}
		}
		if said == 0 {
			t.Errorf("%s: the replay said no violation:\n%s", sc, out)
		}
	}
	writeFiles(t, dir, map[string]string{
		"backwards.json": `[{"client":0,"kind":"acquire","path":"/l","result":"ok","call":10,"return":5}]`,
		"negative.json":  `[{"client":-1,"kind":"acquire","path":"/l","result":"ok","call":0,"return":5}]`,
		"kind.json":      `{"kind":"frob","checks":["mutex"],"ops":[]}`,
		"check.json":     `{"kind":"lock","checks":["mutx"],"ops":[]}`,
		"other.json":     `{"kind":"lock","checks":["fifo"],"ops":[]}`,
		"lock.json":      `{"kind":"lock","checks":["mutex"],"ops":[]}`,
		"frob.json":      `[{"client":0,"kind":"frobnicate","path":"/l","result":"ok","call":0,"return":5}]`,
		"maybe.json":     `[{"client":0,"kind":"acquire","path":"/l","result":"maybe","call":0,"return":5}]`,
		"before.json":    `[{"client":0,"kind":"acquire","path":"/l","result":"ok","call":-5,"return":5}]`,
		"trailing.json":  `{"kind":"lock","checks":["mutex"],"ops":[]} {"more":1}`,
		"nokind.json":    `{"checks":["mutex"],"ops":[]}`,
		"empty.json":     "",
	})
	if err := os.Mkdir(filepath.Join(dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	checkCLI(t, dir, []cliCase{
		{"a device", []string{"check", "/dev/zero", "--model", "mutex"}, 2, "", "/dev/zero: a device, not a history file"},
		{"a directory", []string{"check", "adir"}, 2, "", "adir: a directory, not a history file"},
		{"a check of another kind", []string{"check", "other.json"}, 2, "", `checks: "fifo" is not a check of kind lock`},
		{"a model of another kind", []string{"check", "lock.json", "--model", "fifo"}, 2, "", "--model fifo: not a check of kind lock"},
		{"an unknown operation", []string{"check", "frob.json", "--model", "mutex"}, 2, "", `operation 1: kind "frobnicate"`},
		{"an unknown result", []string{"check", "maybe.json", "--model", "mutex"}, 2, "", `result "maybe"; want ok`},
		{"a time before the run", []string{"check", "before.json", "--model", "mutex"}, 2, "", "a time before the run's start"},
		{"more after the history", []string{"check", "trailing.json"}, 2, "", "more after the history"},
		{"a missing kind", []string{"check", "nokind.json"}, 2, "", "kind: missing"},
		{"an empty file", []string{"check", "empty.json"}, 2, "", "empty: want a history"},
		{"an operation returning before its call", []string{"check", "backwards.json", "--model", "mutex"}, 2, "",
			"operation 1 (c1's acquire /l → ok token 0): returns at 5, before its call at 10"},
		{"a negative client", []string{"check", "negative.json", "--model", "mutex"}, 2, "", "client -1; clients are numbered from 0"},
		{"an unknown kind", []string{"check", "kind.json"}, 2, "", `kind "frob": want one of`},
		{"an unknown check", []string{"check", "check.json"}, 2, "", `checks: no check named "mutx"`},
		{"an unknown model", []string{"check", "backwards.json", "--model", "frob"}, 2, "", `--model: no check named "frob"`},
	})
}

// ensembleEnv runs zksim's ensemble commands with their scratch and
// records under dir.
func ensembleEnv(dir string) []string {
	return append(os.Environ(), "TMPDIR="+dir, "XDG_CACHE_HOME="+filepath.Join(dir, "cache"))
}

// The local ensemble's records: malformed is a clear error; stale (its
// start command gone) is reported by status and cleaned up by stop, which
// signals no process it cannot identify as the ensemble's own; two starts
// of one ensemble cannot both record themselves; a start interrupted
// while it starts leaves no directory behind.
func TestCLIEnsembleState(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state.json")
	writeFiles(t, dir, map[string]string{"malformed.json": "{not json", "short.json": `{"owner":{"pid":1},"servers":["a"]}`})
	checkCLI(t, dir, []cliCase{
		{"no record", []string{"ensemble", "status", "--state", state}, 2, "", "no local ensemble recorded"},
		{"a malformed record", []string{"ensemble", "status", "--state", "malformed.json"}, 2, "", "malformed.json: not an ensemble record"},
		{"a record without its processes", []string{"ensemble", "stop", "--state", "short.json"}, 2, "", "not an ensemble record"},
	})

	// A stale record naming a live process that is not the ensemble's: a
	// sleep whose start time and command line do not match.
	sleep := exec.Command("sleep", "30")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	defer sleep.Process.Kill()
	start, err := procStart(sleep.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	stale := fmt.Sprintf(`{"owner":{"pid":%d,"start":%d,"mark":"ensemble"},"servers":["127.0.0.1:1"],
		"server_procs":[{"pid":%d,"start":%d,"mark":"zoo.cfg"}]}`, sleep.Process.Pid, start+1, sleep.Process.Pid, start)
	writeFiles(t, dir, map[string]string{"state.json": stale})
	checkCLI(t, dir, []cliCase{
		{"a stale record", []string{"ensemble", "status", "--state", state}, 1, "stale: the ensemble recorded in", ""},
		{"stop cleans it up", []string{"ensemble", "stop", "--state", state}, 0, "had stopped", ""},
	})
	if _, err := os.Stat(state); err == nil {
		t.Error("stop left the stale record")
	}
	if err := sleep.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("stop signalled a process that was not the ensemble's: %v", err)
	}

	// A record whose start command runs (the sleep, as its own) but whose
	// servers are all gone is stale too.
	dead := fmt.Sprintf(`{"owner":{"pid":%d,"start":%d,"mark":"sleep"},"servers":["127.0.0.1:1"],
		"server_procs":[{"pid":%d,"start":%d,"mark":"zoo.cfg"}]}`, sleep.Process.Pid, start, sleep.Process.Pid, start)
	writeFiles(t, dir, map[string]string{"state.json": dead})
	checkCLI(t, dir, []cliCase{
		{"a record whose servers are gone", []string{"ensemble", "status", "--state", state}, 1, "stale: every server of the ensemble", ""},
	})

	// Two starts of one ensemble; the first one interrupted while it
	// starts, then once up.
	first := exec.Command(zksimBinary(t), "ensemble", "start", "--size", "1")
	first.Env = ensembleEnv(dir)
	var firstOut bytes.Buffer
	first.Stdout, first.Stderr = &firstOut, &firstOut
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer first.Process.Kill()
	time.Sleep(300 * time.Millisecond)
	second := exec.Command(zksimBinary(t), "ensemble", "start", "--size", "1")
	second.Env = ensembleEnv(dir)
	if out, err := second.CombinedOutput(); err == nil || !strings.Contains(string(out), "already running") {
		t.Errorf("a second start: %v\n%s", err, out)
	}
	first.Process.Signal(syscall.SIGINT)
	first.Wait()
	if left, _ := filepath.Glob(filepath.Join(dir, "zksim-ensemble-*")); len(left) > 0 {
		t.Errorf("an interrupted start left %v\n%s", left, firstOut.String())
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "cache", "zksim", "ensembles", "*")); len(left) > 0 {
		t.Errorf("an interrupted start left its record %v", left)
	}
}

// An interrupted live run ends its clients, judges and prints what they
// did (the JSON says it was interrupted), stops every server it started,
// removes their directories, and exits 130; an interrupt delivered twice
// is one.
func TestCLIInterruptedLive(t *testing.T) {
	if testing.Short() {
		t.Log("-short: the live commands run in the full test")
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(zksimBinary(t), "live", "lock-faults", "--json")
	cmd.Env = ensembleEnv(dir)
	var out, errOut syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	for deadline := time.Now().Add(90 * time.Second); !strings.Contains(errOut.String(), "in the simulator"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the run did not begin:\n%s", errOut.String())
		}
	}
	time.Sleep(2 * time.Second) // the clients at work
	// One interrupt, delivered twice within a millisecond, as GNU timeout
	// and CI runners deliver it to the process and to its group: the
	// copy must not stop the run at once, losing its verdict.
	cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Fatalf("%v, want exit 130\n%s", err, errOut.String())
	}
	var o struct {
		Interrupted bool `json:"interrupted"`
		Ops         int  `json:"ops"`
	}
	if err := json.Unmarshal([]byte(out.String()), &o); err != nil || !o.Interrupted || o.Ops == 0 {
		t.Errorf("the interrupted run's JSON: %+v (%v), want it interrupted with the operations done:\n%.600s", o, err, out.String())
	}
	nothingLeft(t, dir, "the interrupted live run")
}

// Every run says what it exercised (its coverage, in the summary and the
// JSON); a scenario that requires a situation no run reached is weak:
// not as expected, exit 1.
func TestCLICoverage(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"weak.yaml":   "kind: lock\nseeds: 2\nrequire: [session expiries]\n",
		"strong.yaml": "kind: lock\nclients: 2\nseeds: 2\nfaults: [\"at 10ms crash leader for 1s\"]\nrequire: [leader changes, \"struck: crash\"]\n",
		"never.yaml":  "kind: lock\nclients: 2\nseeds: 1\nfaults: [\"at 1h crash leader\"]\n",
		"bad.yaml":    "kind: lock\nrequire: [sunshine]\n",
		"alone.yaml":  "kind: lock\nclients: 1\nseeds: 2\nrequire: [acquires that waited for a holder]\n",
		"crowd.yaml":  "kind: lock\nclients: 3\nseeds: 2\nrequire: [acquires that waited for a holder]\n",
		"other.yaml":  "kind: lock\nrequire: [transactions committed]\n",
	})
	checkCLI(t, dir, []cliCase{
		{"a pass that never reached what it requires", []string{"run", "weak.yaml"}, 1,
			"weak: no run reached session expiries, which the scenario requires", ""},
		{"a pass that did", []string{"run", "strong.yaml"}, 0, "leader changes 2, ", ""},
		{"a fault the run ended before", []string{"run", "never.yaml", "--json"}, 0, `"faults_never_struck_total": 1`, ""},
		{"an unknown situation", []string{"run", "bad.yaml"}, 2, "", `require[0]: "sunshine"; want a coverage situation`},
		{"a lock no client waited for", []string{"run", "alone.yaml"}, 1, "weak: no run reached acquires that waited for a holder", ""},
		{"a lock clients waited for", []string{"run", "crowd.yaml"}, 0, "acquires that waited for a holder ", ""},
		{"another kind's situation", []string{"run", "other.yaml"}, 2, "", `"transactions committed"; want a coverage situation of kind lock`},
	})
}

// The shards of a run, merged, are the whole run: the same seeds,
// violations (by seed and trace hash), coverage, verdict and exit status;
// shards that are not one run's, or leave seeds out, are bad input.
func TestCLIMerge(t *testing.T) {
	dir := t.TempDir()
	save := func(name string, args ...string) (int, runOutput) {
		t.Helper()
		status, out, errOut := runBinary(t, dir, args...)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		var o runOutput
		if err := json.Unmarshal([]byte(out), &o); err != nil {
			t.Fatalf("zksim %v: %v\n%s%s", args, err, out, errOut)
		}
		return status, o
	}
	for _, sc := range []string{"lock-noguid", "lock-faults"} {
		status, whole := save("whole.json", "run", sc, "--seeds", "12", "--json")
		files := []string{"merge"}
		for i := 1; i <= 3; i++ {
			name := fmt.Sprintf("%s-%d.json", sc, i)
			save(name, "run", sc, "--seeds", "12", "--shard", fmt.Sprintf("%d/3", i), "--json")
			files = append(files, name)
		}
		mstatus, merged := save("merged.json", files...)
		if mstatus != status || merged.First != whole.First || merged.Seeds != whole.Seeds || merged.Ran != whole.Ran ||
			merged.Got != whole.Got || merged.AsExpected != whole.AsExpected || merged.Ops != whole.Ops {
			t.Errorf("%s: merged %d %+v\nwhole %d %+v", sc, mstatus, merged, status, whole)
		}
		key := func(vs []runViolation) []string {
			var out []string
			for _, v := range vs {
				out = append(out, fmt.Sprintf("%d %s %s", v.Seed, v.TraceHash, v.Check))
			}
			slices.Sort(out)
			return out
		}
		if !slices.Equal(key(merged.Violations), key(whole.Violations)) {
			t.Errorf("%s: merged violations %v, whole %v", sc, key(merged.Violations), key(whole.Violations))
		}
		if !maps.Equal(merged.Coverage, whole.Coverage) {
			t.Errorf("%s: merged coverage %v, whole %v", sc, merged.Coverage, whole.Coverage)
		}
	}
	// Keeping the lowest 2 failing seeds, shards and whole alike: the merge
	// keeps the same 2 and counts every failing seed.
	_, whole := save("kept.json", "run", "lock-noguid", "--seeds", "12", "--keep", "2", "--json")
	kept := []string{"merge"}
	for i := 1; i <= 3; i++ {
		name := fmt.Sprintf("kept-%d.json", i)
		save(name, "run", "lock-noguid", "--seeds", "12", "--shard", fmt.Sprintf("%d/3", i), "--keep", "2", "--json")
		kept = append(kept, name)
	}
	_, merged := save("kept-merged.json", kept...)
	seeds := func(vs []runViolation) []uint64 {
		var out []uint64
		for _, v := range vs {
			out = append(out, v.Seed)
		}
		return slices.Compact(out)
	}
	if whole.FailingSeeds < 4 || merged.FailingSeeds != whole.FailingSeeds || !slices.Equal(seeds(merged.Violations), seeds(whole.Violations)) ||
		len(seeds(whole.Violations)) != 2 || !slices.Equal(merged.Found, whole.Found) || merged.Got != whole.Got {
		t.Errorf("--keep 2: merged %d failing, seeds %v, found %v; whole %d failing, seeds %v, found %v",
			merged.FailingSeeds, seeds(merged.Violations), merged.Found, whole.FailingSeeds, seeds(whole.Violations), whole.Found)
	}
	writeFiles(t, dir, map[string]string{"junk.json": "{not json", "empty.json": "{}"})
	save("other-1.json", "run", "lock-faults", "--seeds", "12", "--shard", "1/3", "--json")
	save("short-2.json", "run", "lock-noguid", "--seeds", "9", "--shard", "2/3", "--json") // seeds 4 to 6
	if status, o := save("stopped-2.json", "run", "lock-noguid", "--seeds", "12", "--shard", "2/3", "--stop-at-first", "--json"); status != 0 ||
		!o.StoppedAtFirst || o.Ran >= o.Seeds || len(o.Violations) == 0 || !o.AsExpected {
		t.Errorf("--stop-at-first: exit %d, %+v", status, o)
	}
	checkCLI(t, dir, []cliCase{
		{"a shard missing", []string{"merge", "lock-noguid-1.json", "lock-noguid-3.json"}, 2, "", "seeds 5 to 8 are in no shard given"},
		{"the last shard missing", []string{"merge", "lock-noguid-1.json", "lock-noguid-2.json"}, 2, "", "shard 3/3 is missing"},
		{"a shard twice", []string{"merge", "lock-noguid-1.json", "lock-noguid-1.json", "lock-noguid-2.json"}, 2, "", "shard 1/3 given twice"},
		{"overlapping ranges", []string{"merge", "lock-noguid-1.json", "short-2.json", "lock-noguid-3.json"}, 2, "", "overlaps"},
		{"another scenario", []string{"merge", "other-1.json", "lock-noguid-2.json", "lock-noguid-3.json"}, 2, "", "not one run"},
		{"not a run's JSON", []string{"merge", "junk.json"}, 2, "", "junk.json: not what zksim run --json prints"},
		{"an empty object", []string{"merge", "empty.json"}, 2, "", `empty.json: not what zksim run --json prints (no "scenario" field)`},
		{"an unsharded run", []string{"merge", "whole.json"}, 2, "", "not a shard"},
		{"shards keeping different numbers of failures", []string{"merge", "kept-1.json", "lock-noguid-2.json", "lock-noguid-3.json"}, 2, "", "not one run's shards"},
		{"a shard stopped at its first violation", []string{"merge", "lock-noguid-1.json", "stopped-2.json", "lock-noguid-3.json"}, 2, "", "stopped at its first violation"},
	})
}

// syncBuffer is a bytes.Buffer a process writes into while a test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// An interrupted report --live, once its servers run, stops them, removes
// their directories and exits 130.
func TestCLIInterruptedReportLive(t *testing.T) {
	if testing.Short() {
		t.Log("-short: the live commands run in the full test")
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(zksimBinary(t), "report", "--live", "--live-clients", "2", "--out", filepath.Join(dir, "out"))
	cmd.Env = ensembleEnv(dir)
	var out, errOut syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	for deadline := time.Now().Add(90 * time.Second); strings.Count(errOut.String(), "started (pid") < 3; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the servers did not start:\n%s", errOut.String())
		}
	}
	time.Sleep(time.Second) // the sweep at work
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Fatalf("%v, want exit 130\n%s", err, errOut.String())
	}
	nothingLeft(t, dir, "the interrupted report")
}

// nothingLeft checks that what (a command run with ensembleEnv(dir)) left
// no server directory under dir and no process running from it.
func nothingLeft(t *testing.T, dir, what string) {
	t.Helper()
	if left, _ := filepath.Glob(filepath.Join(dir, "zksim-ensemble-*")); len(left) > 0 {
		t.Errorf("%s left %v", what, left)
	}
	time.Sleep(200 * time.Millisecond) // the servers end with their parent
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if data, err := os.ReadFile(p); err == nil && strings.Contains(string(data), dir) {
			t.Errorf("a process outlived %s: %s", what, strings.ReplaceAll(string(data), "\x00", " "))
		}
	}
}

// Interrupts within the window are one; a later one is another; with no
// one listening the process would end (not tested here: it exits).
func TestInterruptsWithinTheWindowAreOne(t *testing.T) {
	ch := make(chan os.Signal, 4)
	stop := notifyInterrupts(ch)
	defer stop()
	t0 := time.Now().Add(time.Hour) // after any real interrupt of this process
	deliverInterrupt(syscall.SIGINT, t0)
	deliverInterrupt(syscall.SIGINT, t0.Add(3*time.Millisecond))
	deliverInterrupt(syscall.SIGTERM, t0.Add(interruptWindow/2))
	if len(ch) != 1 {
		t.Fatalf("%d interrupts passed on from three signals within %s, want 1", len(ch), interruptWindow)
	}
	deliverInterrupt(syscall.SIGINT, t0.Add(interruptWindow+time.Millisecond))
	if len(ch) != 2 {
		t.Fatalf("a signal past the window was not passed on as a second interrupt")
	}
}
