package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/serve"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/workload"
)

// A served run whose second client deletes the first's ephemeral node:
// its tape replays to the ownership violation, with its report's files.
func TestReplayTapeReportsAServedViolation(t *testing.T) {
	dir := t.TempDir()
	tape := filepath.Join(dir, "run.tape")
	servedTape(t, tape, serve.Options{Config: sim.Config{Seed: 3}, Name: "stolen-node"}, func(addrs []string, _ string) {
		owner, thief := goZKSession(t, addrs), goZKSession(t, addrs)
		defer owner.Close()
		defer thief.Close()
		if _, err := owner.Create("/mine", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		if _, err := thief.Sync("/mine"); err != nil {
			t.Fatal(err)
		}
		if err := thief.Delete("/mine", -1); err != nil {
			t.Fatal(err)
		}
	})

	out := filepath.Join(dir, "report")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"replay", "--tape", tape, "--out", out}, &stdout, &stderr); code != 1 {
		t.Fatalf("replay --tape exited %d, want 1 (a violation)\n%s%s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "stolen-node, seed 3: served 2 client(s)") ||
		!strings.Contains(stdout.String(), "ownership (safety)") || !strings.Contains(stdout.String(), "deleted /mine") {
		t.Fatalf("the replay's report does not tell the stolen node:\n%s", stdout.String())
	}
	for _, f := range []string{"report.txt", "timeline.txt", "spacetime.svg", "history.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("the report's %s: %v", f, err)
		}
	}
}

// servedTape serves opts on 127.0.0.1, its tape written to tape, while
// body runs against its addresses and its recipe events' address.
func servedTape(t *testing.T, tape string, opts serve.Options, body func(addrs []string, events string)) {
	t.Helper()
	var err error
	if opts.Tape, err = serve.CreateTape(tape, opts); err != nil {
		t.Fatal(err)
	}
	front, err := serve.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	addrs, err := front.Listen()
	if err != nil {
		t.Fatal(err)
	}
	events, err := front.ListenEvents()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := front.Run(ctx); done <- err }()
	body(addrs, events)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// goZKSession is a go-zk session to the front end's addresses.
func goZKSession(t *testing.T, addrs []string) *zk.Conn {
	t.Helper()
	c, events, err := zk.Connect(addrs, 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	for ev := range events {
		if ev.State == zk.StateHasSession {
			return c
		}
	}
	t.Fatal("no session")
	return nil
}

// A served run's tape keeps the scenario's settings it was judged with:
// three holders at once of a semaphore served with three leases replay
// as held, as they were served; judged with the kind's default of two,
// they would not be.
func TestReplayTapeJudgesWithTheServedScenariosWorkload(t *testing.T) {
	tape := filepath.Join(t.TempDir(), "run.tape")
	for _, c := range []struct {
		size int
		want string
	}{{3, "): held"}, {0, "): violation (semaphore)"}} {
		opts := serve.Options{Config: sim.Config{Seed: 3}, Name: "three-leases", Kind: "semaphore",
			Judging: servedJudging{Workload: workload.Shape{Size: c.size}}.encode()}
		servedTape(t, tape, opts, func(addrs []string, events string) { threeHolders(t, addrs, events) })
		var stdout, stderr bytes.Buffer
		run([]string{"replay", "--tape", tape}, &stdout, &stderr)
		if !strings.Contains(stdout.String(), "checks: semaphore, ownership, liveness, herd (on the 9 operations") ||
			!strings.Contains(stdout.String(), c.want) {
			t.Fatalf("three holders of a semaphore served with size %d replay as\n%s%s\nwant %q", c.size, stdout.String(), stderr.String(), c.want)
		}
	}
}

// threeHolders records three clients holding the semaphore /s at once:
// each acquires, all use it, each releases.
func threeHolders(t *testing.T, addrs []string, events string) {
	t.Helper()
	var sessions []*zk.Conn
	for range 3 {
		sessions = append(sessions, goZKSession(t, addrs))
	}
	ev, err := net.Dial("tcp", events)
	if err != nil {
		t.Fatal(err)
	}
	answers := bufio.NewScanner(ev)
	send := func(line string) {
		time.Sleep(10 * time.Millisecond) // each at its own instant of the world's clock
		if _, err := fmt.Fprintln(ev, line); err != nil || !answers.Scan() {
			t.Fatalf("recipe event %s: %v", line, err)
		}
	}
	for i, s := range sessions {
		send(fmt.Sprintf(`{"call": "acquire", "session": %d, "path": "/s"}`, s.SessionID()))
		send(fmt.Sprintf(`{"return": %d}`, i+1))
	}
	for _, s := range sessions { // all three hold
		send(fmt.Sprintf(`{"instant": "use", "session": %d, "path": "/s"}`, s.SessionID()))
	}
	for _, s := range sessions {
		send(fmt.Sprintf(`{"call": "release", "session": %d, "path": "/s"}`, s.SessionID()))
	}
	for i := range sessions {
		send(fmt.Sprintf(`{"return": %d}`, 7+i))
	}
	ev.Close()
	for _, s := range sessions {
		s.Close()
	}
}
