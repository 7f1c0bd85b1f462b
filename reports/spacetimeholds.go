package reports

import (
	"cmp"
	"fmt"
	"html"
	"slices"

	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/trace"
)

// holdings draws what the recipe did, as the history recorded it, beside
// the messages that did it: each holding of a lock, a leadership or a
// lease (from its acquire's return to its release's call, or the window's
// end) as a green band along its client's line, and each use of the
// resource it protects as a mark on it, accepted or refused. Two clients
// that hold at once show as two bands side by side: the mutual exclusion
// a mutex violation says was broken, in plain sight.
func (d *diagram) holdings() {
	ops := d.o.Input.Ops
	for i, op := range ops {
		if op.Kind != models.Acquire || op.Result != models.OK {
			continue
		}
		x := d.laneX(fmt.Sprintf("c%d", op.Client+1))
		if x < 0 {
			continue
		}
		end := d.o.Input.End
		for _, next := range ops[i+1:] {
			if next.Client == op.Client && next.Path == op.Path && (next.Kind == models.Release || next.Kind == models.Acquire) {
				end = next.Call
				break
			}
		}
		from, to := d.rowAt(op.Return), d.rowAt(end)
		if len(d.rows) == 0 || end < int64(d.rows[0].At) {
			continue // over before the window
		}
		what := "holds " + op.Path
		if op.Shared {
			what = "reads under " + op.Path
		}
		fmt.Fprintf(&d.b, `<rect class="hold" x="%d" y="%d" width="16" height="%d" fill="#3a3" fill-opacity="0.18" stroke="#3a3" stroke-opacity="0.6">`+
			`<title>c%d %s (token %d)</title></rect>`+"\n", x-8, y(from)-rowGap/2, max(y(to)-y(from), rowGap/2)+rowGap/2,
			op.Client+1, html.EscapeString(what), op.Token)
	}
	// A use is a dot on its client's line (what it was, on hovering); a
	// refused one says so. One mark a row and line: uses between two
	// events share a row.
	marked := map[[2]int]bool{}
	for _, op := range ops {
		if op.Kind != models.Use || len(d.rows) == 0 || op.Call < int64(d.rows[0].At) {
			continue
		}
		x := d.laneX(fmt.Sprintf("c%d", op.Client+1))
		row := d.rowAt(op.Call)
		if x < 0 || marked[[2]int{x, row}] {
			continue
		}
		marked[[2]int{x, row}] = true
		class, color := "use", "#3a3"
		if op.Result == models.Rejected {
			class, color = "use-refused", "#c33"
		}
		yy := y(row)
		fmt.Fprintf(&d.b, `<circle class="%s" cx="%d" cy="%d" r="4" fill="%s"><title>c%d %s</title></circle>`+"\n",
			class, x, yy, color, op.Client+1, html.EscapeString(models.Describe(op)))
		if op.Result == models.Rejected {
			fmt.Fprintf(&d.b, `<text x="%d" y="%d" fill="%s" font-size="9" text-anchor="end">use refused</text>`+"\n", x-8, yy+3, color)
		}
	}
}

// momentRow is the kind of a row that records no message: a moment of the
// recipe (a holding begins or ends, the resource is used) at which no
// message was sent.
const momentRow trace.Kind = 0

// addMoments gives each moment of the recipe inside the drawn rows a row
// at its own time, when no message has one there: a holding that began
// between two messages starts at its time, not at the next message's,
// which may come much later (a client that holds at 28s and uses the
// resource at 48s, the next message at 60s, must not look as if it held
// from 60s).
func (d *diagram) addMoments() {
	if len(d.rows) == 0 {
		return
	}
	first, last := int64(d.rows[0].At), int64(d.rows[len(d.rows)-1].At)
	at := map[int64]bool{}
	for _, r := range d.rows {
		at[int64(r.At)] = true
	}
	var moments []trace.Record
	for _, op := range d.o.Input.Ops {
		var t int64
		switch {
		case op.Kind == models.Acquire && op.Result == models.OK:
			t = op.Return
		case op.Kind == models.Release, op.Kind == models.Use:
			t = op.Call
		default:
			continue
		}
		if t > first && t < last && !at[t] {
			at[t] = true
			moments = append(moments, trace.Record{At: trace.Time(t), Kind: momentRow, From: trace.ClientActor(op.Client)})
		}
	}
	if len(moments) == 0 {
		return
	}
	d.rows = append(d.rows, moments...)
	slices.SortStableFunc(d.rows, func(a, b trace.Record) int { return cmp.Compare(a.At, b.At) })
}
