package scenarios

import (
	"fmt"
	"slices"
	"time"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/sim"
)

// A served run (zksim serve, its tape replayed, or go-zookeeper code run
// by zksimtest) judged. Its clients are real programs: what the servers
// saw judges every served run (ServedChecks); what the clients believed
// ("I hold the lock") judges it only when they recorded it, as
// operations of a history (ServedRun.Ops), and then the kind's checks
// judge it as they judge a simulated run.

// ServedChecks are the checks a served run can be judged by without
// anything from its clients. "ownership" needs nothing: an ephemeral node
// deleted by a session other than its owner's is seen by the servers.
// "leaks" is among them only when asked for: without the recipe's
// operations it cannot tell the nodes a recipe shares (its directory, a
// queue's items not yet taken) from the ones it left behind, so it would
// report both.
var ServedChecks = []string{"ownership", "leaks"}

// DefaultServedChecks are the checks a served run gets when none are
// asked for and its clients recorded nothing.
var DefaultServedChecks = []string{"ownership"}

// ServedRun is a served run to judge.
type ServedRun struct {
	Name     string
	World    *sim.World
	Result   sim.Result
	Schedule fault.Schedule
	// Checks judge it (DefaultServedChecks when none; with Ops, any
	// check).
	Checks []string
	// Ops are what its clients recorded of their operations, on the
	// world's clock, client i as cN+1 (none: nothing recorded).
	Ops []models.Operation
	// SessionTimeout is what the clients asked for, for the checks that
	// allow for it.
	SessionTimeout time.Duration
}

// Served judges a served run. The Outcome's Spec names the run and
// counts the clients that came.
func Served(r ServedRun) (*Outcome, error) {
	checks := r.Checks
	if len(checks) == 0 {
		checks = DefaultServedChecks
	}
	for _, c := range checks {
		if _, err := models.Lookup(c); err != nil {
			return nil, fmt.Errorf("checks: %w", err)
		}
		if len(r.Ops) == 0 && !slices.Contains(ServedChecks, c) {
			return nil, fmt.Errorf("check %q cannot judge a served run whose clients recorded nothing (want one of %v)", c, ServedChecks)
		}
	}
	w, res := r.World, r.Result
	spec := Spec{Name: r.Name, Clients: len(w.Clients()), Checks: checks, Faults: r.Schedule}
	out := &Outcome{Spec: spec, Seed: w.Seed(), Schedule: r.Schedule, Simulation: &Simulation{Result: res, World: w}}
	out.Input = &models.Input{Ops: r.Ops, End: int64(res.End), SessionTimeout: r.SessionTimeout}
	worldEvidence(out.Input, w, slices.Contains(checks, "leaks"))
	vs, err := judge(out, nil, nil)
	if err != nil {
		return out, err
	}
	explainFromTrace(w, res.Err, vs)
	settle(out, vs)
	return out, nil
}
