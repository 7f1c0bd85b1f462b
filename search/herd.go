package search

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/scenarios"
	"github.com/zksim/zksim/workload"
)

// HerdPoint is what one run's releases cost: the mean notifications and
// requests per release (a lock release, or a leader change), against the
// number of clients contending.
type HerdPoint struct {
	Clients                 int     `json:"clients"`
	NotificationsPerRelease float64 `json:"notifications_per_release"`
	RequestsPerRelease      float64 `json:"requests_per_release"`
	Releases                int     `json:"releases"`
	// Latencies are the acquisitions' waits (Acquire's call to return).
	Latencies []time.Duration `json:"-"`
	// Wall is how long the run took.
	Wall time.Duration `json:"wall_ms"`
	// ServerPacketsPerRelease is what the servers themselves counted
	// (mntr: packets received and sent, all servers), per release: live
	// runs only.
	ServerPacketsPerRelease float64 `json:"server_packets_per_release,omitempty"`
}

// HerdSeries is one implementation's points: the recipe or its herd
// variant, in one world.
type HerdSeries struct {
	Kind    string      `json:"kind"`    // lock or election
	Variant string      `json:"variant"` // "" for the recipe
	World   string      `json:"world"`   // sim or live
	Points  []HerdPoint `json:"points"`
}

// Label names a series in a legend.
func (s HerdSeries) Label() string {
	name := "recipe"
	if s.Variant != "" {
		name = s.Variant
	}
	return fmt.Sprintf("%s (%s)", name, s.World)
}

// HerdSweep runs kind (lock or election) with the given implementation
// (variant "" for the recipe) once per number of clients in the
// simulator, each client taking the lock (or leading) once, and measures
// what each release cost. Cancelling ctx ends it with ctx's error.
func HerdSweep(ctx context.Context, kind, variant string, clients []int, seed uint64, progress io.Writer) (HerdSeries, error) {
	s := HerdSeries{Kind: kind, Variant: variant, World: "sim"}
	for _, n := range clients {
		start := time.Now()
		spec := scenarios.Spec{Kind: kind, Variant: variant, Clients: n,
			Workload: workload.Shape{Rounds: 1, Steps: 1, Step: time.Millisecond, Together: true}, Checks: []string{"herd"}}
		spec.Ensemble.MaxSteps = 2_000_000_000
		o, err := scenarios.Run(spec, seed, scenarios.Options{Stop: func() bool { return ctx.Err() != nil }})
		if ctx.Err() != nil {
			return s, ctx.Err()
		}
		if err != nil {
			return s, fmt.Errorf("%s %s with %d clients: %w", kind, variant, n, err)
		}
		p := pointOf(o.Input, "/zksim/"+kind, n)
		p.Wall = time.Since(start)
		s.Points = append(s.Points, p)
		if progress != nil {
			fmt.Fprintf(progress, "  %s %s, %d clients: %.1f notifications, %.1f requests per release (%s)\n",
				kind, s.Label(), n, p.NotificationsPerRelease, p.RequestsPerRelease, p.Wall.Round(time.Millisecond))
		}
	}
	return s, nil
}

// pointOf measures a run's releases on object.
func pointOf(in *models.Input, object string, clients int) HerdPoint {
	st := models.HerdOf(in, object)
	p := HerdPoint{Clients: clients, NotificationsPerRelease: st.NotificationsPerRelease,
		RequestsPerRelease: st.RequestsPerRelease, Releases: len(st.Releases)}
	p.Latencies = acquisitionLatencies(in.Ops)
	return p
}

// acquisitionLatencies are the waits of the acquisitions that returned.
func acquisitionLatencies(ops []models.Operation) []time.Duration {
	var out []time.Duration
	for _, op := range ops {
		if op.Kind == models.Acquire && op.Result == models.OK {
			out = append(out, time.Duration(op.Return-op.Call))
		}
	}
	return out
}

// TrafficAround runs kind's implementation with clients contending and
// buckets what each server sent (notifications) and received (requests,
// on the lock's paths) in a window around the middle release.
func TrafficAround(kind, variant string, clients int, seed uint64, window, bucket time.Duration) (map[string][]float64, error) {
	spec := scenarios.Spec{Kind: kind, Variant: variant, Clients: clients,
		Workload: workload.Shape{Rounds: 1, Steps: 1, Step: time.Millisecond, Together: true}, Checks: []string{"herd"}}
	o, err := scenarios.Run(spec, seed, scenarios.Options{})
	if err != nil {
		return nil, err
	}
	object := "/zksim/" + kind
	st := models.HerdOf(o.Input, object)
	if len(st.Releases) == 0 {
		return nil, fmt.Errorf("%s %s: no release", kind, variant)
	}
	// One release: from a little before it to just before the next one,
	// within the window; every server has its lines, quiet or not.
	i := len(st.Releases) / 2
	mid := st.Releases[i].At
	if i+1 < len(st.Releases) {
		if gap := st.Releases[i+1].At - mid; gap > 0 && gap < int64(window)*3/4 {
			window = time.Duration(gap * 4 / 3)
		}
	}
	from := mid - int64(window)/4
	n := max(int(window/bucket), 1)
	out := map[string][]float64{}
	servers := spec.Ensemble.ServerCount()
	for s := 1; s <= servers; s++ {
		out[fmt.Sprintf("s%d notifications sent", s)] = make([]float64, n)
		out[fmt.Sprintf("s%d requests received", s)] = make([]float64, n)
	}
	for _, tr := range o.Input.Traffic {
		if tr.At < from || tr.At >= from+int64(window) {
			continue
		}
		var key string
		switch {
		case tr.Kind == models.Notified:
			key = fmt.Sprintf("s%d notifications sent", tr.Server+1)
		case tr.Kind == models.Sent && (tr.Path == object || len(tr.Path) > len(object) && tr.Path[:len(object)+1] == object+"/"):
			key = fmt.Sprintf("s%d requests received", tr.Server+1)
		default:
			continue
		}
		if b := int((tr.At - from) / int64(bucket)); b < n {
			out[key][b]++
		}
	}
	return out, nil
}

// LiveHerdSweep measures the same releases on a live ensemble: the
// notifications each client received and the requests it sent, counted at
// the client's end (the adapter), per release.
//
// opt says where the live runs go (its servers, its local ensemble, each
// run's timeout); counters, when set, reads what the servers counted
// (packets received and sent, every server), for their own figure.
func LiveHerdSweep(opt scenarios.LiveOptions, counters func() (received, sent int64), kind, variant string, clients []int, progress io.Writer) (HerdSeries, error) {
	s := HerdSeries{Kind: kind, Variant: variant, World: "live"}
	for _, n := range clients {
		start := time.Now()
		spec := scenarios.Spec{Kind: kind, Variant: variant, Clients: n,
			Workload: workload.Shape{Rounds: 1, Steps: 1, Step: time.Millisecond, Together: true}}
		var rx0, tx0, rx1, tx1 int64
		if counters != nil {
			rx0, tx0 = counters()
		}
		o, err := scenarios.RunLive(spec, 1, opt)
		if err != nil {
			return s, err
		}
		if counters != nil {
			rx1, tx1 = counters()
		}
		releases := 0
		for _, op := range o.Input.Ops {
			if op.Kind == models.Release {
				releases++
			}
		}
		p := HerdPoint{Clients: n, Releases: releases, Wall: time.Since(start)}
		if releases > 0 {
			p.NotificationsPerRelease = float64(o.Counters.Notifications) / float64(releases)
			p.RequestsPerRelease = float64(o.Counters.Requests) / float64(releases)
			p.ServerPacketsPerRelease = float64(rx1-rx0+tx1-tx0) / float64(releases)
		}
		p.Latencies = acquisitionLatencies(o.Input.Ops)
		s.Points = append(s.Points, p)
		if progress != nil {
			fmt.Fprintf(progress, "  %s %s, %d clients: %.1f notifications, %.1f requests per release (%s)\n",
				kind, s.Label(), n, p.NotificationsPerRelease, p.RequestsPerRelease, p.Wall.Round(time.Millisecond))
		}
	}
	return s, nil
}
