package search

import (
	"context"
	"fmt"
	"io"
	"time"
)

// ReportOptions say which runs the HTML report shows.
type ReportOptions struct {
	// Seeds bounds a passing scenario's seeds in the verdict table
	// (default 20); a scenario expecting a violation runs until one shows.
	Seeds int
	// Only keeps the scenarios whose name contains it; NoFigures leaves
	// the herd sweeps and the traffic out.
	Only      string
	NoFigures bool
	// LockClients and HerdClients are the sweeps' client counts: the
	// recipes' (default DefaultLockClients), and the herd variants'
	// (default DefaultHerdClients; their cost grows with the square of
	// the clients).
	LockClients, HerdClients []int
	// Progress receives a line per step (default: nothing).
	Progress io.Writer
}

// DefaultLockClients and DefaultHerdClients are the sweeps' defaults.
var (
	DefaultLockClients = []int{2, 5, 10, 20, 50, 100, 200, 500, 1000}
	DefaultHerdClients = []int{2, 5, 10, 20, 50, 100, 200}
)

// ReportRuns are the runs the HTML report shows, made: the teaching
// suite judged, the herd sweeps in the simulator, and the traffic around
// one release.
type ReportRuns struct {
	Judged  []Judged
	Series  []HerdSeries
	Traffic []ReleaseTraffic
}

// ReleaseTraffic is what each server sent and received around one release
// of a lock (TrafficAround), bucketed: a figure of the report.
type ReleaseTraffic struct {
	Name, Title string
	Buckets     map[string][]float64
	Bucket      time.Duration
}

// ForReport makes the runs the HTML report shows. Cancelling ctx ends it
// with ctx's error.
func ForReport(ctx context.Context, opt ReportOptions) (*ReportRuns, error) {
	if opt.Seeds == 0 {
		opt.Seeds = 20
	}
	if opt.LockClients == nil {
		opt.LockClients = DefaultLockClients
	}
	if opt.HerdClients == nil {
		opt.HerdClients = DefaultHerdClients
	}
	progress := opt.Progress
	if progress == nil {
		progress = io.Discard
	}
	fmt.Fprintln(progress, "the teaching suite:")
	judged, err := Suite(ctx, opt.Seeds, opt.Only, progress)
	if err != nil {
		return nil, err
	}
	runs := &ReportRuns{Judged: judged}
	if opt.NoFigures {
		return runs, nil
	}
	fmt.Fprintln(progress, "the herd sweeps (simulator):")
	for _, sw := range []struct {
		kind, variant string
		clients       []int
	}{
		{"lock", "", opt.LockClients}, {"lock", "lock-herd", opt.HerdClients},
		{"election", "", opt.LockClients}, {"election", "election-herd", opt.HerdClients},
	} {
		s, err := HerdSweep(ctx, sw.kind, sw.variant, sw.clients, 1, progress)
		if err != nil {
			return nil, err
		}
		runs.Series = append(runs.Series, s)
	}
	const bucket = 500 * time.Microsecond
	for _, v := range []struct{ variant, name, title string }{
		{"", "traffic-recipe", "Traffic around one release: the recipe, 50 clients"},
		{"lock-herd", "traffic-herd", "Traffic around one release: lock-herd, 50 clients"},
	} {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b, err := TrafficAround("lock", v.variant, 50, 1, 20*time.Millisecond, bucket)
		if err != nil {
			return nil, err
		}
		runs.Traffic = append(runs.Traffic, ReleaseTraffic{Name: v.name, Title: v.title, Buckets: b, Bucket: bucket})
	}
	return runs, nil
}
