package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zksim/zksim/live"
)

// zkCli is Debian's ZooKeeper command-line client.
const zkCli = "/usr/share/zookeeper/bin/zkCli.sh"

// TestServeZkCli has Debian's zkCli.sh, a real Java client, create, read,
// list and delete through zksim serve, and replays the tape to the same
// hash. (Under a fault, zkCli's one-shot commands fail as they do against
// a real ensemble: a command sent before the session is up fails with
// ConnectionLoss when its server goes; the serve package's tests strike
// go-zk sessions instead.)
func TestServeZkCli(t *testing.T) {
	if err := live.EnsureInstalled(os.Stderr); err != nil {
		t.Fatal(err)
	}
	tape := filepath.Join(t.TempDir(), "run.tape")
	script := `set -e
cli() { ` + zkCli + ` -server "$ZKSIM_CONNECT" "$@" 2>&1 | grep -v '^\(WATCHER::\|WatchedEvent\|SLF4J\|$\)' | tail -1; }
cli create /hello world
cli get /hello
cli create /hello/kid x
cli ls /hello
cli delete /hello/kid >/dev/null
cli ls /hello`
	var out, errOut bytes.Buffer
	code := run([]string{"serve", "lock-contention", "--faults", "none", "--tape", tape, "--", "sh", "-c", script}, &out, &errOut)
	if code != 0 {
		t.Fatalf("zksim serve exited %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	lines := strings.Split(out.String(), "\n")
	if !strings.HasPrefix(lines[0], "connect: 127.0.0.1:") || strings.Count(lines[0], ",") != 2 {
		t.Fatalf("first line %q, want the connect string of three 127.0.0.1 ports", lines[0])
	}
	got := strings.Join(lines[2:7], "|")
	if want := "Created /hello|world|Created /hello/kid|[kid]|[]"; got != want {
		t.Fatalf("zkCli printed %q, want %q\nwhole output:\n%s", got, want, out.String())
	}
	if !strings.Contains(out.String(), "served 6 client(s)") {
		t.Fatalf("the summary does not say six clients (one per zkCli.sh):\n%s", out.String())
	}
	hash := lines[7][strings.LastIndex(lines[7], " ")+1:]
	var replay bytes.Buffer
	if code := run([]string{"replay", "--tape", tape, "--hash"}, &replay, &errOut); code != 0 {
		t.Fatalf("replay --tape exited %d: %s", code, errOut.String())
	}
	if last := strings.TrimSpace(replay.String()[strings.LastIndex(strings.TrimSpace(replay.String()), "\n")+1:]); last != hash {
		t.Fatalf("the tape replays to hash %s, the served run's was %s", last, hash)
	}
}

// "pause c1" stops the command's processes (SIGSTOP, then SIGCONT), as a
// collection pause would: zkCli.sh, stopped right after its create was
// applied, goes on four seconds later and reads its node back.
func TestServePausesTheCommand(t *testing.T) {
	if err := live.EnsureInstalled(os.Stderr); err != nil {
		t.Fatal(err)
	}
	script := `exec 2>&1; { echo "create /p x"; sleep 1; echo "get /p"; echo quit; } | ` + zkCli + ` -server "$ZKSIM_CONNECT"`
	var out, errOut bytes.Buffer
	began := time.Now()
	code := run([]string{"serve", "lock-contention", "--faults", "when c1 create#1 applied: pause c1 4s", "--json", "--", "sh", "-c", script},
		&out, &errOut)
	if code != 0 {
		t.Fatalf("zksim serve exited %d\n%s\n%s", code, out.String(), errOut.String())
	}
	if took := time.Since(began); took < 4*time.Second {
		t.Fatalf("the command ran %s in all, through a 4s pause", took)
	}
	if !strings.Contains(out.String(), `"when c1 create#1 applied: pause c1 4s"`) {
		t.Fatalf("the pause never struck:\n%s", out.String())
	}
	if !strings.Contains(errOut.String(), "Created /p") || !strings.Contains(errOut.String(), "\nx\n") {
		t.Fatalf("zkCli.sh did not create and read back its node across the pause:\n%s", errOut.String())
	}
}

// --runs serves the scenario again and again, the command run against
// each, and says in how many a check broke; the tape kept is the first
// breaking run's.
func TestServeRunsCountsTheRunsThatBroke(t *testing.T) {
	if err := live.EnsureInstalled(os.Stderr); err != nil {
		t.Fatal(err)
	}
	// The second client deletes the first's ephemeral node while its
	// session lives: an ownership violation in every run.
	script := `exec 2>/dev/null; { echo "create -e /e x"; sleep 2; } | ` + zkCli + ` -server "$ZKSIM_CONNECT" >/dev/null & sleep 1.5; ` +
		zkCli + ` -server "$ZKSIM_CONNECT" delete /e >/dev/null; wait`
	tape := filepath.Join(t.TempDir(), "run.tape")
	var out, errOut bytes.Buffer
	code := run([]string{"serve", "lock-contention", "--runs", "2", "--tape", tape, "--", "sh", "-c", script}, &out, &errOut)
	if code != 1 || !strings.Contains(out.String(), "lock-contention: a check broke in 2 of 2 runs [1 2]") {
		t.Fatalf("exit %d, want 1 and both runs broken:\n%s%s", code, out.String(), errOut.String())
	}
	if strings.Count(out.String(), "connect: 127.0.0.1:") != 2 {
		t.Fatalf("not two runs served:\n%s", out.String())
	}
	if _, err := os.Stat(tape); err != nil {
		t.Fatalf("the first breaking run's tape: %v", err)
	}
	if left, _ := filepath.Glob(tape + ".run*"); len(left) > 0 {
		t.Fatalf("runs' tapes left beside it: %v", left)
	}
	out.Reset()
	if code := run([]string{"serve", "lock-contention", "--runs", "2", "--", "true"}, &out, &errOut); code != 0 ||
		!strings.Contains(out.String(), "a check broke in 0 of 2 runs []") {
		t.Fatalf("exit %d, want 0 and no run broken:\n%s", code, out.String())
	}
	// A run that ends before its faults strike tried less than its
	// schedule, and a command may fail in some runs (the runs go on, and
	// zksim serve exits with its status when no check broke): the count
	// says so.
	out.Reset()
	if code := run([]string{"serve", "lock-contention", "--runs", "2", "--faults", "at 30s crash leader", "--", "true"}, &out, &errOut); code != 0 ||
		!strings.Contains(out.String(), "a check broke in 0 of 2 runs []; every fault struck in only 0 of 2 runs") {
		t.Fatalf("exit %d, want 0 and the fault never struck:\n%s", code, out.String())
	}
	out.Reset()
	if code := run([]string{"serve", "lock-contention", "--runs", "3", "--", "false"}, &out, &errOut); code != 1 ||
		!strings.Contains(out.String(), "a check broke in 0 of 3 runs []; the command failed in runs [1 2 3]") {
		t.Fatalf("exit %d, want 1 (the command's) and every run's failure:\n%s", code, out.String())
	}
	// A broken check outranks the command's failure; without one, the
	// command's status is zksim serve's.
	out.Reset()
	if code := run([]string{"serve", "lock-contention", "--", "sh", "-c", script + "; exit 7"}, &out, &errOut); code != 1 {
		t.Fatalf("a check broke and the command exited 7: exit %d, want 1\n%s", code, out.String())
	}
	if code := run([]string{"serve", "lock-contention", "--", "sh", "-c", "exit 7"}, &out, &errOut); code != 7 {
		t.Fatalf("the command exited 7, no check broke: exit %d, want 7", code)
	}
}

// --shrink leaves out each fault whose schedule still breaks a check in
// --min-fails of --runs runs: faults that have nothing to do with the
// broken check (here the command's own mistake, a client deleting
// another's ephemeral node) all go.
func TestServeShrinksTheSchedule(t *testing.T) {
	if err := live.EnsureInstalled(os.Stderr); err != nil {
		t.Fatal(err)
	}
	script := `exec 2>/dev/null; { echo "create -e /e x"; sleep 2; } | ` + zkCli + ` -server "$ZKSIM_CONNECT" >/dev/null & sleep 1.5; ` +
		zkCli + ` -server "$ZKSIM_CONNECT" delete /e >/dev/null; wait`
	var out, errOut bytes.Buffer
	code := run([]string{"serve", "lock-contention", "--faults", "at 100ms spike 1ms for 10ms; at 200ms lag s2 for 10ms", "--shrink",
		"--", "sh", "-c", script}, &out, &errOut)
	if code != 1 || !strings.Contains(out.String(), "shrink: smallest schedule found (0 fault(s)), broke a check in 1 of 1 runs: none") {
		t.Fatalf("exit %d, want 1 and the schedule shrunk to none:\n%s%s", code, out.String(), errOut.String())
	}
	if code := run([]string{"serve", "lock-contention", "--shrink", "--", "true"}, &out, &errOut); code != 2 {
		t.Fatalf("--shrink without a schedule: exit %d, want 2", code)
	}
}

// An interrupted zksim serve ends its command and every process the
// command started, also those that left its process group (GNU timeout
// puts its command in a group of its own), and exits 130.
func TestServeInterruptedEndsEveryProcessOfItsCommand(t *testing.T) {
	cmd := exec.Command(zksimBinary(t), "serve", "lock-contention", "--", "sh", "-c", "timeout 60 sleep 60 & wait")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill() //nolint:errcheck
	if _, err := bufio.NewReader(stdout).ReadString('\n'); err != nil {
		t.Fatalf("no connect line: %v", err)
	}
	var tree []int
	for range 200 { // zksim, sh, timeout, sleep
		if tree = processTree(cmd.Process.Pid); len(tree) == 4 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(tree) != 4 {
		t.Fatalf("zksim serve's process tree %v, want zksim, sh, timeout and sleep", tree)
	}
	cmd.Process.Signal(os.Interrupt) //nolint:errcheck
	go io.Copy(io.Discard, stdout)   //nolint:errcheck
	if err := cmd.Wait(); cmd.ProcessState.ExitCode() != 130 {
		t.Fatalf("zksim serve, interrupted: %v, want exit 130", err)
	}
	for _, pid := range tree[1:] {
		for range 100 { // a signalled process takes a moment to go
			if running(pid) {
				time.Sleep(10 * time.Millisecond)
			}
		}
		if running(pid) {
			syscall.Kill(pid, syscall.SIGKILL) //nolint:errcheck
			t.Errorf("process %d (%s) outlived zksim serve", pid, processName(pid))
		}
	}
}

// running reports whether process pid runs (is neither gone nor a zombie).
func running(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && !strings.Contains(string(stat[strings.LastIndexByte(string(stat), ')')+1:]), " Z ")
}
