package reports

import (
	"encoding/xml"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/zksim/zksim/scenarios"
)

// spaceTimeMarks is every kind of mark the space-time diagram draws, by
// the class its elements carry.
var spaceTimeMarks = []string{
	"lane",                                                              // a process's line
	"request", "reply", "reply-expected", "reply-error", "notification", // messages
	"propose", "replicate", // the leader's proposals reaching the followers
	"state", "role", "expire", "pause", "resume", // marks on a line
	"fault", "lost", // faults
	"span", "cut", // shading while a fault lasts
	"hold", "use", "use-refused", // what the recipe did
	"violation", // what the violation involves
}

// Every kind of mark the space-time diagram draws is explained where the
// diagram is shown: in the legend at its foot (spacetime.svg, as --out
// writes it) and in the caption under it in the report's page, in the
// same words. Over the diagrams of every built-in scenario's first seed,
// every line, dot, band and marked text is of one of these kinds, and
// every kind is drawn by some: a new kind of mark fails here until it is
// listed and explained.
func TestSpaceTimeLegendExplainsEveryMark(t *testing.T) {
	lib, err := scenarios.Library()
	if err != nil {
		t.Fatal(err)
	}
	drawn := map[string]bool{}
	var legend map[string]string
	for _, sc := range lib {
		o, err := scenarios.Replay(sc.Spec, 1)
		if err != nil {
			t.Fatal(err)
		}
		svg, err := SpaceTime(o)
		if err != nil {
			continue // no trace: nothing drawn
		}
		classes, explained, err := readDiagram(svg)
		if err != nil {
			t.Fatalf("%s: %v", sc.Name, err)
		}
		for _, c := range slices.Compact(slices.Sorted(slices.Values(classes))) {
			if !slices.Contains(spaceTimeMarks, c) {
				t.Errorf("%s: the diagram draws a mark of kind %q, which its legend does not explain", sc.Name, c)
			}
			drawn[c] = true
		}
		legend = explained
	}
	for _, m := range spaceTimeMarks {
		if !drawn[m] {
			t.Errorf("no built-in scenario's diagram draws a %q mark", m)
		}
		if legend[m] == "" {
			t.Errorf("the diagram's legend does not explain its %q marks", m)
		}
	}
	caption := pageLegend(t)
	for _, m := range spaceTimeMarks {
		if caption[m] == "" || caption[m] != legend[m] {
			t.Errorf("the page's caption explains %q marks as %q, the diagram's legend as %q", m, caption[m], legend[m])
		}
	}
	if len(legend) != len(spaceTimeMarks) || len(caption) != len(spaceTimeMarks) {
		t.Errorf("the legend explains %d kinds of mark, the caption %d; the diagram draws %d", len(legend), len(caption), len(spaceTimeMarks))
	}
}

// readDiagram reads a diagram's SVG: the class of every shape (and every
// text that has one) outside its defs and its legend (the white paper
// under it aside), and what its legend says of each kind of mark.
func readDiagram(svg string) (classes []string, legend map[string]string, err error) {
	legend = map[string]string{}
	dec := xml.NewDecoder(strings.NewReader(svg))
	var stack []string // "defs", "legend", "mark:KIND" or ""
	inside := func(what string) bool { return slices.Contains(stack, what) }
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return classes, legend, nil
		}
		if err != nil {
			return nil, nil, err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range tok.Attr {
				attr[a.Name.Local] = a.Value
			}
			what := ""
			switch {
			case tok.Name.Local == "defs" || attr["class"] == "legend":
				what = tok.Name.Local
				if attr["class"] == "legend" {
					what = "legend"
				}
			case attr["data-mark"] != "":
				what = "mark:" + attr["data-mark"]
			case inside("defs") || inside("legend"):
			case attr["class"] != "":
				classes = append(classes, attr["class"])
			case slices.Contains([]string{"line", "circle", "rect", "path", "polygon", "polyline", "ellipse"}, tok.Name.Local) &&
				attr["fill"] != "white":
				classes = append(classes, "(a "+tok.Name.Local+" of no kind)")
			}
			stack = append(stack, what)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			for _, s := range stack {
				if m, ok := strings.CutPrefix(s, "mark:"); ok && strings.TrimSpace(string(tok)) != "" && legend[m] == "" {
					if text := string(tok); text != "✕" { // the lost mark's picture, not its words
						legend[m] = text
					}
				}
			}
		}
	}
}

// pageLegend is what the report's page says under a diagram of each kind
// of mark.
func pageLegend(t *testing.T) map[string]string {
	t.Helper()
	r := &Report{Dir: t.TempDir(), Verdicts: []Verdict{{Scenario: "x", Report: "violations/x", SpaceTime: "violations/x/spacetime.svg"}}}
	r.Index = filepath.Join(r.Dir, "index.html")
	if err := r.write(nil); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(r.Index)
	if err != nil {
		t.Fatal(err)
	}
	_, caption, _ := strings.Cut(string(page), `alt="space-time diagram of x"`)
	caption, _, _ = strings.Cut(caption, "</figcaption>")
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`<li data-mark="([^"]+)"><svg[^>]*>.*?</svg> ([^<]*)</li>`).FindAllStringSubmatch(caption, -1) {
		out[m[1]] = html.UnescapeString(m[2])
	}
	return out
}
