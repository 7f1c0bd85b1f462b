package reports

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/scenarios"
	"github.com/zksim/zksim/trace"
)

// ViolationReport is what a person needs to understand a failing run and
// replay it: the seed, each violation (check, kind, what), the fault
// schedule, the end of the timeline up to the first violation, and the
// files written beside it.
type ViolationReport struct {
	Outcome *scenarios.Outcome
	// Files written by Write: the full timeline, the history as JSON, and
	// porcupine's visualization of each failed linearizability check.
	Files []string
	// All shows every event of the run in the timeline, not only the
	// window of the violation (causeWindow).
	All bool
	// Every says how the reader sees every event of the run, in the words
	// of the tool they ran (default: zksim's "--all"; a go test's flag
	// from zksimtest).
	Every string
}

// maxWindowRows bounds the timeline a report prints: a longer window keeps
// its first and last rows, saying how many it leaves out (timeline.txt,
// and --all, have them all).
const maxWindowRows = 300

// String renders the report as text.
func (r *ViolationReport) String() string { return r.render(func(f string) string { return f }) }

// render is the report's text, each file it wrote named by fileName.
func (r *ViolationReport) render(fileName func(file string) string) string {
	o := r.Outcome
	var b strings.Builder
	name := o.Spec.Name
	if name == "" {
		name = o.Spec.Kind
		if o.Spec.Variant != "" {
			name = o.Spec.Variant
		}
	}
	fmt.Fprintf(&b, "VIOLATION in %s, seed %d (trace hash %s)\n", name, o.Seed, scenarios.HashString(o.Result.Hash))
	for _, v := range o.Violations {
		fmt.Fprintf(&b, "  %s\n", v)
	}
	b.WriteString("faults:\n")
	if len(o.Schedule) == 0 {
		b.WriteString("  (none)\n")
	}
	for _, f := range o.Schedule {
		fmt.Fprintf(&b, "  %s\n", f)
	}
	if o.Result.Err != nil {
		fmt.Fprintf(&b, "run ended: %s\n", runEnd(o))
	}
	if t, err := NewTimeline(o); err == nil {
		from, at := violationWindow(o)
		if r.All {
			fmt.Fprintf(&b, "timeline, every event:\n%s", t)
		} else {
			w := t.Window(from, at, 0)
			every := cmp.Or(r.Every, "--all for every event of the run")
			fmt.Fprintf(&b, "timeline from %s to %s, the operations involved (%d events; %s):\n",
				client.FormatTime(from), client.FormatTime(at), len(w.Rows), every)
			b.WriteString(w.elide(maxWindowRows))
		}
	}
	for _, f := range r.Files {
		fmt.Fprintf(&b, "wrote %s\n", fileName(f))
	}
	return b.String()
}

// violationWindow is the stretch of o's run that shows its violation: from
// causeWindow to the moment the violation shows, or later, to the return
// of the last operation the checks named (the second holder of a lock, the
// stale use, the write a read missed), not later than the run's end.
func violationWindow(o *scenarios.Outcome) (from, to int64) {
	end := o.Input.End
	at := violationMoment(o)
	from, to = causeWindow(o, at), at
	for _, v := range o.Violations {
		for _, op := range v.Ops {
			to = max(to, min(op.Return, end))
		}
	}
	return from, to
}

// violationMoment is when o's violation shows: its first violation's
// moment, or the run's end when none says. The space-time diagram opens
// on it (SpaceTimeFocus), and the step-through on the first step at or
// after it (Step.Violation).
func violationMoment(o *scenarios.Outcome) int64 {
	at := o.Input.End
	for _, v := range o.Violations {
		if v.At != 0 && v.At < at {
			at = v.At
		}
	}
	return at
}

// causeWindow is where the timeline of o's violation (at time at)
// starts: at the first call of the operations it involves, or at the
// first fault that struck if that came earlier (the cause lies among
// them), or at the start.
func causeWindow(o *scenarios.Outcome, at int64) int64 {
	from := at
	for _, v := range o.Violations {
		for _, op := range v.Ops {
			from = min(from, op.Call)
		}
	}
	if o.World != nil {
		for r := range o.World.Trace().All() {
			if r.Kind == trace.KFault {
				from = min(from, int64(r.At))
				break
			}
		}
	}
	if from == at {
		return 0
	}
	return max(from, 0)
}

// runEnd is how a report says o's simulated run ended: a stuck run (a
// deadlock, or a run ended for lack of progress: what the checks judged
// as Stuck) by its whole error, with what each task waited on, a line
// each; any other end by its first line (a client's failure, without its
// stack).
func runEnd(o *scenarios.Outcome) string {
	if o.Input != nil && o.Input.Stuck {
		return o.Result.Err.Error()
	}
	return firstLine(o.Result.Err.Error())
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

// Write writes the report's files into dir (created if missing): the
// report itself (report.txt), the full timeline (timeline.txt), the
// space-time diagram of the violation's window (spacetime.svg), the
// history (history.json, which `zksim check` reads), and a porcupine
// visualization per failed linearizability check (linearizability-N.html).
// It needs the run's kept trace for the timeline.
func (r *ViolationReport) Write(dir string) error {
	o := r.Outcome
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	write := func(name string, fn func(f *os.File) error) error {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		if err := fn(f); err != nil {
			f.Close()
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := f.Close(); err != nil {
			return err
		}
		r.Files = append(r.Files, path)
		return nil
	}
	if t, err := NewTimeline(o); err == nil {
		if err := write("timeline.txt", func(f *os.File) error {
			_, err := f.WriteString(t.String())
			return err
		}); err != nil {
			return err
		}
	}
	if svg, err := SpaceTime(o); err == nil {
		if err := write("spacetime.svg", func(f *os.File) error {
			_, err := f.WriteString(svg)
			return err
		}); err != nil {
			return err
		}
	}
	if err := write("history.json", func(f *os.File) error {
		enc := json.NewEncoder(f)
		enc.SetIndent("", "  ")
		return enc.Encode(o.History)
	}); err != nil {
		return err
	}
	n := 0
	for _, v := range o.Violations {
		if v.Linearization == nil {
			continue
		}
		n++
		if err := write(fmt.Sprintf("linearizability-%d.html", n), func(f *os.File) error {
			return v.Linearization.Visualize(f)
		}); err != nil {
			return err
		}
	}
	// The report in dir names the files beside it by their names alone:
	// dir may be a scratch directory, renamed once the report is whole.
	return write("report.txt", func(f *os.File) error {
		_, err := f.WriteString(r.render(filepath.Base))
		return err
	})
}
