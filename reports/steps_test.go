package reports

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/zksim/zksim/client"
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
	// The lock's nodes by their short names, as the timeline and the
	// diagram name them (their guid is c1's session's: "(c1)" says whose).
	for _, want := range []string{"/zksim/lock: lock-0 (c1), lock-1 (c1)"} {
		if !strings.Contains(strings.Join(last.Servers, "\n"), want) {
			t.Errorf("the last step's servers do not show %q: %v", want, last.Servers)
		}
	}
	if !strings.Contains(strings.Join(last.Clients, "\n"), "c1: HasSession; in acquire /zksim/lock") {
		t.Errorf("the last step's clients: %v", last.Clients)
	}
	if len(last.Watches) != 1 || last.Watches[0] != "c1: exists /zksim/lock/lock-0" {
		t.Errorf("the last step's watches: %v", last.Watches)
	}
	guid := regexp.MustCompile(`[0-9a-f]{12,}-|\d{10}`)
	for _, s := range steps {
		for _, line := range slices.Concat([]string{s.Event}, s.Servers, s.Watches) {
			if guid.MatchString(line) {
				t.Fatalf("at %s a node is named by its guid or its zero-padded sequence number: %s", s.At, line)
			}
		}
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
		apart = apart || strings.Contains(lines, "no /zksim/barrier/") && regexp.MustCompile(`/zksim/barrier/r\d+ = "`).MatchString(lines)
		behind = behind || strings.Contains(lines, "writes behind") || strings.Contains(lines, "write behind")
	}
	if !apart || !behind {
		t.Errorf("no step shows one server lacking a barrier node another holds (%v), or a server behind (%v)", apart, behind)
	}
}

// The panel shows the data the bug is about: a counter's value and version
// on each server (two clients writing the same next value is the lost
// update), and the items a queue's producers put with a multi, data
// included (a KApply names only the multi's first path: the step-through
// follows the changes the trace keeps).
func TestStepsShowNodeData(t *testing.T) {
	for _, tc := range []struct{ variant, want string }{
		{"counter-blind-set", `s\d: /zksim/counter = "\d+" \(version [1-9]\d*\)`},
		{"queue-plain-delete", `/zksim/queue: .*queue-\d+ \(c\d\) = "c\d-\d+"`},
		{"2pc-early-commit", `c\d\.vote \(c\d\) = "(commit|abort)"`},
	} {
		t.Run(tc.variant, func(t *testing.T) {
			steps, err := Steps(firstCounterexample(t, tc.variant))
			if err != nil {
				t.Fatal(err)
			}
			re := regexp.MustCompile(tc.want)
			for _, s := range steps {
				if re.MatchString(strings.Join(s.Servers, "\n")) {
					return
				}
			}
			t.Errorf("no step's servers match %s; the last: %v", tc.want, steps[len(steps)-1].Servers)
		})
	}
}

func TestDataText(t *testing.T) {
	for _, tc := range []struct {
		data []byte
		want string
	}{
		{nil, ""},
		{[]byte("v1"), ` = "v1"`},
		{[]byte{0, 1, 2}, " = 3 bytes"},
		{[]byte(strings.Repeat("é", 40)), ` = "` + strings.Repeat("é", 32) + `"… (80 bytes)`},
	} {
		if got := dataText(tc.data); got != tc.want {
			t.Errorf("dataText(%q) = %s, want %s", tc.data, got, tc.want)
		}
	}
}

// A client that closes its session holds no watches after it: c5, which
// walked through the barrier and closed, is shown holding none at the end.
func TestStepsDropAClosedClientsWatches(t *testing.T) {
	steps, err := Steps(firstCounterexample(t, "barrier-no-sync-lag"))
	if err != nil {
		t.Fatal(err)
	}
	closed := map[string]bool{}
	closes := regexp.MustCompile(`^(c\d+): →s\d closeSession `)
	for _, s := range steps {
		if m := closes.FindStringSubmatch(s.Event); m != nil {
			closed[m[1]] = true
		}
		for _, watch := range s.Watches {
			if c, _, _ := strings.Cut(watch, ":"); closed[c] {
				t.Fatalf("at %s, after %s closed its session, it is shown holding %q", s.At, c, watch)
			}
		}
	}
	if len(closed) == 0 {
		t.Fatalf("no client closed its session in the steps")
	}
}

// The step-through opens where the violation shows, on the event the
// space-time diagram opens on: lock-herd's herd is the delete of the
// holder's node, well past the sessions' set-up (it opened at event 1).
func TestStepsMarkTheViolation(t *testing.T) {
	o := firstCounterexample(t, "lock-herd")
	steps, err := Steps(o)
	if err != nil {
		t.Fatal(err)
	}
	var marked []int
	for i, s := range steps {
		if s.Violation {
			marked = append(marked, i)
		}
	}
	if len(marked) != 1 {
		t.Fatalf("%d steps marked as the violation's: %v", len(marked), marked)
	}
	at := marked[0]
	from, to := violationWindow(o)
	d := newDiagram(o, o.World.Trace().Records(), from, to)
	focus := d.rows[d.rowAt(violationMoment(o))]
	if want := client.FormatTime(int64(focus.At)); steps[at].At != want || at == 0 || steps[at-1].At == want {
		t.Errorf("the step-through opens at event %d of %d (%s %s); the diagram opens at %s", at+1, len(steps),
			steps[at].At, steps[at].Event, want)
	}
	if !strings.Contains(steps[at].Event, "delete") {
		t.Errorf("the herd's step is %q, not the delete that woke the herd", steps[at].Event)
	}
}
