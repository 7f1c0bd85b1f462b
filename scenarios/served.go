package scenarios

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/serve"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/workload"
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
	// allow for it (the liveness bound is three of them); 0 takes the
	// longest the servers granted a session of the run (a served run's
	// clients ask for their own: kazoo 10s, Curator 60s, capped at 40s).
	SessionTimeout time.Duration
	// Kind, with Ops, is the recipe kind the clients ran: its checks
	// judge the run when Checks names none, with its settings (how many
	// may proceed at once, a semaphore's permits, the liveness bound).
	Kind string
	// Workload and Bound are the served scenario's workload settings and
	// liveness bound, as its file sets them: the kind's settings are read
	// from them (a semaphore's permits are its Size, a double barrier's
	// Size the processes it waits for), the kind's defaults filling in
	// the rest. Workload.Fenced is set aside: the fence is the resource
	// of zksim's own workload, which a served run's clients never use
	// (theirs is their own; a client that fences it asks for the
	// fenced-mutex check by Checks).
	Workload workload.Shape
	Bound    time.Duration
}

// spec is the spec a served run is judged as: its clients, its schedule,
// its checks (DefaultServedChecks without recorded operations; with them
// and a kind, the kind's by default), and the kind (nil without one).
func (r ServedRun) spec() (Spec, *workload.Kind, error) {
	spec := Spec{Name: r.Name, Clients: len(r.World.Clients()), Checks: r.Checks, Faults: r.Schedule}
	spec.Ensemble.SessionTimeout = cmp.Or(r.SessionTimeout, r.World.LongestSessionTimeout())
	if r.Kind == "" || len(r.Ops) == 0 {
		if len(spec.Checks) == 0 {
			spec.Checks = DefaultServedChecks
		}
		return spec, nil, nil
	}
	spec.Kind, spec.Workload, spec.Bound = r.Kind, r.Workload, r.Bound
	spec.Workload.Fenced = false
	if spec.Clients == 0 {
		spec.Clients = 1
	}
	k, err := workload.Lookup(r.Kind)
	if err != nil {
		return spec, nil, err
	}
	if spec.Clients < k.MinClients() {
		spec.Clients = k.MinClients() // the checks count none that did not come
	}
	d, k, err := spec.withDefaults()
	d.Clients = len(r.World.Clients()) // the clients that came, as the timeline draws them
	return d, k, err
}

// Served judges a served run. The Outcome's Spec names the run and
// counts the clients that came.
func Served(r ServedRun) (*Outcome, error) {
	spec, k, err := r.spec()
	if err != nil {
		return nil, err
	}
	checks := spec.Checks
	for _, c := range checks {
		if _, err := models.Lookup(c); err != nil {
			return nil, fmt.Errorf("checks: %w", err)
		}
		if len(r.Ops) == 0 && !slices.Contains(ServedChecks, c) {
			return nil, fmt.Errorf("check %q cannot judge a served run whose clients recorded nothing (want one of %v)", c, ServedChecks)
		}
	}
	w, res := r.World, r.Result
	out := &Outcome{Spec: spec, Seed: w.Seed(), Schedule: r.Schedule, Simulation: &Simulation{Result: res, World: w}}
	out.Input = &models.Input{Ops: r.Ops, End: int64(res.End), SessionTimeout: spec.SessionTimeout(), Bound: spec.Bound}
	if k != nil {
		k.Input(out.Input, spec.plan())
	}
	if out.Input.Bound == 0 {
		out.Input.Bound = 3 * spec.SessionTimeout()
	}
	worldEvidence(out.Input, w, slices.Contains(checks, "leaks"))
	vs, err := judge(out, nil, nil)
	if err != nil {
		return out, err
	}
	explainFromTrace(w, res.Err, vs)
	settle(out, vs)
	return out, nil
}

// RecordedOps are the operations a served run's clients recorded (recipe
// events), as a history holds them: one still awaiting its return when
// the run ended is pending, to end; one of unknown outcome may take
// effect at any time after its call, so its Return is the end of time and
// Ended when it returned (as zksim's own workloads record it). An
// operation of a kind no history knows is an error naming it.
func RecordedOps(ops []serve.RecipeOp, end sim.Time) ([]models.Operation, error) {
	out := make([]models.Operation, 0, len(ops))
	for i, r := range ops {
		op := models.Operation{Client: r.Client, Kind: models.OpKind(r.Kind), Path: r.Path, Data: r.Data, Token: r.Token,
			Shared: r.Shared, Priority: r.Priority, Result: models.Result(r.Result), Error: r.Error, OutData: r.Out,
			Call: int64(r.Call), Return: int64(r.Return)}
		if !op.Kind.Known() {
			return nil, fmt.Errorf("recipe event %d (c%d): operation %q is none a history knows", i+1, r.Client+1, r.Kind)
		}
		switch op.Result {
		case "":
			op.Result, op.Return = models.Pending, int64(end)
		case models.Unknown:
			op.Ended, op.Return = op.Return, math.MaxInt64
		}
		if !op.Result.Known() {
			return nil, fmt.Errorf("recipe event %d (c%d): result %q is none a history knows", i+1, r.Client+1, r.Result)
		}
		out = append(out, op)
	}
	return out, nil
}
