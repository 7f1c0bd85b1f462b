package reports

import (
	"fmt"
	"html"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/scenarios"
	"github.com/zksim/zksim/trace"
)

// SpaceTime draws a counterexample as a space-time (Lamport) diagram in
// SVG: a vertical line per client and per server, time running down, a
// row per event of the violation's window (as the timeline's). Requests
// are blue arrows from a client to its server, replies green arrows back
// (red with the error when there is one), watch notifications dashed
// orange arrows; the leader's proposal of a write is a mark on its line
// and a purple arrow goes from it to each follower where it applies it (a
// follower cut off gets none, a lagging one a long one); a fault is a red
// line across the diagram, saying what it was, and a lost reply a red
// cross on the client it never reached; a cut link (a partition, one-way
// loss) is a shaded band between its two lines for as long as it lasts,
// an isolated server, a lagging one or a disconnected client a band
// around its line; a
// crashed server's and a paused client's lines are shaded while they are
// down; a session's expiry is a mark on its line; the operations a
// violation involves are red bars on their clients' lines. A legend at
// its foot explains every kind of mark (spaceTimeLegend). It needs the
// run's kept trace.
func SpaceTime(o *scenarios.Outcome) (string, error) {
	recs := o.World.Trace().Records()
	if len(recs) == 0 {
		return "", fmt.Errorf("the run kept no trace: replay it with its trace kept")
	}
	from, at := violationWindow(o)
	d := newDiagram(o, recs, from, at)
	return d.svg(), nil
}

// SpaceTimeFocus is how far down SpaceTime's diagram of o (in pixels) the
// violation shows: the row of its first violation's moment. A page that
// shows a tall diagram opens it there, not on the sessions' set-up.
func SpaceTimeFocus(o *scenarios.Outcome) int {
	recs := o.World.Trace().Records()
	from, at := violationWindow(o)
	d := newDiagram(o, recs, from, at)
	return y(d.rowAt(violationMoment(o)))
}

// diagram is a space-time diagram being drawn.
type diagram struct {
	o     *scenarios.Outcome
	lanes []string // c1, ..., s1, ...
	rows  []trace.Record
	name  func(trace.Actor) string
	fault func(*trace.Record) (fault.Fault, bool) // the trace's Fault
	b     strings.Builder
	// proposed is the row of each write's proposal, by zxid, and who
	// proposed it: where its replication arrows start.
	proposed map[int64]proposal
	// owner is, by session id, the client whose session it is (from every
	// state change of the run, the window's and those before it).
	owner map[int64]trace.Actor
}

type proposal struct {
	row    int
	leader trace.Actor
}

const (
	laneGap  = 120 // between two lines
	laneLeft = 130 // the first line's x; the times are left of it
	rowGap   = 16  // between two events
	top      = 50  // the first event's y
	// SpaceTimeHead is the height of the strip at the diagram's top that
	// names its lines: a page that scrolls a tall diagram keeps this strip
	// in view, so that the lines stay named at the violation.
	SpaceTimeHead = 30
	maxRows       = 400 // the last rows of a longer window are drawn
)

func newDiagram(o *scenarios.Outcome, recs []trace.Record, from, to int64) *diagram {
	d := &diagram{o: o, name: o.World.Trace().ActorName, fault: o.World.Trace().Fault, proposed: map[int64]proposal{},
		owner: map[int64]trace.Actor{}}
	proposer := map[int64]trace.Actor{}
	for _, r := range recs {
		if r.Kind == trace.KState && r.Sess != 0 {
			d.owner[r.Sess] = r.From
		}
		t := int64(r.At)
		if t < from || t > to {
			continue
		}
		switch r.Kind {
		case trace.KSend, trace.KReply, trace.KNotify, trace.KState, trace.KExpire, trace.KPause, trace.KResume, trace.KRole, trace.KFault,
			trace.KPropose:
			d.rows = append(d.rows, r)
		case trace.KApply:
			if proposer[r.Zxid] != r.From { // the proposer's own apply is no message
				d.rows = append(d.rows, r)
			}
		}
		if r.Kind == trace.KPropose {
			proposer[r.Zxid] = r.From
		}
	}
	d.addMoments()
	if len(d.rows) > maxRows {
		d.rows = d.rows[len(d.rows)-maxRows:]
	}
	d.lanes = d.clientLanes()
	servers := o.Spec.Ensemble.ServerCount()
	for i := 0; i < servers; i++ {
		d.lanes = append(d.lanes, fmt.Sprintf("s%d", i+1))
	}
	return d
}

// clientLanes are the clients with a line: those the window's events or
// the violations concern, so that a run of many clients draws only the
// few its counterexample is about.
func (d *diagram) clientLanes() []string {
	used := map[string]bool{}
	for _, r := range d.rows {
		for _, a := range []trace.Actor{r.From, r.To} {
			used[d.processName(a)] = true
		}
		if f, ok := d.fault(&r); ok {
			for _, t := range []fault.Target{f.A, f.B} {
				used[t.String()] = true
			}
			if f.When != nil {
				used[fmt.Sprintf("c%d", f.When.Client+1)] = true
			}
		}
	}
	for _, v := range d.o.Violations {
		for _, op := range v.Ops {
			used[fmt.Sprintf("c%d", op.Client+1)] = true
		}
	}
	var lanes []string
	for i := 0; i < d.o.Spec.Clients; i++ {
		if name := fmt.Sprintf("c%d", i+1); used[name] {
			lanes = append(lanes, name)
		}
	}
	return lanes
}

// processName is actor a's process's name: a client's other sessions
// ("c1'") are its process's.
func (d *diagram) processName(a trace.Actor) string {
	name := d.name(a)
	if i := strings.IndexByte(name, '\''); i > 0 {
		name = name[:i]
	}
	return name
}

// x is the line of actor a (-1 when it has none).
func (d *diagram) x(a trace.Actor) int { return d.laneX(d.processName(a)) }

// laneX is the x of the line named name (-1 when there is none).
func (d *diagram) laneX(name string) int {
	for i, l := range d.lanes {
		if l == name {
			return laneLeft + i*laneGap
		}
	}
	return -1
}

func y(row int) int { return top + row*rowGap }

func (d *diagram) svg() string {
	width := max(laneLeft+len(d.lanes)*laneGap+260, legendWidth)
	linesEnd := y(len(d.rows)) + 20 // the lines end here, the legend below
	height := linesEnd + 10 + legendHeight()
	fmt.Fprintf(&d.b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n",
		width, height)
	d.b.WriteString(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto">` +
		`<path d="M0,0 L10,5 L0,10 z" fill="context-stroke"/></marker></defs>` + "\n")
	// Every label is haloed in white: an arrow or a line it crosses goes
	// behind it, not through its letters.
	d.b.WriteString(`<style>text { paint-order: stroke; stroke: white; stroke-width: 3px; stroke-linejoin: round; }</style>` + "\n")
	fmt.Fprintf(&d.b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	for i, l := range d.lanes {
		x := laneLeft + i*laneGap
		fmt.Fprintf(&d.b, `<text x="%d" y="20" text-anchor="middle" font-weight="bold">%s</text>`+"\n", x, l)
		fmt.Fprintf(&d.b, `<line class="lane" x1="%d" y1="28" x2="%d" y2="%d" stroke="#999"/>`+"\n", x, x, linesEnd)
	}
	d.spans()
	d.holdings()
	d.violations()
	for i, r := range d.rows {
		if i == 0 || int64(r.At) != int64(d.rows[i-1].At) {
			fmt.Fprintf(&d.b, `<text x="8" y="%d" fill="#555">%s</text>`+"\n", y(i)+4, html.EscapeString(client.FormatTime(int64(r.At))))
		}
		d.event(i, r)
	}
	d.legend(linesEnd + 10)
	d.b.WriteString("</svg>\n")
	return d.b.String()
}

// violations draws the operations each violation involves as red bars on
// their clients' lines, from the row of their call to that of their
// return (or the end).
func (d *diagram) violations() {
	for _, v := range d.o.Violations {
		for _, op := range v.Ops {
			x := d.laneX(fmt.Sprintf("c%d", op.Client+1))
			if x < 0 {
				continue
			}
			y1, y2 := d.rowAt(op.Call), d.rowAt(op.Return)
			fmt.Fprintf(&d.b, `<rect class="violation" x="%d" y="%d" width="8" height="%d" fill="#e33" fill-opacity="0.35">`+
				`<title>%s: %s</title></rect>`+"\n", x-4, y(y1)-4, max(y(y2)-y(y1), 4)+8,
				html.EscapeString(v.Check), html.EscapeString(models.Describe(op)))
		}
	}
}

// rowAt is the first row at or after time t (the last row past the end).
func (d *diagram) rowAt(t int64) int {
	for i, r := range d.rows {
		if int64(r.At) >= t {
			return i
		}
	}
	return max(len(d.rows)-1, 0)
}

// event draws row i's record.
func (d *diagram) event(i int, r trace.Record) {
	from, to := d.x(r.From), d.x(r.To)
	yy := y(i)
	switch r.Kind {
	case trace.KSend:
		d.arrow(from, yy, to, yy+rowGap-4, "#36c", false, trace.ShortOp(r.Op, r.Path), "request")
	case trace.KReply:
		class, color, label := "reply", "#393", ""
		switch {
		case r.Code == trace.CodeNodeExists, r.Code == trace.CodeNoNode && r.Op == client.OpExists:
			// The answers a recipe expects as often as not (its parent
			// is there already; the node it watches is not): no error.
			class, color, label = "reply-expected", "#777", shortCode(r.Code)
		case r.Code != 0:
			class, color, label = "reply-error", "#c33", shortCode(r.Code)
		}
		d.arrow(from, yy, to, yy+rowGap-4, color, false, label, class)
	case trace.KNotify:
		d.arrow(from, yy, to, yy+rowGap-4, "#e80", true, zkEventName(r.Arg), "notification")
	case trace.KState:
		d.mark(from, yy, "state", "#555", shortState(r.Arg))
	case trace.KExpire:
		whose := ""
		if c, ok := d.owner[r.Sess]; ok {
			whose = d.name(c) + "'s "
		}
		d.mark(from, yy, "expire", "#90c", fmt.Sprintf("◆ expires %ssession %#x", whose, r.Sess))
	case trace.KPause:
		d.mark(from, yy, "pause", "#c33", "paused")
	case trace.KResume:
		d.mark(from, yy, "resume", "#555", "▶ resumes")
	case trace.KRole:
		d.mark(from, yy, "role", "#555", firstWord(r.Path))
	case trace.KFault:
		d.faultLine(yy, &r)
	case trace.KPropose:
		d.proposed[r.Zxid] = proposal{i, r.From}
		d.mark(from, yy, "propose", "#96c", "propose "+trace.ShortOp(r.Op, r.Path))
	case trace.KApply:
		if p, ok := d.proposed[r.Zxid]; ok {
			d.arrow(d.x(p.leader), y(p.row), from, yy, "#96c", false, "", "replicate")
		}
	}
}

// arrow draws a message from (x1, y1) to (x2, y2), of class (request,
// reply, reply-expected, reply-error, notification, replicate: a mark of
// the legend), with its label at its start.
func (d *diagram) arrow(x1, y1, x2, y2 int, color string, dashed bool, label, class string) {
	if x1 < 0 || x2 < 0 {
		return
	}
	dash := ""
	if dashed {
		dash = ` stroke-dasharray="4 3"`
	}
	fmt.Fprintf(&d.b, `<line class="%s" x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s"%s marker-end="url(#arrow)"/>`+"\n",
		class, x1, y1, x2, y2, color, dash)
	if label != "" {
		anchor, lx := "start", x1+4
		if x2 < x1 {
			anchor, lx = "end", x1-4
		}
		// Just above the arrow's start, and no higher: the mark of the
		// row before sits a row up.
		fmt.Fprintf(&d.b, `<text x="%d" y="%d" fill="%s" text-anchor="%s">%s</text>`+"\n", lx, y1-1, color, anchor,
			html.EscapeString(label))
	}
}

// mark draws a moment on a line: a dot of class (a mark of the legend)
// and its label.
func (d *diagram) mark(x, yy int, class, color, label string) {
	if x < 0 {
		return
	}
	fmt.Fprintf(&d.b, `<circle class="%s" cx="%d" cy="%d" r="3" fill="%s"/><text x="%d" y="%d" fill="%s">%s</text>`+"\n",
		class, x, yy, color, x+6, yy+3, color, html.EscapeString(label))
}

// faultLine draws a fault as a red line across the diagram with its
// text, and a lost reply or request as a cross on the client it was
// tied to.
func (d *diagram) faultLine(yy int, r *trace.Record) {
	right := laneLeft + (len(d.lanes)-1)*laneGap
	fmt.Fprintf(&d.b, `<line class="fault" x1="%d" y1="%d" x2="%d" y2="%d" stroke="#e33" stroke-dasharray="2 2"/>`+"\n",
		laneLeft-10, yy, right+10, yy)
	fmt.Fprintf(&d.b, `<text x="%d" y="%d" fill="#e33" font-weight="bold">⚡ %s</text>`+"\n", right+16, yy+4, html.EscapeString(r.Path))
	f, ok := d.fault(r)
	if !ok || f.When == nil || f.Kind != fault.LoseReply && f.Kind != fault.LoseRequest {
		return
	}
	if i := slices.Index(d.lanes, fmt.Sprintf("c%d", f.When.Client+1)); i >= 0 {
		x := laneLeft + i*laneGap
		fmt.Fprintf(&d.b, `<text class="lost" x="%d" y="%d" fill="#e33" font-size="16" text-anchor="middle">✕</text>`+"\n", x, yy+6)
	}
}

func shortCode(code int32) string {
	if err := trace.CodeError(code); err != nil {
		return strings.TrimPrefix(err.Error(), "zk: ")
	}
	return fmt.Sprintf("error %d", code)
}

func shortState(s int64) string { return strings.TrimPrefix(zk.State(s).String(), "State") }

func zkEventName(t int64) string { return strings.TrimPrefix(zk.EventType(t).String(), "Event") }

func firstWord(s string) string {
	w, _, _ := strings.Cut(s, ":")
	return w
}
