package reports

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/scenarios"
	"github.com/zksim/zksim/workload"
)

// A violation's report names the seed, the check and its kind, the
// faults, and shows the timeline up to the violation, a column per client
// and per server; its files hold the full timeline, the history (which
// checks the same way when read back) and porcupine's visualization.
func TestViolationReport(t *testing.T) {
	spec := scenarios.Spec{Kind: "lock", Variant: "lock-unsorted", Clients: 3, Faults: fault.MustParseSchedule("when c2 create#3 applied: lose-reply")}
	var o *scenarios.Outcome
	for seed := uint64(1); seed <= 10 && (o == nil || !o.Failed()); seed++ {
		var err error
		if o, err = scenarios.Replay(spec, seed); err != nil {
			t.Fatal(err)
		}
	}
	if !o.Failed() || o.Violations[0].Check != "mutex" {
		t.Fatalf("want a mutex violation, got %v", o.Violations)
	}
	dir := t.TempDir()
	r := &ViolationReport{Outcome: o}
	if err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	text := r.String()
	for _, want := range []string{"VIOLATION in lock-unsorted, seed ", "trace hash ", "mutex (safety) on /zksim/lock",
		"faults:\n  when c2 create#3 applied: lose-reply", "timeline from ", "the operations involved", "│ c1", "│ c3", "│ s1", "│ s3", "▶ acquire /zksim/lock"} {
		if !strings.Contains(text, want) {
			t.Errorf("the report does not say %q:\n%s", want, text)
		}
	}
	if regexp.MustCompile(`…\s*│`).MatchString(text) {
		t.Errorf("a cell of the timeline was cut:\n%s", text)
	}
	r.All = true
	if all := r.String(); !strings.Contains(all, "timeline, every event:") || strings.Count(all, "\n") <= strings.Count(text, "\n") {
		t.Errorf("--all does not show more of the run")
	}
	for _, f := range []string{"report.txt", "timeline.txt", "history.json", "linearizability-1.html"} {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	tl, _ := os.ReadFile(filepath.Join(dir, "timeline.txt"))
	if !strings.Contains(string(tl), "fault: when c2 create#3 applied: lose-reply") {
		t.Errorf("the timeline does not show the lost reply")
	}
	html, _ := os.ReadFile(filepath.Join(dir, "linearizability-1.html"))
	if !strings.Contains(string(html), "<html") {
		t.Errorf("the visualization is not HTML")
	}
	// The history read back judges the same: every violation, in the same
	// words.
	data, _ := os.ReadFile(filepath.Join(dir, "history.json"))
	h, err := scenarios.ParseHistory(data)
	if err != nil {
		t.Fatal(err)
	}
	vs, err := h.Judge()
	if err != nil || len(vs) != len(o.Violations) {
		t.Fatalf("the history read back checks to %v (%v), want %v", vs, err, o.Violations)
	}
	for i := range vs {
		if vs[i].Message != o.Violations[i].Message {
			t.Errorf("violation %d read back: %s\nwant %s", i, vs[i].Message, o.Violations[i].Message)
		}
	}
}

// A timeline's rows are in time order, each in its actor's column, and a
// window keeps the last rows up to a time.
func TestTimelineWindow(t *testing.T) {
	o, err := scenarios.Replay(scenarios.Spec{Kind: "lock", Clients: 2, Workload: workload.Shape{Rounds: 1}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := NewTimeline(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Cols) != 1+2+3 {
		t.Fatalf("columns %v, want world, 2 clients, 3 servers", tl.Cols)
	}
	for i := 1; i < len(tl.Rows); i++ {
		if tl.Rows[i].At < tl.Rows[i-1].At {
			t.Fatalf("row %d at %d after row at %d", i, tl.Rows[i].At, tl.Rows[i-1].At)
		}
	}
	mid := tl.Rows[len(tl.Rows)/2].At
	w := tl.Window(0, mid, 5)
	if len(w.Rows) != 5 || w.Rows[4].At > mid {
		t.Fatalf("window: %d rows, last at %d, want 5 up to %d", len(w.Rows), w.Rows[len(w.Rows)-1].At, mid)
	}
	plain, err := scenarios.Run(scenarios.Spec{Kind: "lock", Clients: 1, Checks: []string{"mutex"}}, 1, scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewTimeline(plain); err == nil {
		t.Fatal("a run without a kept trace made a timeline")
	}
}

// A cell too wide for its column wraps onto the lines below, whole, at a
// space where it can; a long window keeps its first and last rows and says
// how many it leaves out.
func TestTimelineWrapsAndElides(t *testing.T) {
	if got := wrap("reply exists /lock-0: ok version 3", 12); !slices.Equal(got, []string{"reply exists", "/lock-0: ok", "version 3"}) {
		t.Errorf("wrap: %q", got)
	}
	if got := wrap(strings.Repeat("x", 30), 12); strings.Join(got, "") != strings.Repeat("x", 30) || len(got) != 3 {
		t.Errorf("wrap without spaces: %q", got)
	}
	tl := &Timeline{Cols: []string{"world", "c1"}, width: 28}
	for i := range 10 {
		tl.Rows = append(tl.Rows, TimelineRow{At: int64(i), Col: 1, Text: fmt.Sprintf("event %d", i)})
	}
	got := tl.elide(6)
	for _, want := range []string{"event 0", "event 1", "... 4 events left out ...", "event 6", "event 9"} {
		if !strings.Contains(got, want) {
			t.Errorf("elide does not show %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "event 2") || strings.Count(got, "time ") != 1 {
		t.Errorf("elide:\n%s", got)
	}
}

// A stuck run (a deadlock, or no progress: what the checks judged Stuck)
// ends the report with its whole error, what each task waited on a line
// each; any other end with its first line only (a client's failure,
// without its stack).
func TestRunEndSaysAStuckRunInFull(t *testing.T) {
	err := errors.New("deadlock at 1.000000s: no client can run and nothing pending can wake one\n  c1: waiting for a reply")
	for _, stuck := range []bool{true, false} {
		o := &scenarios.Outcome{Input: &models.Input{Stuck: stuck}, Simulation: &scenarios.Simulation{}}
		o.Result.Err = err
		want := err.Error()
		if !stuck {
			want, _, _ = strings.Cut(want, "\n")
		}
		if got := runEnd(o); got != want {
			t.Errorf("stuck %v: the run's end %q, want %q", stuck, got, want)
		}
	}
}
