package reports

import (
	"encoding/json"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/scenarios"
	"github.com/zksim/zksim/search"
)

// Options say what a report shows and where it goes.
type Options struct {
	// Out is the directory written (created; default reports/out).
	Out string
	// Runs are the runs it shows, made by search.ForReport.
	Runs *search.ReportRuns
	// Live, when set, adds points measured on a live ensemble
	// (search.LiveHerdSweep) to the herd figures.
	Live []search.HerdSeries
}

// Verdict is one row of the report's table.
type Verdict struct {
	Scenario, Kind, Variant, Faults, Expected, Got string
	Seeds                                          int
	AsExpected                                     bool
	Time                                           time.Duration
	Description                                    string
	// Lesson is the teaching variant's lesson (what goes wrong, and how
	// the recipe avoids it), shown above its explanation.
	Lesson string
	// Report is the violation report's directory, relative to the
	// report's, and its files.
	Report    string
	Timeline  string
	SpaceTime string // the space-time diagram of its violation
	// SpaceTimeFocus is how far down the diagram the violation shows,
	// in pixels: where the page opens it.
	SpaceTimeFocus int
	// Steps is its counterexample's events with the state after each, as
	// JSON, for the report's step-through view.
	Steps          string
	Porcupine      []string
	ReportLines    string // its account of the violation
	ReportTimeline string // its timeline
}

// Report is what Build wrote.
type Report struct {
	Dir      string
	Index    string
	Figures  []string
	Verdicts []Verdict
	Series   []search.HerdSeries
}

// Build renders runs (what search.ForReport made): each scenario's
// verdict and its counterexample's report, the herd and traffic figures,
// and index.html linking everything, into opt.Out.
func Build(opt Options) (*Report, error) {
	if opt.Out == "" {
		opt.Out = filepath.Join("reports", "out")
	}
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return nil, err
	}
	r := &Report{Dir: opt.Out, Index: filepath.Join(opt.Out, "index.html")}
	verdicts, err := Verdicts(opt.Out, opt.Runs.Judged)
	if err != nil {
		return nil, err
	}
	r.Verdicts = verdicts
	if len(opt.Runs.Series) == 0 && len(opt.Runs.Traffic) == 0 {
		return r, r.write(nil)
	}
	r.Series = append(slices.Clone(opt.Runs.Series), opt.Live...)
	figs, err := figuresOf(r.Series, opt.Runs.Traffic)
	if err != nil {
		return nil, err
	}
	return r, r.write(figs)
}

// figuresOf draws the herd figures of series and the traffic figures.
func figuresOf(series []search.HerdSeries, traffic []search.ReleaseTraffic) ([]*Figure, error) {
	var figs []*Figure
	for _, m := range []string{"notifications", "requests"} {
		f, err := HerdFigure(series, m)
		if err != nil {
			return nil, err
		}
		figs = append(figs, f)
	}
	if f, err := LatencyFigure(series, 50); err == nil {
		figs = append(figs, f)
	}
	for _, t := range traffic {
		f, err := TrafficFigure(t.Name, t.Title, t.Buckets, t.Bucket)
		if err != nil {
			return nil, err
		}
		figs = append(figs, f)
	}
	return figs, nil
}

// write saves the figures and writes index.html.
func (r *Report) write(figs []*Figure) error {
	type figRef struct{ Title, Caption, PNG, SVG string }
	var refs []figRef
	for _, f := range figs {
		paths, err := f.Save(r.Dir)
		if err != nil {
			return err
		}
		r.Figures = append(r.Figures, paths...)
		refs = append(refs, figRef{f.Title, f.Caption, filepath.Base(paths[0]), filepath.Base(paths[1])})
	}
	out, err := os.Create(r.Index)
	if err != nil {
		return err
	}
	err = page.Execute(out, map[string]any{"Verdicts": r.Verdicts, "Figures": refs, "Matches": r.Matches(),
		"Total": len(r.Verdicts), "Series": r.Series, "SpaceTimeHead": SpaceTimeHead, "SpaceTimeLegend": SpaceTimeLegend()})
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// Matches counts the verdicts that were as expected.
func (r *Report) Matches() int {
	n := 0
	for _, v := range r.Verdicts {
		if v.AsExpected {
			n++
		}
	}
	return n
}

// Verdicts are the rows of the verdict table for the scenarios judged,
// each counterexample's report written under dir/violations/NAME.
func Verdicts(dir string, judged []search.Judged) ([]Verdict, error) {
	var out []Verdict
	for _, j := range judged {
		sc, v := j.Scenario, j.Verdict
		row := Verdict{Scenario: sc.Name, Kind: sc.Spec.Kind, Variant: sc.Spec.Variant, Faults: FaultSummary(sc),
			Expected: sc.Expect.String(), Got: v.Got(), Seeds: j.Seeds, AsExpected: v.Matches,
			Time: j.Time, Description: sc.Description, Lesson: lessonOf(sc.Spec.Variant)}
		if j.Shown != nil {
			if err := counterexampleRow(&row, dir, j.Shown.Outcome); err != nil {
				return nil, err
			}
		}
		out = append(out, row)
	}
	return out, nil
}

// counterexampleRow writes o's violation report under dir and links its
// files, its account and its steps into row.
func counterexampleRow(row *Verdict, dir string, o *scenarios.Outcome) error {
	rel := filepath.Join("violations", row.Scenario)
	vr := &ViolationReport{Outcome: o}
	full := filepath.Join(dir, rel)
	if err := os.RemoveAll(full); err != nil {
		return err
	}
	if err := vr.Write(full); err != nil {
		return err
	}
	row.Report = rel
	for _, f := range vr.Files {
		base := filepath.Base(f)
		switch {
		case base == "timeline.txt":
			row.Timeline = filepath.Join(rel, base)
		case base == "spacetime.svg":
			row.SpaceTime = filepath.Join(rel, base)
			row.SpaceTimeFocus = SpaceTimeFocus(o)
		case strings.HasPrefix(base, "linearizability-"):
			row.Porcupine = append(row.Porcupine, filepath.Join(rel, base))
		}
	}
	// The report's text without the "wrote" lines (the scratch paths of
	// the files it wrote): its account, wrapped, and its timeline,
	// scrolled.
	if steps, err := Steps(o); err == nil {
		data, err := json.Marshal(steps)
		if err != nil {
			return err
		}
		row.Steps = string(data)
	}
	text := (&ViolationReport{Outcome: vr.Outcome}).String()
	row.ReportLines, row.ReportTimeline = text, ""
	if i := strings.Index(text, "\ntimeline "); i >= 0 {
		row.ReportLines, row.ReportTimeline = text[:i+1], text[i+1:]
	}
	return nil
}

// FaultSummary says in a few words what a scenario's faults are.
func FaultSummary(sc *scenarios.Scenario) string {
	var parts []string
	if n := len(sc.Spec.Faults); n == 1 {
		parts = append(parts, sc.Spec.Faults[0].String())
	} else if n > 1 {
		parts = append(parts, fmt.Sprintf("%d scheduled", n))
	}
	switch {
	case sc.Spec.Rates != nil && sc.Spec.Swarm:
		parts = append(parts, "random (swarm)")
	case sc.Spec.Rates != nil:
		parts = append(parts, "random")
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " + ")
}

var page = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>zksim report</title>
<style>
body { font-family: sans-serif; margin: 2em; max-width: 1100px; }
table { border-collapse: collapse; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: left; vertical-align: top; }
tr.bad { background: #fdd; }
figure { margin: 2em 0; }
figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { color: #444; max-width: 800px; }
pre { font-size: 0.75em; overflow-x: auto; background: #f7f7f7; padding: 0.5em; }
pre.account { white-space: pre-wrap; overflow-wrap: anywhere; }
.stepper { border: 1px solid #ccc; padding: 0.5em; margin: 1em 0; }
.spacetime-view { max-height: 80vh; overflow: auto; border: 1px solid #eee; }
.spacetime-view img { display: block; border: 0; }
.spacetime-head { position: sticky; top: 0; background: #fff no-repeat 0 0; box-shadow: 0 1px 2px #ccc; }
.step-panels { display: flex; gap: 1em; }
.step-panels > div { flex: 1; min-width: 0; }
.step-panels pre { white-space: pre-wrap; overflow-wrap: anywhere; }
.step-event { font-family: monospace; white-space: pre-wrap; }
ul.spacetime-legend { columns: 2; list-style: none; padding: 0; margin: 0.5em 0; font-size: 0.85em; }
ul.spacetime-legend li { break-inside: avoid; margin: 0.1em 0; display: flex; gap: 0.4em; align-items: flex-start; }
ul.spacetime-legend svg { flex: none; margin-top: 0.1em; }
</style>
</head>
<body>
<h1>zksim report</h1>
<p>{{.Matches}} of {{.Total}} built-in scenarios reached the verdict they expect.</p>

<h2>Verdicts</h2>
<table>
<tr><th>scenario</th><th>recipe</th><th>variant</th><th>faults</th><th>expected</th><th>got</th><th>seeds</th><th>time</th><th>counterexample</th></tr>
{{range .Verdicts}}<tr{{if not .AsExpected}} class="bad"{{end}}>
<td title="{{.Description}}">{{.Scenario}}</td><td>{{.Kind}}</td><td>{{if .Variant}}{{if .Report}}<a href="#{{.Scenario}}" title="its lesson and the counterexample that shows it">{{.Variant}}</a>{{else}}{{.Variant}}{{end}}{{else}}(the recipe){{end}}</td>
<td>{{.Faults}}</td><td>{{.Expected}}</td><td>{{.Got}}</td><td>{{.Seeds}}</td><td>{{.Time}}</td>
<td>{{if .Report}}<a href="#{{.Scenario}}">timeline</a>{{range .Porcupine}} · <a href="{{.}}">linearizability</a>{{end}}{{end}}</td>
</tr>
{{end}}</table>

<h2>The herd effect</h2>
{{range .Figures}}<figure>
<img src="{{.PNG}}" alt="{{.Title}}">
<figcaption><b>{{.Title}}.</b> {{.Caption}} (<a href="{{.SVG}}">SVG</a>)</figcaption>
</figure>
{{end}}

<h2>Counterexamples</h2>
{{range .Verdicts}}{{if .Report}}<h3 id="{{.Scenario}}">{{.Scenario}}</h3>
<p>{{.Description}}</p>
{{if .Lesson}}<p class="lesson"><b>The lesson.</b> {{.Lesson}} The account below says how this run broke it.</p>{{end}}
<p><a href="{{.Timeline}}">full timeline</a>{{range .Porcupine}} · <a href="{{.}}">porcupine's visualization</a>{{end}}</p>
{{if .SpaceTime}}<figure><div class="spacetime-view" data-focus="{{.SpaceTimeFocus}}" data-head="{{$.SpaceTimeHead}}"><div class="spacetime-head"></div><img class="spacetime" src="{{.SpaceTime}}" alt="space-time diagram of {{.Scenario}}"></div>
<figcaption>The violation as a space-time diagram, opened at its moment; how to read it (its legend, also at its foot):
<ul class="spacetime-legend">{{range $.SpaceTimeLegend}}<li data-mark="{{.Mark}}">{{.Picture}} {{.Says}}</li>
{{end}}</ul></figcaption></figure>{{end}}
{{if .Steps}}<div class="stepper" id="steps-{{.Scenario}}" data-steps="{{.Steps}}">
<p><button class="step-prev">◀ back</button> <button class="step-next">forward ▶</button>
<input class="step-range" type="range" min="0" value="0"> <span class="step-pos"></span></p>
<p class="step-event"></p>
<div class="step-panels"><div><b>clients</b><pre class="step-clients"></pre></div>
<div><b>servers: the objects involved (data, version), their children, how far behind</b><pre class="step-servers"></pre></div>
<div><b>watches held</b><pre class="step-watches"></pre></div></div>
</div>{{end}}
<pre class="account">{{.ReportLines}}</pre>
{{if .ReportTimeline}}<pre>{{.ReportTimeline}}</pre>{{end}}
{{end}}{{end}}
<script>
// A tall space-time diagram opens on its violation, not on the sessions'
// set-up: its view scrolls there once the picture has loaded.
document.querySelectorAll('.spacetime-view').forEach(function (el) {
  var img = el.querySelector('img');
  // The picture may be drawn smaller than its own size (a narrow page):
  // the focus, in its own pixels, scales with it.
  // The strip that names the lines stays at the view's top as it
  // scrolls: the picture's own top, drawn again over it.
  var head = el.querySelector('.spacetime-head');
  var focus = function () {
    var scale = img.clientHeight / (img.naturalHeight || 1);
    var at = +el.dataset.focus * scale;
    var h = +el.dataset.head * scale;
    head.style.width = img.clientWidth + 'px';
    head.style.height = h + 'px';
    head.style.marginBottom = -h + 'px';
    head.style.backgroundImage = 'url("' + img.currentSrc + '")';
    head.style.backgroundSize = img.clientWidth + 'px auto';
    el.scrollTop = Math.max(0, at - el.clientHeight * 0.6);
  };
  if (img.complete) { focus(); } else { img.addEventListener('load', focus); }
});
// The step-through view of each counterexample: back and forward through
// its events, the state of the world after each.
// It opens on the event where the violation shows, as the diagram does.
document.querySelectorAll('.stepper').forEach(function (el) {
  var steps = JSON.parse(el.dataset.steps);
  var i = Math.max(0, steps.findIndex(function (s) { return s.violation; }));
  function q(c) { return el.querySelector(c); }
  function show() {
    var s = steps[i];
    q('.step-pos').textContent = 'event ' + (i + 1) + ' of ' + steps.length +
      (s.violation ? ': the violation shows here' : '');
    q('.step-event').textContent = s.at + '  ' + s.event;
    q('.step-clients').textContent = (s.clients || []).join('\n');
    q('.step-servers').textContent = (s.servers || []).join('\n');
    q('.step-watches').textContent = (s.watches || []).join('\n') || '(none)';
    q('.step-range').value = i;
  }
  q('.step-prev').onclick = function () { if (i > 0) { i--; show(); } };
  q('.step-next').onclick = function () { if (i < steps.length - 1) { i++; show(); } };
  q('.step-range').max = steps.length - 1;
  q('.step-range').oninput = function () { i = +this.value; show(); };
  show();
});
</script>
</body>
</html>
`))

// lessonOf is the lesson of the teaching variant named, "" for the recipe.
func lessonOf(variant string) string {
	v, _ := recipes.VariantNamed(variant)
	return v.Lesson
}
