package scenarios

import (
	"encoding/xml"
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
	dir := t.TempDir()
	r := &ViolationReport{Outcome: o}
	if err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(r.Files, " "), "spacetime.svg") {
		t.Errorf("the report's files: %v", r.Files)
	}
}
