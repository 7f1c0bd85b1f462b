package scenarios

import (
	"fmt"
	"slices"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/sim"
)

// A served run (zksim serve, or its tape replayed) judged. Its clients
// are real programs that recorded nothing of what they believed, so only
// the checks that need nothing from them judge it, from what the world
// saw: ServedChecks.

// ServedChecks are the checks a served run can be judged by without
// anything from its clients. "ownership" needs nothing: an ephemeral node
// deleted by a session other than its owner's is seen by the servers.
// "leaks" is among them only when asked for: without the recipe's
// operations it cannot tell the nodes a recipe shares (its directory, a
// queue's items not yet taken) from the ones it left behind, so it would
// report both.
var ServedChecks = []string{"ownership", "leaks"}

// DefaultServedChecks are the checks a served run gets when none are
// asked for.
var DefaultServedChecks = []string{"ownership"}

// Served judges a served run: its world and how it ended, the schedule
// it was served with, by checks (DefaultServedChecks when none). The
// Outcome's Spec names the scenario and counts the clients that came.
func Served(name string, w *sim.World, res sim.Result, sched fault.Schedule, checks []string) (*Outcome, error) {
	if len(checks) == 0 {
		checks = DefaultServedChecks
	}
	for _, c := range checks {
		if !slices.Contains(ServedChecks, c) {
			return nil, fmt.Errorf("check %q cannot judge a served run: its clients record nothing (want one of %v)", c, ServedChecks)
		}
	}
	spec := Spec{Name: name, Clients: len(w.Clients()), Checks: checks, Faults: sched}
	out := &Outcome{Spec: spec, Schedule: sched, Simulation: &Simulation{Result: res, World: w}}
	out.Input = &models.Input{End: int64(res.End)}
	worldEvidence(out.Input, w, slices.Contains(checks, "leaks"))
	vs, err := judge(out, nil, nil)
	if err != nil {
		return out, err
	}
	explainFromTrace(w, res.Err, vs)
	settle(out, vs)
	return out, nil
}
