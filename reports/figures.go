package reports

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/zksim/zksim/search"
)

// Figure is one figure, drawn in PNG and SVG.
type Figure struct {
	// Name is the files' base name ("herd-notifications").
	Name string
	// Title and Caption say what it shows, for the report.
	Title, Caption string
	plot           *plot.Plot
}

// figureMargin is the blank border around a figure: its title, its last
// tick's label and its legend never touch the frame a page draws round
// it.
const figureMargin = 10 // points

// Save writes the figure as dir/Name.png and dir/Name.svg and returns
// their paths.
func (f *Figure) Save(dir string) ([]string, error) {
	var out []string
	for _, ext := range []string{"png", "svg"} {
		path := filepath.Join(dir, f.Name+"."+ext)
		if err := f.save(path, ext); err != nil {
			return out, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, path)
	}
	return out, nil
}

// save draws the figure, 8 by 5 inches with its margin, into the file
// path in format.
func (f *Figure) save(path, format string) error {
	c, err := draw.NewFormattedCanvas(8*vg.Inch, 5*vg.Inch, format)
	if err != nil {
		return err
	}
	m := vg.Points(figureMargin)
	dc := draw.New(c)
	dc.SetColor(color.White) // the margin is the figure's, not the page's
	dc.Fill(dc.Rectangle.Path())
	f.plot.Draw(draw.Crop(dc, m, -m, m, -m))
	file, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(file); err != nil {
		file.Close()
		return err
	}
	return file.Close()
}

// insetLegend moves p's legend off the corner of the plotting area it is
// drawn in (gonum/plot puts it flush against it): a few points in from
// the side and the top or bottom it is on, clear of the axes and the
// frame.
func insetLegend(p *plot.Plot) {
	in := vg.Points(8)
	p.Legend.XOffs, p.Legend.YOffs = -in, in
	if p.Legend.Left {
		p.Legend.XOffs = in
	}
	if p.Legend.Top {
		p.Legend.YOffs = -in / 2
	}
}

// seriesStyle gives each implementation a look: the recipe solid, its
// herd variant dashed; locks and elections in their own colours.
func seriesStyle(s search.HerdSeries) (color.Color, []vg.Length) {
	c := plotutil.Color(0)
	if s.Kind == "election" {
		c = plotutil.Color(1)
	}
	if s.Variant != "" {
		c = plotutil.Color(2)
		if s.Kind == "election" {
			c = plotutil.Color(3)
		}
		return c, []vg.Length{vg.Points(6), vg.Points(3)}
	}
	return c, nil
}

// HerdFigure plots, per release, the mean notifications (metric
// "notifications") or requests ("requests") against the number of clients
// contending, one line per series: the recipes' lines stay flat, the herd
// variants' grow with the clients.
func HerdFigure(series []search.HerdSeries, metric string) (*Figure, error) {
	p := plot.New()
	what := map[string]string{"notifications": "Watch notifications", "requests": "Client requests"}[metric]
	if what == "" {
		return nil, fmt.Errorf("metric %q: want notifications or requests", metric)
	}
	p.Title.Text = fmt.Sprintf("%s per lock release or leader change", what)
	p.X.Label.Text = "clients contending (log scale)"
	p.Y.Label.Text = fmt.Sprintf("%s per release (mean, log scale)", metric)
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = true, true
	insetLegend(p)
	top := 0.0
	for _, s := range series {
		var xys plotter.XYs
		for _, pt := range s.Points {
			y := pt.NotificationsPerRelease
			if metric == "requests" {
				y = pt.RequestsPerRelease
			}
			if pt.Clients > 0 && y > 0 {
				xys = append(xys, plotter.XY{X: float64(pt.Clients), Y: y})
			}
		}
		if len(xys) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		c, dashes := seriesStyle(s)
		line.Color, line.Dashes, points.Color = c, dashes, c
		// The lock's and the election's recipes have the same figures:
		// the lock's line is drawn wider, under the election's, and each
		// has its own mark, so that neither hides the other.
		if s.Kind == "election" {
			points.Shape = draw.TriangleGlyph{}
		} else {
			line.Width = vg.Points(3)
		}
		if s.World == "live" {
			points.Shape = draw.BoxGlyph{}
		}
		for _, xy := range xys {
			top = max(top, xy.Y)
		}
		p.Add(line, points)
		p.Legend.Add(fmt.Sprintf("%s %s", s.Kind, s.Label()), line, points)
	}
	if top > 0 {
		p.Y.Max = top * 30 // room above the lines for the legend (log scale)
	}
	return &Figure{Name: "herd-" + metric, plot: p,
		Title: fmt.Sprintf("%s per release", what),
		Caption: fmt.Sprintf("%s each lock release (or leader change) causes, against the number of clients contending. "+
			"The recipes have each waiter watch only the node just below its own: one notification per release, however many wait. "+
			"The herd variants have every waiter watch the lock's children (or the leader's node): every release wakes them all.", what)}, nil
}

// LatencyFigure draws the distribution of acquisition latencies (the
// wait from Lock's call to its return) of each series at n clients, as
// box plots.
func LatencyFigure(series []search.HerdSeries, n int) (*Figure, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Lock acquisition latency, %d clients contending", n)
	p.Y.Label.Text = "wait from Lock's call to its return (ms, virtual time)"
	var names []string
	w := vg.Points(40)
	for _, s := range series {
		if s.Kind != "lock" {
			continue // a lock's figure: the elections' waits are another story
		}
		for _, pt := range s.Points {
			if pt.Clients != n || len(pt.Latencies) == 0 {
				continue
			}
			vals := make(plotter.Values, len(pt.Latencies))
			for i, d := range pt.Latencies {
				vals[i] = float64(d) / float64(time.Millisecond)
			}
			box, err := plotter.NewBoxPlot(w, float64(len(names)), vals)
			if err != nil {
				return nil, err
			}
			c, _ := seriesStyle(s)
			box.FillColor = c
			p.Add(box)
			names = append(names, fmt.Sprintf("%s %s", s.Kind, s.Label()))
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no series has %d clients", n)
	}
	p.NominalX(names...)
	return &Figure{Name: "acquisition-latency", plot: p, Title: "Acquisition latency",
		Caption: fmt.Sprintf("How long each of %d clients waited for the lock, from the call to its return: "+
			"the box spans the middle half, the line is the median. With a herd, every release costs every waiter a "+
			"round trip, and the queue drains more slowly.", n)}, nil
}

// TrafficFigure plots what each server sent (notifications) and received
// (requests) over time in a window around one release: a herd is a burst
// at every server holding waiters.
func TrafficFigure(name, title string, buckets map[string][]float64, bucket time.Duration) (*Figure, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = fmt.Sprintf("time around the release (ms, buckets of %s)", bucket)
	p.Y.Label.Text = "messages per bucket"
	keys := make([]string, 0, len(buckets))
	for k := range buckets {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	top := 0.0
	for _, k := range keys {
		for _, v := range buckets[k] {
			top = max(top, v)
		}
	}
	p.Y.Max = top*1.8 + 1 // room above the bursts for the legend
	for i, k := range keys {
		var xys plotter.XYs
		for j, v := range buckets[k] {
			xys = append(xys, plotter.XY{X: float64(j) * float64(bucket) / float64(time.Millisecond), Y: v})
		}
		line, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		line.Color = plotutil.Color(i)
		line.Dashes = plotutil.Dashes(i)
		p.Add(line)
		p.Legend.Add(k, line)
	}
	p.Legend.Top = true
	insetLegend(p)
	return &Figure{Name: name, plot: p, Title: title,
		Caption: "Notifications each server sent and requests it received around one release, by server."}, nil
}
