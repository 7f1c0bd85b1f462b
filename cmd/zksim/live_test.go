package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// zksim ensemble start brings up a local ensemble and runs until stopped;
// status asks each server its mode; zksim live runs a scenario on it;
// zksim ensemble stop stops it, and no server process outlives it.
func TestEnsembleAndLiveCommands(t *testing.T) {
	if testing.Short() {
		t.Log("-short: the live commands run in the full test")
		return
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "zksim")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	state := filepath.Join(dir, "ensemble.json")
	start := exec.Command(bin, "ensemble", "start", "--size", "1", "--state", state)
	stdout, _ := start.StdoutPipe()
	var stderr bytes.Buffer
	start.Stderr = &stderr
	if err := start.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = start.Process.Kill() })
	lines := bufio.NewScanner(stdout)
	upCh := make(chan string, 1)
	go func() {
		for lines.Scan() {
			if strings.Contains(lines.Text(), "up:") {
				upCh <- lines.Text()
			}
		}
		close(upCh)
	}()
	var up string
	select {
	case up = <-upCh:
	case <-time.After(90 * time.Second):
		t.Fatalf("the ensemble did not come up: %s", stderr.String())
	}
	addr := strings.Fields(strings.SplitN(up, "up: ", 2)[1])[0]
	var out, errOut bytes.Buffer
	if status := run([]string{"ensemble", "status", "--state", state}, &out, &errOut); status != 0 ||
		!strings.Contains(out.String(), "standalone") {
		t.Fatalf("status: %d %s%s", status, out.String(), errOut.String())
	}
	out.Reset()
	if status := run([]string{"live", "lock-contention", "--servers", addr, "--timeout", "60s"}, &out, &errOut); status != 0 ||
		!strings.Contains(out.String(), "every check held") {
		t.Fatalf("live: %d\n%s%s", status, out.String(), errOut.String())
	}
	st, err := readState(state)
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if status := run([]string{"ensemble", "stop", "--state", state}, &out, &errOut); status != 0 {
		t.Fatalf("stop: %d %s", status, errOut.String())
	}
	if err := start.Wait(); err != nil {
		t.Fatalf("ensemble start ended with %v: %s", err, stderr.String())
	}
	for _, p := range st.Procs {
		if p.alive() {
			t.Errorf("server process %d outlived zksim ensemble", p.PID)
		}
	}
	if _, err := os.Stat(st.Dir); err == nil {
		t.Errorf("the ensemble's directory %s outlived it", st.Dir)
	}
	if status := run([]string{"ensemble", "status", "--state", state}, &out, &errOut); status != 2 {
		t.Errorf("status after stop: %d", status)
	}
}
