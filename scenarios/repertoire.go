package scenarios

import (
	"fmt"
	"sync"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/trace"
)

// repertoires holds each workload's repertoire once made: a pure function
// of the spec (its kind, implementation, clients and options), so sharing
// it between runs and workers changes no run.
var repertoires sync.Map // repertoireKey → *fault.Repertoire

// repertoireKey is what a repertoire depends on: a user's own
// implementation by its identity (kept, so that its address is never
// another's), the rest as text.
type repertoireKey struct {
	impl *recipes.Implementation
	text string
}

// repertoire is what spec's clients do in a run without faults (seed 1):
// the requests each sends, by operation, and the notifications each
// receives. The random faults tied to a request or a notification are
// drawn from it (fault.RandomScheduleFor), so that each names an event the
// workload makes and strikes while it runs, in the simulator as live. nil
// when the probe cannot run: the faults are then drawn blind.
func (spec Spec) repertoire() *fault.Repertoire {
	key := repertoireKey{spec.Impl, fmt.Sprintf("%s|%s|%d|%+v|%+v|%v|%v|%v", spec.Kind, spec.Variant, spec.Clients, spec.Workload,
		spec.Ensemble, spec.Horizon, spec.Bound, spec.Checks)}
	if r, ok := repertoires.Load(key); ok {
		return r.(*fault.Repertoire)
	}
	probe := spec
	probe.Faults, probe.Rates = nil, nil
	probe, k, err := probe.withDefaults()
	if err != nil {
		return nil
	}
	cfg := probe.Ensemble
	cfg.Seed, cfg.KeepTrace = 1, true
	cfg.ProgressBound = progressBound(probe, nil)
	out, _, err := simulate(probe, k, cfg, nil, nil)
	if err != nil || out == nil || out.World == nil {
		return nil
	}
	rep := &fault.Repertoire{Sends: make([]map[client.Op]int, probe.Clients), Notified: make([]int, probe.Clients)}
	for i := range rep.Sends {
		rep.Sends[i] = map[client.Op]int{}
	}
	for r := range out.World.Trace().All() {
		switch r.Kind {
		case trace.KSend:
			if c := clientOf(r.From); c >= 0 && c < probe.Clients {
				rep.Sends[c][r.Op]++
			}
		case trace.KNotify:
			if c := clientOf(r.To); c >= 0 && c < probe.Clients {
				rep.Notified[c]++
			}
		}
	}
	repertoires.Store(key, rep)
	return rep
}
