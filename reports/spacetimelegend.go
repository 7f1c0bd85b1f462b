package reports

import (
	"fmt"
	"html"
	"html/template"
)

// legendEntry is one kind of mark the space-time diagram draws: the class
// every element of that kind carries, a small picture of it (SVG in a box
// swatchWidth by 14 pixels) and what it means. The legend at the foot of
// the diagram (spacetime.svg, as --out writes it) and the caption under
// it in the report's page are both drawn from spaceTimeLegend, so that
// neither explains less than the other.
type legendEntry struct{ mark, says, swatch string }

const (
	swatchWidth = 36
	legendRow   = 18  // between two entries
	legendWidth = 700 // the diagram is at least this wide: the legend's longest line fits
)

// spaceTimeLegend is every kind of mark the diagram draws, in the order
// a reader meets them: the lines, the messages, the marks on a line, the
// faults, the shading, what the recipe did and what the violation
// involves.
var spaceTimeLegend = []legendEntry{
	{"lane", "a client's or a server's line, time running down, the times at the left (c1' is c1's next session)",
		`<line x1="18" y1="0" x2="18" y2="14" stroke="#999"/>`},
	{"request", "a request, from a client to its server, with its operation and node", arrowSwatch("#36c", false)},
	{"reply", "a reply: ok", arrowSwatch("#393", false)},
	{"reply-expected", "a reply a recipe expects as often as not: node already exists, or no node to an exists", arrowSwatch("#777", false)},
	{"reply-error", "a reply with an error, which it names", arrowSwatch("#c33", false)},
	{"notification", "a watch notification, with its event", arrowSwatch("#e80", true)},
	{"propose", "the leader proposes a write", dotSwatch("#96c", 3)},
	{"replicate", "the write reaching a follower that applies it (late when it lags; none when it is cut off)", arrowSwatch("#96c", false)},
	{"state", "a client's session changes state (Connected, Disconnected, HasSession, Expired, …)", dotSwatch("#555", 3)},
	{"role", "a server's role changes (leading, following, crashed, restarted, …)", dotSwatch("#555", 3)},
	{"expire", "◆ a server expires a session, and whose it was", dotSwatch("#90c", 3)},
	{"pause", "a process is paused, a client's or a server's (its line shaded until it resumes)", dotSwatch("#c33", 3)},
	{"resume", "▶ the paused process resumes", dotSwatch("#555", 3)},
	{"fault", "⚡ a fault strikes: a red line across the diagram, what it was at its right", `<line x1="0" y1="7" x2="36" y2="7" stroke="#e33" stroke-dasharray="2 2"/>`},
	{"lost", "✕ the reply (or request) a fault took, on its client's line", `<path d="M14,3 L22,11 M22,3 L14,11" stroke="#e33" stroke-width="2"/>`},
	{"span", "shaded while it lasts: a server down, isolated or lagging, a client paused or disconnected", bandSwatch(0)},
	{"cut", "a cut link (partition, one-way loss): both its lines shaded, joined at the top, labelled below", bandSwatch(1) + bandSwatch(2) +
		`<line x1="12" y1="1" x2="24" y2="1" stroke="#e33" stroke-opacity="0.5" stroke-dasharray="3 3"/>`},
	{"hold", "the client holds the lock, the leadership or the lease, from its grant to its release", `<rect x="10" y="1" width="16" height="12" fill="#3a3" fill-opacity="0.18" stroke="#3a3" stroke-opacity="0.6"/>`},
	{"use", "it uses the resource the lock protects", dotSwatch("#3a3", 4)},
	{"use-refused", "the resource refused a use (a stale token), labelled so", dotSwatch("#c33", 4)},
	{"violation", "an operation the violation involves, from its call to its return", `<rect x="14" y="1" width="8" height="12" fill="#e33" fill-opacity="0.35"/>`},
}

// arrowSwatch is a message's arrow, left to right: its head drawn, not a
// marker, so that the picture stands alone in a page.
func arrowSwatch(color string, dashed bool) string {
	dash := ""
	if dashed {
		dash = ` stroke-dasharray="4 3"`
	}
	return fmt.Sprintf(`<line x1="2" y1="7" x2="30" y2="7" stroke="%s"%s/><path d="M29,3 L35,7 L29,11 z" fill="%s"/>`, color, dash, color)
}

// dotSwatch is a mark on a line: a dot of radius r.
func dotSwatch(color string, r int) string {
	return fmt.Sprintf(`<circle cx="18" cy="7" r="%d" fill="%s"/>`, r, color)
}

// bandSwatch is a shaded band: alone in the middle (0), or the left (1)
// or right (2) one of two.
func bandSwatch(at int) string {
	x, w := []int{6, 0, 24}[at], []int{24, 12, 12}[at]
	return fmt.Sprintf(`<rect x="%d" y="1" width="%d" height="12" fill="#e33" fill-opacity="0.12" stroke="#e33" stroke-opacity="0.5" stroke-dasharray="3 3"/>`, x, w)
}

// legendHeight is the height of the legend at the diagram's foot.
func legendHeight() int { return 24 + len(spaceTimeLegend)*legendRow }

// legend draws the legend from y top down, at the left: a heading, then
// each kind of mark, its picture and what it means (the group's data-mark
// names it). Its words are placed where they are drawn, never moved by a
// transform: a text's box, as a page measures it, is where it shows.
func (d *diagram) legend(top int) {
	const left = 8
	d.b.WriteString(`<g class="legend">` + "\n")
	fmt.Fprintf(&d.b, `<text x="%d" y="%d" font-weight="bold">How to read it</text>`+"\n", left, top+12)
	for i, e := range spaceTimeLegend {
		at := top + 20 + i*legendRow
		fmt.Fprintf(&d.b, `<g data-mark="%s"><g transform="translate(%d,%d)">%s</g><text x="%d" y="%d">%s</text></g>`+"\n",
			e.mark, left, at, e.swatch, left+swatchWidth+8, at+11, html.EscapeString(e.says))
	}
	d.b.WriteString("</g>\n")
}

// SpaceTimeLegend is the legend for a page that shows the diagram: each
// kind of mark with its picture (inline SVG) and what it means, the same
// as the diagram's own.
func SpaceTimeLegend() []LegendItem {
	out := make([]LegendItem, len(spaceTimeLegend))
	for i, e := range spaceTimeLegend {
		out[i] = LegendItem{Mark: e.mark, Says: e.says, Picture: template.HTML(fmt.Sprintf(
			`<svg class="swatch" width="%d" height="14" viewBox="0 0 %d 14" aria-hidden="true">%s</svg>`, swatchWidth, swatchWidth, e.swatch))}
	}
	return out
}

// LegendItem is one entry of SpaceTimeLegend.
type LegendItem struct {
	Mark, Says string
	Picture    template.HTML
}
