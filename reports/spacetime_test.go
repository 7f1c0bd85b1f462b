package reports

import (
	"context"
	"encoding/xml"
	"fmt"
	"html"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/scenarios"
	"github.com/zksim/zksim/search"
	"github.com/zksim/zksim/trace"
)

// The space-time diagram of a counterexample is well-formed SVG with a
// line per client and server, the fault that made it (and a lost reply's
// cross on its client), and the operations the violation involves
// highlighted; run --out and replay --out write it.
func TestSpaceTimeDiagram(t *testing.T) {
	sc, err := scenarios.LoadScenario("lock-noguid-lost-reply")
	if err != nil {
		t.Fatal(err)
	}
	o, err := scenarios.Replay(sc.Spec, 1)
	if err != nil || !o.Failed() {
		t.Fatalf("%v %v", err, o.Violations)
	}
	svg, err := SpaceTime(o)
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(strings.NewReader(svg))
	for {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("not well-formed SVG: %v", err)
		}
	}
	for _, want := range []string{">c1</text>", ">c3</text>", ">s1</text>", ">s3</text>", `class="fault"`,
		"when c1 create#3 applied: lose-reply", `class="lost"`, `class="violation"`, "marker-end"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the diagram has no %q", want)
		}
	}
	// The stale read's diagram: the cut link s1–s3 shaded on both lines
	// for as long as it lasts, the leader's proposals with their arrows
	// to the followers that apply them, and none to s1, cut off.
	sc, err = scenarios.LoadScenario("stale-read")
	if err != nil {
		t.Fatal(err)
	}
	stale, err := scenarios.Replay(sc.Spec, 1)
	if err != nil || !stale.Failed() {
		t.Fatalf("%v %v", err, stale.Violations)
	}
	svg, err = SpaceTime(stale)
	if err != nil {
		t.Fatal(err)
	}
	s1 := fmt.Sprintf(`x2="%d"`, laneLeft+(stale.Spec.Clients)*laneGap)
	if strings.Count(svg, `class="span"`) != 2 || !strings.Contains(svg, "s1 ✕ s3 cut") || !strings.Contains(svg, "propose setData /k") ||
		!strings.Contains(svg, `class="replicate"`) {
		t.Errorf("the stale read's diagram has no cut link s1–s3 or no replication:\n%s", svg)
	}
	for _, line := range strings.Split(svg, "\n") {
		if strings.Contains(line, `class="replicate"`) && strings.Contains(line, s1) {
			t.Errorf("a write reached s1 across the cut: %s", line)
		}
	}
	dir := t.TempDir()
	r := &ViolationReport{Outcome: o}
	if err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(r.Files, " "), "spacetime.svg") {
		t.Errorf("the report's files: %v", r.Files)
	}
}

// Every teaching variant's diagram shows the faults that made its
// counterexample: each of its scenario's own faults that struck before the
// violation is drawn (random ones, incidental, may fall before the rows
// the diagram keeps).
func TestSpaceTimeShowsTheFaults(t *testing.T) {
	lib, err := scenarios.Library()
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range lib {
		if sc.Expect.Pass {
			continue
		}
		res, err := search.Sweep{Spec: sc.Spec, Seeds: max(sc.Seeds, 1), StopAtFirst: true}.Run(context.Background())
		if err != nil || len(res.Failures) == 0 {
			t.Errorf("%s: no counterexample (%v)", sc.Name, err)
			continue
		}
		o, err := scenarios.Replay(sc.Spec, res.Failures[0].Seed)
		if err != nil {
			t.Fatal(err)
		}
		svg, err := SpaceTime(o)
		if err != nil {
			t.Fatal(err)
		}
		at := o.Input.End
		for _, v := range o.Violations {
			if v.At != 0 {
				at = min(at, v.At)
			}
		}
		own := map[string]bool{}
		for _, f := range sc.Spec.Faults {
			own[f.String()] = true
		}
		for r := range o.World.Trace().All() {
			if r.Kind == trace.KFault && int64(r.At) <= at && own[r.Path] && !strings.Contains(svg, html.EscapeString(r.Path)) {
				t.Errorf("%s seed %d: the diagram does not show %q (struck at %s)", sc.Name, o.Seed, r.Path, client.FormatTime(int64(r.At)))
			}
		}
	}
}

// A cut healed by a heal of the schedule ends at that heal's row, not at
// the end of the window.
func TestSpaceTimeCutEndsAtItsHeal(t *testing.T) {
	sc, err := scenarios.LoadScenario("stale-read")
	if err != nil {
		t.Fatal(err)
	}
	spec := sc.Spec
	spec.Faults = fault.MustParseSchedule("at 500ms partition s1 s3\nat 1500ms heal s1 s3")
	o, err := scenarios.Replay(spec, 1)
	if err != nil {
		t.Fatal(err)
	}
	tr := o.World.Trace()
	d := newDiagram(o, tr.Records(), 0, o.Input.End)
	heal := slices.IndexFunc(d.rows, func(r trace.Record) bool { return r.Kind == trace.KFault && strings.Contains(r.Path, "heal") })
	var cuts []span
	for _, s := range d.findSpans() {
		if s.cut {
			cuts = append(cuts, s)
		}
	}
	if heal < 0 || len(cuts) != 1 || cuts[0].to != heal {
		t.Fatalf("the heal at row %d (of %d); the cuts %+v: want one, ending there", heal, len(d.rows), cuts)
	}
}

// A reply a recipe expects as often as not (NodeExists to a parent's
// create) is drawn in a neutral grey, not as an error; an expiry names
// the client whose session it ends.
func TestSpaceTimeNeutralRepliesAndExpiries(t *testing.T) {
	o := firstCounterexample(t, "election-trusts-deletion-expire")
	svg, err := SpaceTime(o)
	if err != nil {
		t.Fatal(err)
	}
	expiry := regexp.MustCompile(`◆ expires c\d+&#39;s session 0x`)
	if strings.Contains(svg, "◆ expires") && !expiry.MatchString(svg) {
		t.Errorf("an expiry does not name whose session it ends")
	}
	if !strings.Contains(svg, "◆ expires") {
		t.Errorf("the diagram of a session expiry shows none")
	}
	exists := regexp.MustCompile(`stroke="([^"]+)"[^>]*/>\s*<text[^>]*>node already exists`)
	found := exists.FindAllStringSubmatch(svg, -1)
	if len(found) == 0 {
		t.Fatalf("no NodeExists reply in the diagram to look at")
	}
	for _, m := range found {
		if m[1] != "#777" {
			t.Errorf("a NodeExists reply drawn in %s, not the neutral grey", m[1])
		}
	}
}

// A lag is shaded on the lagging server's line for as long as it lasts.
func TestSpaceTimeShadesALag(t *testing.T) {
	o := firstCounterexample(t, "barrier-no-sync-lag")
	svg, err := SpaceTime(o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(svg, `<rect class="span"`) || !strings.Contains(svg, "<title>lagging</title>") {
		t.Errorf("the lag of barrier-no-sync-lag is not shaded on its server's line")
	}
}

// Two clients that hold a lock at once (the unfenced holder paused past
// its session) show as two holding bands side by side on their lines,
// overlapping in time, with their uses of the resource marked.
func TestSpaceTimeShowsOverlappingHolds(t *testing.T) {
	sc, err := scenarios.LoadScenario("lock-unfenced-pause")
	if err != nil {
		t.Fatal(err)
	}
	o, err := scenarios.Replay(sc.Spec, 1)
	if err != nil || !o.Failed() {
		t.Fatalf("lock-unfenced-pause seed 1: %v %v", err, o.Violations)
	}
	svg, err := SpaceTime(o)
	if err != nil {
		t.Fatal(err)
	}
	type band struct{ x, y1, y2 int }
	var holds []band
	for _, m := range regexp.MustCompile(`<rect class="hold" x="(\d+)" y="(-?\d+)" width="\d+" height="(\d+)"`).FindAllStringSubmatch(svg, -1) {
		x, _ := strconv.Atoi(m[1])
		y, _ := strconv.Atoi(m[2])
		h, _ := strconv.Atoi(m[3])
		holds = append(holds, band{x, y, y + h})
	}
	overlap := false
	for i, a := range holds {
		for _, b := range holds[i+1:] {
			overlap = overlap || a.x != b.x && a.y1 < b.y2 && b.y1 < a.y2
		}
	}
	if !overlap || !strings.Contains(svg, `class="use"`) {
		t.Errorf("the two holders are not drawn holding at once (%d holding bands: %v), or no use is marked", len(holds), holds)
	}
}

// A holding that begins between two messages begins at its own time, not
// at the next message's: in lock-adopts-old-node-outage c2 is granted the
// lock at about 28s and the next message is at 60s; its band starts on a
// row of its own, labelled with its grant's time (the violation's moment).
func TestSpaceTimeHoldStartsAtItsGrant(t *testing.T) {
	o := firstCounterexample(t, "lock-adopts-old-node-outage")
	if len(o.Violations) == 0 || o.Violations[0].At == 0 {
		t.Fatalf("violations %v", o.Violations)
	}
	svg, err := SpaceTime(o)
	if err != nil {
		t.Fatal(err)
	}
	at := client.FormatTime(o.Violations[0].At)
	m := regexp.MustCompile(`<text x="8" y="(\d+)" fill="#555">` + regexp.QuoteMeta(at) + `</text>`).FindStringSubmatch(svg)
	if m == nil {
		t.Fatalf("no row is labelled %s, the second holder's grant", at)
	}
	labelY, _ := strconv.Atoi(m[1])
	if !strings.Contains(svg, fmt.Sprintf(`y="%d" width="16"`, labelY-4-rowGap/2)) {
		t.Errorf("no holding band starts on the row of %s (y %d)", at, labelY-4)
	}
}

// firstCounterexample is the built-in scenario name's first failing seed,
// replayed with its trace.
func firstCounterexample(t *testing.T, name string) *scenarios.Outcome {
	t.Helper()
	sc, err := scenarios.LoadScenario(name)
	if err != nil {
		t.Fatal(err)
	}
	res, err := search.Sweep{Spec: sc.Spec, Seeds: max(sc.Seeds, 1), StopAtFirst: true}.Run(context.Background())
	if err != nil || len(res.Failures) == 0 {
		t.Fatalf("%s: no counterexample (%v)", name, err)
	}
	o, err := scenarios.Replay(sc.Spec, res.Failures[0].Seed)
	if err != nil {
		t.Fatal(err)
	}
	return o
}
