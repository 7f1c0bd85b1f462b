package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/live"
)

// servedLibrary runs zksim serve on a lock scenario with faults, the
// command running clients processes of a library's lock program.
func servedLibrary(t *testing.T, faults string, clients int, program string) (int, string) {
	t.Helper()
	script := fmt.Sprintf(`cd %s; for i in $(seq %d); do %s & sleep 0.3; done; wait`, filepath.Join(harness.Dir(), "python"), clients, program)
	var out, errOut bytes.Buffer
	code := run([]string{"serve", "lock-contention", "--faults", faults, "--", "sh", "-c", script}, &out, &errOut)
	return code, out.String() + errOut.String()
}

// kazoo's Lock and Curator's InterProcessMutex, unmodified, judged through
// zksim serve by the lock's checks on what their clients recorded: both
// hold under contention; kazoo's holder, cut off past its session
// timeout, goes on using what the lock protects after the servers gave
// the lock to the next client (the lock does not watch its session).
func TestServeJudgesKazooAndCurator(t *testing.T) {
	for _, ensure := range []func() error{func() error { return live.EnsureInstalled(os.Stderr) },
		func() error { return harness.EnsureInstalled(os.Stderr) }} {
		if err := ensure(); err != nil {
			t.Fatal(err)
		}
	}
	const judged = "checks: mutex, ownership, liveness, herd (on the"
	code, out := servedLibrary(t, "none", 3, harness.Python+" kazoo_lock.py 2 1 0.25")
	if code != 0 || !strings.Contains(out, judged) || !strings.Contains(out, "): held") {
		t.Fatalf("kazoo's Lock under contention: exit %d\n%s", code, out)
	}

	classes := t.TempDir()
	if err := harness.CompileJava(classes); err != nil {
		t.Fatal(err)
	}
	code, out = servedLibrary(t, "none", 3, fmt.Sprintf("java -cp %s CuratorMutex 2 1000 250", harness.Classpath(classes)))
	if code != 0 || !strings.Contains(out, judged) || !strings.Contains(out, "): held") {
		t.Fatalf("Curator's InterProcessMutex under contention: exit %d\n%s", code, out)
	}

	code, out = servedLibrary(t, "at 1s disconnect c1 for 14s", 2, harness.Python+" kazoo_lock.py 1 14 1")
	if code != 1 || !strings.Contains(out, "mutex (safety)") || !strings.Contains(out, "c1 and c2 held it at once") {
		t.Fatalf("kazoo's Lock, its holder cut off past its session timeout: exit %d, want a mutex violation\n%s", code, out)
	}
}
