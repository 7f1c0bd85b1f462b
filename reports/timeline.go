package reports

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/scenarios"
	"github.com/zksim/zksim/trace"
)

// Timeline renders a run as a table a person reads down: a row per event,
// a column per actor (the world's faults, each client, each server). A
// client's column shows the operations the workload recorded (called, and
// what they returned), what it sent, its session's changes and pauses; a
// server's shows what it applied, replied and notified, and its role. A
// lost reply shows as the fault that took it and the client's
// disconnection.
//
// It needs the run's kept trace (Options.KeepTrace, or Replay).
type Timeline struct {
	Rows  []TimelineRow
	Cols  []string // "world", "c1", ..., "s1", ...
	width int      // of an actor's column; the world's is wider
}

// worldWidth is the width of the world's column: faults read whole.
const worldWidth = 44

// TimelineRow is one event: its virtual time (ns since the start), its
// column and what happened.
type TimelineRow struct {
	At   int64
	Col  int
	Text string
}

// shown are the trace records a timeline shows.
var shown = map[trace.Kind]bool{
	trace.KSend: true, trace.KApply: true, trace.KReply: true, trace.KNotify: true, trace.KState: true,
	trace.KExpire: true, trace.KPause: true, trace.KResume: true, trace.KTimeout: true, trace.KRole: true,
	trace.KFault: true, trace.KNote: true, trace.KExit: true,
}

// NewTimeline builds the timeline of o.
func NewTimeline(o *scenarios.Outcome) (*Timeline, error) {
	tr := o.World.Trace()
	if len(tr.Records()) == 0 {
		return nil, fmt.Errorf("the run kept no trace: replay it with its trace kept")
	}
	t := &Timeline{Cols: timelineColumns(o), width: 28}
	col := func(a trace.Actor) int {
		switch {
		case a == trace.WorldActor:
			return 0
		case a >= trace.ServerActor(0):
			return 1 + o.Spec.Clients + int(a-trace.ServerActor(0))
		default:
			return int(a)
		}
	}
	ops := opEvents(o.Input.Ops)
	recs := tr.Records()
	i, j := 0, 0
	for i < len(recs) || j < len(ops) {
		// Calls at time T come before T's records, returns after.
		takeOp := j < len(ops) && (i >= len(recs) || ops[j].at < int64(recs[i].At) ||
			(ops[j].at == int64(recs[i].At) && !ops[j].ret))
		if takeOp {
			e := ops[j]
			t.Rows = append(t.Rows, TimelineRow{At: e.at, Col: e.col, Text: e.text})
			j++
			continue
		}
		r := &recs[i]
		i++
		if !shown[r.Kind] {
			continue
		}
		t.Rows = append(t.Rows, TimelineRow{At: int64(r.At), Col: col(r.From), Text: rowText(tr, r)})
	}
	return t, nil
}

// rowText is what a record says in a timeline's row or a step: its short
// form (trace.Trace.Short), a message's with where it went.
func rowText(tr *trace.Trace, r *trace.Record) string {
	switch r.Kind {
	case trace.KSend, trace.KReply, trace.KNotify:
		return "→" + tr.ActorName(r.To) + " " + tr.Short(r)
	}
	return tr.Short(r)
}

// timelineColumns are the world's column, then a client's each, then a
// server's each.
func timelineColumns(o *scenarios.Outcome) []string {
	servers := o.Spec.Ensemble.ServerCount()
	cols := []string{"world"}
	for i := 0; i < o.Spec.Clients; i++ {
		cols = append(cols, fmt.Sprintf("c%d", i+1))
	}
	for i := 0; i < servers; i++ {
		cols = append(cols, fmt.Sprintf("s%d", i+1))
	}
	return cols
}

// opEvent is a workload operation's call or return, in its client's
// column of a timeline.
type opEvent struct {
	at   int64
	ret  bool
	text string
	col  int
}

// opEvents are the workload's operations as timeline events, each call
// and each return in its client's column, in time order; at one instant
// calls come before returns (a call before the messages of its instant,
// a return after them).
func opEvents(ops []models.Operation) []opEvent {
	var out []opEvent
	for _, op := range ops {
		c := 1 + op.Client
		if op.Call == op.Return {
			// An instant (a use) sorts as a call: among the calls of its
			// instant, in the order the history recorded them.
			out = append(out, opEvent{op.Call, false, "▶ " + models.Describe(op), c})
			continue
		}
		out = append(out, opEvent{op.Call, false, "▶ " + callText(op), c})
		if op.Result != models.Pending && op.Result != models.Unknown {
			out = append(out, opEvent{op.Return, true, "◀ " + models.Describe(op), c})
		} else if op.Result == models.Unknown {
			// Drawn where the call returned to its caller (its Return is
			// the end of time); at its call in a history that did not keep it.
			out = append(out, opEvent{cmp.Or(op.Ended, op.Call), true, "◀ " + string(op.Kind) + " failed: outcome unknown", c})
		}
	}
	slices.SortStableFunc(out, func(a, b opEvent) int {
		if a.at != b.at {
			return int(a.at - b.at)
		}
		if a.ret != b.ret {
			if a.ret {
				return 1
			}
			return -1
		}
		return 0
	})
	return out
}

func callText(op models.Operation) string {
	s := string(op.Kind) + " " + op.Path
	if op.Shared {
		s += " (shared)"
	}
	if op.Data != "" && op.Kind != models.Propose {
		s += fmt.Sprintf(" %q", op.Data)
	}
	return s
}

// Window keeps the rows from time from to time to (inclusive), at most
// the last n of them (n <= 0: all).
func (t *Timeline) Window(from, to int64, n int) *Timeline {
	out := &Timeline{Cols: t.Cols, width: t.width}
	for _, r := range t.Rows {
		if r.At >= from && r.At <= to {
			out.Rows = append(out.Rows, r)
		}
	}
	if n > 0 && len(out.Rows) > n {
		out.Rows = out.Rows[len(out.Rows)-n:]
	}
	return out
}

// elide renders the table with at most n rows: the first third and the
// last two thirds of them, and a line saying how many are left out.
func (t *Timeline) elide(n int) string {
	if len(t.Rows) <= n {
		return t.String()
	}
	head, tail := n/3, n-n/3
	first := &Timeline{Cols: t.Cols, width: t.width, Rows: t.Rows[:head]}
	last := &Timeline{Cols: t.Cols, width: t.width, Rows: t.Rows[len(t.Rows)-tail:]}
	lines := strings.SplitN(last.String(), "\n", 2) // without its header
	return first.String() + fmt.Sprintf("... %d events left out ...\n", len(t.Rows)-head-tail) + lines[1]
}

// String renders the table: a header, then a row per event. Text too
// wide for its column wraps onto the lines below, whole: nothing is cut.
func (t *Timeline) String() string {
	var b strings.Builder
	line := func(s string) { b.WriteString(strings.TrimRight(s, " ") + "\n") }
	widthOf := func(c int) int {
		if c == 0 {
			return worldWidth
		}
		return t.width
	}
	pad := func(c int, s string) string {
		return s + strings.Repeat(" ", max(widthOf(c)-len([]rune(s)), 0))
	}
	head := fmt.Sprintf("%-12s", "time")
	for c, name := range t.Cols {
		head += "│ " + pad(c, name)
	}
	line(head)
	for _, r := range t.Rows {
		for i, part := range wrap(r.Text, widthOf(r.Col)) {
			at := ""
			if i == 0 {
				at = client.FormatTime(r.At)
			}
			row := fmt.Sprintf("%-12s", at)
			for c := range t.Cols {
				text := ""
				if c == r.Col {
					text = part
				}
				row += "│ " + pad(c, text)
			}
			line(row)
		}
	}
	return b.String()
}

// wrap cuts s into lines of at most w runes, at spaces where it can.
func wrap(s string, w int) []string {
	r := []rune(s)
	var out []string
	for len(r) > w {
		cut := w
		for i := w; i > w/2; i-- {
			if r[i] == ' ' {
				cut = i
				break
			}
		}
		out = append(out, string(r[:cut]))
		r = []rune(strings.TrimLeft(string(r[cut:]), " "))
	}
	return append(out, string(r))
}
