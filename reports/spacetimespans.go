package reports

import (
	"fmt"
	"html"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/trace"
)

// A span is a stretch of rows during which a fault holds: a cut link, an
// isolated server, a disconnected client, a lagging server (it applies
// what the leader commits late: what its readers read is old), a crashed
// server, a paused client. The diagram shades it behind the events.
type span struct {
	lanes    []int // the lines it concerns: two for a cut link, one otherwise
	from, to int   // rows
	label    string
	cut      bool // a fault's, labelled at its end (a line's own spans have their marks)
}

// spans shades every span of the window: a band along each line it
// concerns, and, for a cut link, the label between its two lines.
func (d *diagram) spans() {
	for _, s := range d.findSpans() {
		y1, y2 := y(s.from)-rowGap/2, y(s.to)+rowGap/2
		for _, l := range s.lanes {
			x := laneLeft + l*laneGap
			fmt.Fprintf(&d.b, `<rect class="span" x="%d" y="%d" width="24" height="%d" fill="#e33" fill-opacity="0.12" `+
				`stroke="#e33" stroke-opacity="0.5" stroke-dasharray="3 3"><title>%s</title></rect>`+"\n",
				x-12, y1, y2-y1, html.EscapeString(s.label))
		}
		x1, x2 := laneLeft+s.lanes[0]*laneGap, laneLeft+s.lanes[len(s.lanes)-1]*laneGap
		if len(s.lanes) == 2 {
			fmt.Fprintf(&d.b, `<line class="cut" x1="%d" y1="%d" x2="%d" y2="%d" stroke="#e33" stroke-opacity="0.5" stroke-dasharray="3 3"/>`+"\n",
				min(x1, x2)+12, y1, max(x1, x2)-12, y1)
		}
		// A cut link's label goes between its two lines; a line's own span
		// has its mark ("paused", "crashed") or its fault's line already,
		// and its name on hovering: a label on the line would sit on the
		// marks that follow it.
		if s.cut && len(s.lanes) == 2 {
			fmt.Fprintf(&d.b, `<text x="%d" y="%d" fill="#c33" font-size="10" text-anchor="middle">%s</text>`+"\n",
				(x1+x2)/2, y2+10, html.EscapeString(s.label))
		}
	}
}

// findSpans reads the spans from the rows: a crash to its restart, a
// pause to its resumption (on the line's own records), and a cut, an
// isolation or a disconnect from its fault to its heal (its "for", or the
// heal the trace records), or to the window's end.
func (d *diagram) findSpans() []span {
	var out []span
	last := len(d.rows) - 1
	for i, r := range d.rows {
		switch {
		case r.Kind == trace.KRole && r.Path == "crashed":
			end := d.nextRow(i, func(o trace.Record) bool { return o.Kind == trace.KRole && o.From == r.From && o.Path == "restarted" }, last)
			out = append(out, d.lineSpan(r.From, i, end, "down"))
		case r.Kind == trace.KPause:
			end := d.nextRow(i, func(o trace.Record) bool { return o.Kind == trace.KResume && o.From == r.From }, last)
			out = append(out, d.lineSpan(r.From, i, end, "paused"))
		case r.Kind == trace.KFault:
			if s, ok := d.faultSpan(i, &r); ok {
				out = append(out, s)
			}
		}
	}
	var kept []span
	for _, s := range out {
		if len(s.lanes) > 0 && s.lanes[0] >= 0 && s.lanes[len(s.lanes)-1] >= 0 {
			kept = append(kept, s)
		}
	}
	return kept
}

// faultSpan is the span of the fault row i records, when it cuts links
// between lines the diagram has.
func (d *diagram) faultSpan(i int, r *trace.Record) (span, bool) {
	f, ok := d.fault(r)
	if !ok {
		return span{}, false
	}
	lane := d.laneOf
	var s span
	switch f.Kind {
	case fault.Partition:
		s = span{lanes: []int{lane(f.A), lane(f.B)}, label: f.A.String() + " ✕ " + f.B.String() + " cut"}
	case fault.OneWay:
		s = span{lanes: []int{lane(f.A), lane(f.B)}, label: f.A.String() + " → " + f.B.String() + " lost"}
	case fault.Isolate:
		s = span{lanes: []int{lane(f.A)}, label: "isolated"}
	case fault.Disconnect:
		s = span{lanes: []int{lane(f.A)}, label: "disconnected"}
	case fault.Lag:
		s = span{lanes: []int{lane(f.A)}, label: "lagging"}
	default:
		return span{}, false
	}
	s.from, s.to, s.cut = i, d.healRow(i, *r, f), true
	return s, true
}

// healRow is the row where the fault at row i ends: its "for" after it
// struck, else the first heal the trace records of its first target (or
// of every link), else the window's last row.
func (d *diagram) healRow(i int, r trace.Record, f fault.Fault) int {
	if f.For > 0 {
		return d.rowAt(int64(r.At) + int64(f.For))
	}
	return d.nextRow(i, func(o trace.Record) bool {
		h, ok := d.fault(&o)
		return ok && h.Kind == fault.Heal && (h.A.Kind == fault.NoTarget || h.Names(f.A))
	}, len(d.rows)-1)
}

// lineSpan is a span of actor a's line.
func (d *diagram) lineSpan(a trace.Actor, from, to int, label string) span {
	return span{lanes: []int{d.lane(a)}, from: from, to: to, label: label}
}

// nextRow is the first row after i that match says is the one, or def.
func (d *diagram) nextRow(i int, match func(trace.Record) bool, def int) int {
	for j := i + 1; j < len(d.rows); j++ {
		if match(d.rows[j]) {
			return j
		}
	}
	return def
}

// lane is actor a's line's index (-1 when it has none); laneOf a
// fault target's.
func (d *diagram) lane(a trace.Actor) int {
	if x := d.x(a); x >= 0 {
		return (x - laneLeft) / laneGap
	}
	return -1
}

func (d *diagram) laneOf(t fault.Target) int {
	switch t.Kind {
	case fault.ClientT, fault.ServerT:
		if x := d.laneX(t.String()); x >= 0 {
			return (x - laneLeft) / laneGap
		}
	}
	return -1 // the leader, the applier: which server it was, the fault does not say
}
