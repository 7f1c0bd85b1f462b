package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/zksim/zksim/harness"
)

// curatorRecipes are Curator's recipes, each a program of harness/java
// whose clients (threads of one JVM, each its own session) record their
// kind's operations as zksim's workload of that kind does, served as a
// built-in scenario of that kind, and the checks that judge them.
var curatorRecipes = []struct {
	program, args string // the program and its arguments (harness/java/<program>.java)
	scenario      string
	checks        string
}{
	// Five clients, three leases, as semaphore-contention's: a judgement
	// with the kind's default of two would call it broken.
	{"CuratorSemaphore", "5 3 3 3 50", "semaphore-contention", "semaphore, ownership, liveness, herd"},
	{"CuratorReadWriteLock", "4 3 3 50", "shared-lock-faults", "rwlock, ownership, liveness"},
	// A served run sets the scenario's fence aside (it is zksim's own
	// workload's resource): the election check judges the leaders' uses.
	{"CuratorLeaderLatch", "4 4 3 50", "election-faults", "election, ownership, liveness, herd"},
	{"CuratorLeaderSelector", "4 4 3 50", "election-faults", "election, ownership, liveness, herd"},
	{"CuratorSharedCount", "4 4 10", "counter-faults", "counter, ownership"},
	{"CuratorAtomicLong", "4 4 10", "counter-faults", "counter, ownership"},
	{"CuratorQueue", "4 8", "queue-faults", "fifo, exactly-once, ownership, liveness, herd"},
	{"CuratorDoubleBarrier", "5 3 10", "double-barrier-faults", "double-barrier, ownership, liveness, herd"},
	// The longest (curatorLong): the views are judged two session
	// timeouts after the last change, a member's crash (about 24s).
	{"CuratorGroupMember", "6", "membership-faults", "membership, ownership"},
}

// curatorLong are the programs -short leaves out.
var curatorLong = map[string]bool{"CuratorGroupMember": true}

// Curator's recipes, unmodified, each judged through zksim serve by its
// kind's checks on what its clients recorded, with no faults: every one
// holds. Each run's tape, replayed, is judged the same way (with the
// scenario's settings the tape keeps). The runs go in parallel: most of
// their time is the simulated ensemble's clock, paced by the real one.
// -short (make test's race run) leaves the long membership run out.
func TestServeJudgesCuratorRecipes(t *testing.T) {
	if err := harness.EnsureInstalled(os.Stderr); err != nil {
		t.Fatal(err)
	}
	classes := t.TempDir()
	if err := harness.CompileJava(classes); err != nil {
		t.Fatal(err)
	}
	judged := regexp.MustCompile(`checks: (.*) \(on the ([0-9]+) operations the clients recorded and what the servers saw\): (.*)`)
	for _, r := range curatorRecipes {
		t.Run(r.program, func(t *testing.T) {
			if curatorLong[r.program] && testing.Short() {
				t.Skip("-short: the membership run takes 24s of the ensemble's clock")
			}
			t.Parallel()
			tape := filepath.Join(t.TempDir(), "run.tape")
			args := append([]string{"serve", r.scenario, "--faults", "none", "--tape", tape, "--",
				"java", "-cp", harness.Classpath(classes), r.program}, strings.Fields(r.args)...)
			var out, errOut bytes.Buffer
			code := run(args, &out, &errOut)
			m := judged.FindStringSubmatch(out.String())
			if code != 0 || m == nil || m[1] != r.checks || m[3] != "held" {
				t.Fatalf("%s under %s: exit %d, want its checks (%s) to hold\n%s%s", r.program, r.scenario, code, r.checks,
					out.String(), errOut.String())
			}
			out.Reset()
			errOut.Reset()
			code = run([]string{"replay", "--tape", tape}, &out, &errOut)
			if code != 0 || !strings.Contains(out.String(), m[0]) {
				t.Fatalf("%s's tape replayed: exit %d, want %q\n%s%s", r.program, code, m[0], out.String(), errOut.String())
			}
		})
	}
}
