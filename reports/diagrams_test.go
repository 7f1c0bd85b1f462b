package reports

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/zksim/zksim/scenarios"
	"github.com/zksim/zksim/search"
)

// Every teaching variant's space-time diagram, of its shrunk
// counterexample as the report shows it, drawn in headless Chromium: no
// label overlaps another (each text's box measured against every other's),
// and none is taller than the rows a diagram keeps.
func TestEveryVariantDiagramInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("every variant shrunk and drawn: the full pass runs it")
	}
	lessons, err := scenarios.Lessons()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var files []string
	for _, l := range lessons {
		sc := l.Scenario
		res, err := search.Sweep{Spec: sc.Spec, Seeds: max(sc.Seeds, 1), StopAtFirst: true}.Run(context.Background())
		if err != nil || len(res.Failures) == 0 {
			t.Fatalf("%s: no counterexample (%v)", sc.Name, err)
		}
		first := res.Failures[0]
		shown, err := search.Show(context.Background(), sc.Spec, first.Seed, first.Violations, search.ShowOptions{Shrink: true})
		if err != nil {
			t.Fatal(err)
		}
		o := shown.Outcome
		svg, err := SpaceTime(o)
		if err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(dir, sc.Name+".svg")
		if err := os.WriteFile(f, []byte(svg), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	ctx := headless(t, 5*time.Minute)
	for _, f := range files {
		if err := chromedp.Do(ctx, chromedp.Navigate("file://"+f)); err != nil {
			t.Fatal(err)
		}
		pairs, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(function(){
			var els=[].slice.call(document.querySelectorAll("text")), bs=els.map(function(e){return e.getBBox()}), out=[];
			for (var i=0;i<bs.length;i++) for (var j=i+1;j<bs.length;j++) { var a=bs[i], b=bs[j];
				if (a.x<b.x+b.width-1 && b.x<a.x+a.width-1 && a.y<b.y+b.height-1 && b.y<a.y+a.height-1)
					out.push(els[i].textContent+" | "+els[j].textContent) }
			return out})()`))
		if err != nil {
			t.Fatal(err)
		}
		height, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("svg").getAttribute("height")`))
		if err != nil {
			t.Fatal(err)
		}
		h, _ := strconv.Atoi(height)
		name := filepath.Base(f)
		t.Logf("%s: %s pixels tall, %d labels overlapping", name, height, len(pairs))
		if len(pairs) > 0 {
			t.Errorf("%s: labels overlap: %q", name, pairs)
		}
		if h > y(maxRows)+30+legendHeight() {
			t.Errorf("%s: %d pixels tall, more than the %d rows a diagram keeps", name, h, maxRows)
		}
	}
}
