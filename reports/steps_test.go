package reports

import (
	"regexp"
	"strings"
	"testing"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/scenarios"
)

// Stepping through the lost create reply: the steps follow the lock's
// children on each server, c1's state and operation, and its watch on its
// own orphan.
func TestStepsFollowTheCounterexample(t *testing.T) {
	sc, err := scenarios.LoadScenario("lock-noguid")
	if err != nil {
		t.Fatal(err)
	}
	spec := sc.Spec
	spec.Clients, spec.Workload.Rounds, spec.Rates = 1, 1, nil
	spec.Faults = fault.MustParseSchedule("when c1 create#3 applied: lose-reply")
	o, err := scenarios.Replay(spec, 1)
	if err != nil || !o.Failed() {
		t.Fatalf("%v %v", err, o.Violations)
	}
	steps, err := Steps(o)
	if err != nil {
		t.Fatal(err)
	}
	last := steps[len(steps)-1]
	all := ""
	for _, s := range steps {
		all += s.Event + "\n"
	}
	for _, want := range []string{"lock-0000000000 (c1), 02000000000000010001-lock-0000000001 (c1)"} {
		if !strings.Contains(strings.Join(last.Servers, "\n"), want) {
			t.Errorf("the last step's servers do not show %q: %v", want, last.Servers)
		}
	}
	if !strings.Contains(strings.Join(last.Clients, "\n"), "c1: HasSession; in acquire /zksim/lock") {
		t.Errorf("the last step's clients: %v", last.Clients)
	}
	if len(last.Watches) != 1 || !strings.Contains(last.Watches[0], "c1: exists /zksim/lock/02000000000000010001-lock-0000000000") {
		t.Errorf("the last step's watches: %v", last.Watches)
	}
	if !strings.Contains(all, "world: fault: when c1 create#3 applied: lose-reply") {
		t.Errorf("the steps do not show the fault:\n%s", all)
	}
}

// Under a lag, the step-through shows what the lagging server lacks: a
// barrier node one server holds and another has not yet (it said
// "s1: — s2: — s3: —" at every step, following children alone), and how
// many writes each server is behind.
func TestStepsShowWhatALaggingServerLacks(t *testing.T) {
	o := firstCounterexample(t, "barrier-no-sync-lag")
	steps, err := Steps(o)
	if err != nil {
		t.Fatal(err)
	}
	apart, behind := false, false
	for _, s := range steps {
		lines := strings.Join(s.Servers, "\n")
		apart = apart || strings.Contains(lines, "no /zksim/barrier/") && regexp.MustCompile(`/zksim/barrier/r\d+: `).MatchString(lines)
		behind = behind || strings.Contains(lines, "writes behind") || strings.Contains(lines, "write behind")
	}
	if !apart || !behind {
		t.Errorf("no step shows one server lacking a barrier node another holds (%v), or a server behind (%v)", apart, behind)
	}
}
