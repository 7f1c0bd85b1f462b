package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/zksim/zksim/harness"
)

// kazooRecipe is one of kazoo's recipes, unmodified, run under zksim serve
// by its program in harness/python and judged by its kind's checks on what
// the clients recorded.
type kazooRecipe struct {
	recipe   string
	scenario string // a built-in scenario of its kind, served with no faults
	clients  int
	program  string // the program and its arguments
	giveUp   int    // seconds after which a client still running is ended
	checks   string // the kind's checks, as the summary lists them
	verdict  string
	long     bool // it runs for a session timeout or more: not in a -short run
}

// kazooRecipes are kazoo 2.8's recipes (Debian's python3-kazoo) and what
// their kinds' checks say of them with a few clients and no faults. Every
// one holds but the shared lock: kazoo 2.8's ReadLock waits for the
// newest WriteLock node, even one made after its own, and a reader and a
// writer end up waiting for each other (kazoo issue #649, fixed in 2.9.0):
// the clients still waiting when they are ended are the liveness check's.
var kazooRecipes = []kazooRecipe{
	{"Lock", "lock-contention", 3, "kazoo_lock.py 2 1 0.25", 60, "mutex, ownership, liveness, herd", "held", false},
	{"Semaphore", "semaphore-contention", 5, "kazoo_semaphore.py 2 1 0.25 3", 60, "semaphore, ownership, liveness, herd", "held", false},
	{"ReadLock/WriteLock", "shared-lock-faults", 4, "kazoo_rwlock.py 2 2 1 0.25", 36, "rwlock, ownership, liveness", "violation (liveness)", true},
	{"Election", "election-faults", 3, "kazoo_election.py 2 1 0.25", 60, "election, ownership, liveness, herd", "held", false},
	{"Counter", "counter-faults", 3, "kazoo_counter.py 4 0.1", 60, "counter, ownership", "held", false},
	{"Queue", "queue-faults", 4, "kazoo_queue.py 2 8 0.05 1 2", 60, "fifo, exactly-once, ownership, liveness, herd", "held", false},
	{"LockingQueue", "queue-faults", 4, "kazoo_locking_queue.py 2 8 0.05 1 2", 60, "fifo, exactly-once, ownership, liveness, herd", "held", false},
	{"DoubleBarrier", "double-barrier-faults", 3, "kazoo_double_barrier.py 3 3 0.1 1", 60, "double-barrier, ownership, liveness, herd", "held", true},
	{"Party", "membership-faults", 4, "kazoo_party.py 4 1 2 0.05 0.5 1 30", 60, "membership, ownership", "held", true},
}

// servedKazoo runs zksim serve on scenario with faults, the command
// starting a process of program per client, 0.3s apart, each with its
// number in ZKSIM_CLIENT (so that the N-th is cN) and ended after giveUp
// seconds if it still runs (Python writing no bytecode into the source
// tree).
func servedKazoo(scenario, faults string, clients int, program string, giveUp int) (int, string) {
	script := fmt.Sprintf(`cd %s; export PYTHONDONTWRITEBYTECODE=1; for i in $(seq %d); do ZKSIM_CLIENT=$i timeout %d %s %s & sleep 0.3; done; wait`,
		filepath.Join(harness.Dir(), "python"), clients, giveUp, harness.Python, program)
	var out, errOut bytes.Buffer
	code := run([]string{"serve", scenario, "--faults", faults, "--", "sh", "-c", script}, &out, &errOut)
	return code, out.String() + errOut.String()
}

// Each of kazoo's recipes, unmodified, judged through zksim serve by its
// kind's checks on what its clients recorded. The runs go at once (each
// waits on its clients' real time, not on the machine), then each is
// judged in its own subtest.
func TestServeJudgesKazoosRecipes(t *testing.T) {
	if err := harness.EnsureInstalled(os.Stderr); err != nil {
		t.Fatal(err)
	}
	type served struct {
		code int
		out  string
	}
	runs := make([]served, len(kazooRecipes))
	var wg sync.WaitGroup
	for i, r := range kazooRecipes {
		if r.long && testing.Short() {
			continue
		}
		wg.Go(func() {
			runs[i].code, runs[i].out = servedKazoo(r.scenario, "none", r.clients, r.program, r.giveUp)
		})
	}
	wg.Wait()
	for i, r := range kazooRecipes {
		t.Run(strings.ReplaceAll(r.recipe, "/", "+"), func(t *testing.T) {
			if r.long && testing.Short() {
				t.Skipf("-short: kazoo's %s runs for a session timeout or the liveness bound; the full run judges it", r.recipe)
			}
			code, out := runs[i].code, runs[i].out
			judged := fmt.Sprintf("checks: %s (on the ", r.checks)
			wantCode := 0
			if r.verdict != "held" {
				wantCode = 1
			}
			if code != wantCode || !strings.Contains(out, judged) || !strings.Contains(out, "): "+r.verdict+"\n") {
				t.Fatalf("kazoo's %s served as %s: exit %d, want %d and %q ... %q\n%s", r.recipe, r.scenario, code, wantCode,
					judged, r.verdict, out)
			}
		})
	}
}
