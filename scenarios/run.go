package scenarios

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/workload"
)

// Options tune one run beyond its Spec and seed.
type Options struct {
	// KeepTrace keeps the run's trace, for a timeline. Runs whose checks
	// count traffic (herd) keep it anyway.
	KeepTrace bool
	// Source, when set, takes the run's choices instead of the seed
	// (shrinking and exploration drive runs this way). The seed still
	// draws the random faults.
	Source sim.Source
	// Stop, when set, is asked now and then during the simulation whether
	// to abandon the run (sim.World.StopWhen): Run then returns
	// sim.ErrStopped, and no outcome to judge.
	Stop func() bool
	// CheckLimit bounds porcupine's search of each object's history
	// (models.Input.CheckLimit; zero: no limit, the default). A check
	// that runs out of it reports an undecided run, never a pass.
	CheckLimit time.Duration
}

// Outcome is one run of a Spec, in either world, and what the checks made
// of it.
type Outcome struct {
	// Spec is the spec that ran, its defaults filled in.
	Spec Spec
	Seed uint64
	// Schedule is every fault of the run: the spec's and those drawn
	// from the seed. Running the spec with Faults set to it and no Rates
	// replays the run.
	Schedule fault.Schedule
	// Input is what the checks judged: the history and the run around it.
	Input *models.Input
	// History is the same, with the run's kind, checks and end, as
	// history.json holds it.
	History *History
	// Coverage is what the run exercised.
	Coverage Coverage
	// Violations are what the checks found, client failures included.
	Violations []models.Violation
	// Simulation is the simulator's account of a simulated run; nil for
	// a live one, whose account is LiveOutcome's.
	*Simulation
	// Checked is the wall time the checks took (the history and traffic
	// gathered and judged): what `make bench` and `zksim run --json`
	// report of checking's share, beside Simulation.Simulated. It varies
	// from run to run; nothing else does.
	Checked time.Duration
}

// Simulation is the simulator's account of a run: how it ended, and its
// world, for the trace.
type Simulation struct {
	Result sim.Result
	World  *sim.World
	// Simulated is the wall time the run took in the simulator.
	Simulated time.Duration
}

// Failed reports whether a check found a violation.
func (o *Outcome) Failed() bool { return len(o.Violations) > 0 }

// faultSeed separates the random faults' draws from the world's choices,
// and swarmSeed a swarm's draw of a seed's mix from both.
const (
	faultSeed = 0x6661756c74
	swarmSeed = 0x737761726d
)

// Run runs spec once with seed and checks it. The error reports a spec
// that cannot run or a simulator failure, not a violation: those are in
// the Outcome.
func Run(spec Spec, seed uint64, opt Options) (*Outcome, error) {
	spec, k, err := spec.withDefaults()
	if err != nil {
		return nil, err
	}
	for _, c := range spec.Checks {
		if _, err := models.Lookup(c); err != nil {
			return nil, fmt.Errorf("checks: %w", err)
		}
	}
	herd := slices.Contains(spec.Checks, "herd")
	cfg := spec.Ensemble
	cfg.Seed, cfg.Source = seed, opt.Source
	cfg.KeepTrace = opt.KeepTrace || herd
	cfg.KeepChanges = opt.KeepTrace // a replay's trace may be stepped through; the herd check's only counted
	sched := spec.schedule(seed, cfg.ServerCount())
	if cfg.ProgressBound == 0 {
		cfg.ProgressBound = progressBound(spec, sched)
	}
	out, r, err := simulate(spec, k, cfg, sched, opt.Stop)
	if err != nil {
		return out, err
	}
	began := time.Now()
	defer func() { out.Checked = time.Since(began) }()
	if vs := out.Result.Violations; len(vs) > 0 {
		return out, fmt.Errorf("the simulator's self-checks failed (a simulator bug): %v", vs)
	}
	if err := ended(out.Result.Err); err != nil {
		return out, err
	}
	out.Input = checkInput(out, r, k, cfg, opt.CheckLimit, herd)
	out.Coverage.Add(k.Situations(out.Input.Ops))
	failures, stopped := simEnding(out.Result.Err)
	vs, err := judge(out, failures, stopped)
	if err != nil {
		return out, err
	}
	if !cfg.KeepTrace && needsCauses(vs) {
		// The cause is read from the trace, which this run did not keep:
		// the same run again, keeping it (it repeats exactly).
		opt.KeepTrace = true
		return Run(spec, seed, opt)
	}
	explainFromTrace(out.World, out.Result.Err, vs)
	settle(out, vs)
	return out, nil
}

// simulate builds the world of cfg, starts the kind's workload in it,
// injects sched and runs it: the outcome before any check, and the
// workload's run, which recorded its history.
func simulate(spec Spec, k *workload.Kind, cfg sim.Config, sched fault.Schedule, stop func() bool) (*Outcome, *workload.Run, error) {
	w, err := sim.New(cfg)
	if err != nil {
		return nil, nil, err
	}
	if stop != nil {
		w.StopWhen(stop)
	}
	r := k.Start(spec.plan(), workload.Launch{World: simClients{w}, Impl: spec.implementation(k),
		Bound: runBound(spec, k, sched, cfg.ServerCount())})
	if err := w.Inject(sched); err != nil {
		return nil, nil, fmt.Errorf("faults: %w", err)
	}
	began := time.Now()
	res := w.Run()
	out := &Outcome{Spec: spec, Seed: cfg.Seed, Schedule: sched, Simulation: &Simulation{Result: res, World: w, Simulated: time.Since(began)}}
	out.Coverage = coverageOf(sched, res, w.Trace().All())
	return out, r, nil
}

// checkInput is what the checks judge of a run: its history (the
// workload's and the stores'), whether it got stuck, the liveness bound
// (allowing for the schedule's pauses and quorum losses), the kind's
// settings, and the servers' traffic when the herd check runs.
func checkInput(out *Outcome, r *workload.Run, k *workload.Kind, cfg sim.Config, limit time.Duration, herd bool) *models.Input {
	res, spec := out.Result, out.Spec
	var (
		dead  *sim.DeadlockError
		still *sim.NoProgressError
	)
	in := &models.Input{
		Ops: r.History(int64(res.End)),
		End: int64(res.End),
		// Nothing could happen any more, or nothing did for longer than
		// any wait may last (clients that poll never deadlock).
		Stuck:          errors.As(res.Err, &dead) || errors.As(res.Err, &still),
		Bound:          spec.Bound,
		SessionTimeout: cfg.SessionTimeout,
		CheckLimit:     limit,
	}
	k.Input(in, spec.plan())
	in.Bound = r.Bound()
	if herd {
		in.Traffic = Traffic(out.World.Trace())
	}
	worldEvidence(in, out.World, slices.Contains(spec.Checks, "leaks"))
	return in
}

// worldEvidence adds to in what the world saw beside the clients'
// operations: the foreign deletes (for the ownership check) and, when
// leaks are judged, the nodes left behind.
func worldEvidence(in *models.Input, w *sim.World, leaks bool) {
	if leaks {
		for _, l := range w.Leftovers() {
			in.Leftovers = append(in.Leftovers, models.Leftover{Path: l.Path, Creator: l.Creator, Client: l.Client,
				Closed: int64(l.Closed)})
		}
	}
	for _, d := range w.ForeignDeletes() {
		in.ForeignDeletes = append(in.ForeignDeletes, models.ForeignDelete{At: int64(d.At), Path: d.Path,
			Owner: d.Owner, OwnerClient: d.OwnerClient, By: d.By, ByClient: d.ByClient, GivenUp: d.GivenUp})
	}
}

// simEnding is how a simulated run ended, as far as its verdict goes: a
// client that failed (the run ends at the first), or no progress.
func simEnding(err error) ([]ClientFailure, *NoProgress) {
	var (
		failed   *sim.ClientError
		still    *sim.NoProgressError
		failures []ClientFailure
		stopped  *NoProgress
	)
	if errors.As(err, &failed) {
		failures = []ClientFailure{{At: int64(failed.At), Message: fmt.Sprintf("%s failed: %v", failed.Client, failed.Err)}}
	}
	if errors.As(err, &still) {
		stopped = &NoProgress{At: strings.TrimSpace(still.At.String()), Bound: still.Bound}
	}
	return failures, stopped
}

// ended returns nil when the run ended in a way the checks judge: its
// clients finished, or nothing could happen any more, or nothing did for
// too long, or it ran out of virtual time, or a client failed (reported by
// the checks); otherwise the stall or the simulator's failure.
func ended(err error) error {
	var (
		stall  *sim.StallError
		dead   *sim.DeadlockError
		still  *sim.NoProgressError
		budget *sim.BudgetError
		failed *sim.ClientError
	)
	switch {
	case err == nil, errors.As(err, &dead), errors.As(err, &still), errors.As(err, &budget), errors.As(err, &failed):
		return nil
	case errors.As(err, &stall):
		return stall
	case errors.Is(err, sim.ErrStopped):
		return err
	}
	return fmt.Errorf("the simulator failed (a simulator bug): %w", err)
}

// seedRates are the rates seed's random faults are drawn at: the spec's,
// or with Swarm the mix seed draws from them.
func (spec Spec) seedRates(seed uint64) fault.Rates {
	if spec.Swarm {
		return fault.Swarm(sim.NewSeeded(seed^swarmSeed), spec.rates())
	}
	return spec.rates()
}

// schedule is the run's faults: the spec's, and those drawn from seed at
// its rates (or its seed's swarm mix of them) for an ensemble of n servers, the faults tied to requests and
// notifications drawn from what the workload does (repertoire).
func (spec Spec) schedule(seed uint64, n int) fault.Schedule {
	sched := slices.Clone(spec.Faults)
	if spec.Rates != nil {
		sched = append(sched, fault.RandomScheduleFor(sim.NewSeeded(seed^faultSeed), spec.seedRates(seed), spec.Horizon, n, spec.Clients,
			spec.repertoire())...)
	}
	return sched
}

// withoutQuorum is how long, at most, the crashes and server pauses of
// sched leave the ensemble without a quorum: nobody can get anything done then, and the
// liveness bound allows for it (a crash of "the leader" is counted as one
// more server down, which may overcount, never undercount).
func withoutQuorum(sched fault.Schedule, n int) time.Duration {
	type edge struct {
		at    time.Duration
		delta int
	}
	var edges []edge
	for _, f := range sched {
		switch {
		case f.Kind == fault.Crash && f.When == nil && f.For > 0:
			edges = append(edges, edge{f.At, 1}, edge{f.At + f.For, -1})
		case f.Kind == fault.Pause && f.A.Kind != fault.ClientT && f.When == nil:
			edges = append(edges, edge{f.At, 1}, edge{f.At + f.D, -1}) // a stopped server is as good as down
		}
	}
	slices.SortFunc(edges, func(a, b edge) int { return cmp.Compare(a.at, b.at) })
	var total, since time.Duration
	down := 0
	for _, e := range edges {
		before := down
		down += e.delta
		lost := n - n/2 // the fewest servers down that take the quorum
		switch {
		case before < lost && down >= lost:
			since = e.at
		case before >= lost && down < lost:
			total += e.at - since
		}
	}
	return total
}

// runBound is the liveness bound a run of spec is judged by, in either
// world: the spec's, or the kind's (kind.input), or the default, stretched
// by the schedule's pauses and quorum losses (a paused process holds up
// whoever waits for it, rightly). A workload that waits to see whether
// something happens waits past it (workload.Launch.Bound), so that the checks can
// judge.
func runBound(spec Spec, k *workload.Kind, sched fault.Schedule, servers int) time.Duration {
	in := &models.Input{Bound: spec.Bound, SessionTimeout: spec.Ensemble.SessionTimeout}
	k.Input(in, spec.plan())
	if spec.Bound == 0 {
		in.Bound = in.BoundOrDefault() + paused(sched) + withoutQuorum(sched, servers)
	}
	return in.Bound
}

// progressBound is how long a run may go without any client making
// progress or the data tree changing before it is ended: longer than any
// wait may last (the liveness bound, with the faults' allowance), and a
// session timeout more, so that ending it there changes no verdict but
// spares running polling clients to the virtual-time budget.
func progressBound(spec Spec, sched fault.Schedule) time.Duration {
	timeout := spec.SessionTimeout()
	in := models.Input{Bound: spec.Bound, SessionTimeout: timeout}
	return in.BoundOrDefault() + paused(sched) + withoutQuorum(sched, spec.Ensemble.ServerCount()) + timeout
}

// paused is how long the faults of sched may hold progress up by design,
// which the liveness bound allows for on top of its own: process pauses,
// disconnects (the session may outlive them, its ephemeral nodes with it),
// lags, delayed messages, and an outage of the whole ensemble (its
// sessions' timers restart when it comes back).
func paused(sched fault.Schedule) time.Duration {
	var d time.Duration
	for _, f := range sched {
		switch f.Kind {
		case fault.Pause:
			if f.A.Kind == fault.ClientT {
				d += f.D
			}
		case fault.Delay:
			d += f.D
		case fault.Disconnect, fault.Lag:
			d += f.For
		case fault.Crash:
			if f.A.Kind == fault.ServerT && f.A.Index == 0 {
				d += f.For // one server's share of an outage, counted once
			}
		}
	}
	return d
}

// HashString renders a trace hash as the tool prints it.
func HashString(h uint64) string { return fmt.Sprintf("%016x", h) }

// Replay runs one seed of spec again, keeping its trace: the run a
// Failure names, exactly.
func Replay(spec Spec, seed uint64) (*Outcome, error) {
	return Run(spec, seed, Options{KeepTrace: true})
}

// WithSchedule is spec with its faults replaced by sched (and no random
// ones): the spec a shrunk or explored counterexample replays with.
func (spec Spec) WithSchedule(sched fault.Schedule) Spec {
	spec.Faults, spec.Rates = sched, nil
	return spec
}
