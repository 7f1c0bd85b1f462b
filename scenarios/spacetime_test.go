package scenarios

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"testing"
)

// The space-time diagram of a counterexample is well-formed SVG with a
// line per client and server, the fault that made it (and a lost reply's
// cross on its client), and the operations the violation involves
// highlighted; run --out and replay --out write it.
func TestSpaceTimeDiagram(t *testing.T) {
	sc, err := LoadScenario("lock-noguid-lost-reply")
	if err != nil {
		t.Fatal(err)
	}
	o, err := Replay(sc.Spec, 1)
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
	sc, err = LoadScenario("stale-read")
	if err != nil {
		t.Fatal(err)
	}
	stale, err := Replay(sc.Spec, 1)
	if err != nil || !stale.Failed() {
		t.Fatalf("%v %v", err, stale.Violations)
	}
	svg, err = SpaceTime(stale)
	if err != nil {
		t.Fatal(err)
	}
	s1 := fmt.Sprintf(`x2="%d"`, laneLeft+(stale.Spec.Clients)*laneGap)
	if strings.Count(svg, `class="span"`) != 2 || !strings.Contains(svg, "s1 ✕ s3 cut") || !strings.Contains(svg, "propose setData k") ||
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
