package scenarios

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/live"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/workload"
)

// LiveOptions say where and how long a scenario runs live.
type LiveOptions struct {
	// Servers are the ensemble's client addresses.
	Servers []string
	// Ensemble is the local ensemble, when the run has one: faults on
	// servers (crash, restart) need it.
	Ensemble *live.Ensemble
	// Timeout bounds the run in real time (default: the liveness bound
	// plus a minute); clients still waiting then are stopped, their
	// operations pending.
	Timeout time.Duration
	// Log receives the fault injector's notes (default: nothing).
	Log io.Writer
	// Progress, when set, receives a line every few seconds saying where
	// the run stands and what it still waits for.
	Progress io.Writer
	// Interrupt, when it closes, ends the run as its time bound would
	// (the clients stopped, what finished judged): an interrupted command
	// still reports what its run did.
	Interrupt <-chan struct{}
}

// LiveOutcome is a live run and what the checks made of it.
type LiveOutcome struct {
	Outcome
	// Placement is, client by client, the order in which its sessions
	// try the servers (0-based): the simulator's for the same seed
	// (simPlacement), or nil when the library shuffled them.
	Placement [][]int
	// Skipped are the faults a live ensemble cannot inject here (a
	// partition between servers, a latency spike, ...), left out.
	Skipped []string
	// Injected are the faults that struck, in the order they did;
	// NeverStruck, those scheduled that did not (the run ended first, or
	// their trigger never came): a live pass is worth the faults it met.
	Injected    []live.StruckFault
	NeverStruck fault.Schedule
	// Weak says why the run met too few of its faults to be a pass ("":
	// it met enough): a fault the scenario names that never struck, or
	// none of its random faults. A weak run is not as expected.
	Weak string
	// Unreached are the faults that never struck because the live run
	// never reached their trigger: the client made fewer requests of its
	// type, or had fewer notifications, than the fault waits for (a
	// random fault tied to a late request, which the simulator's run of
	// the seed made), each with how far the client got. A miss of the
	// live run's, not the recipe's: see Against.
	Unreached []string
	// TimedOut says the run reached its Timeout with clients still going.
	TimedOut bool
	// Interrupted says LiveOptions.Interrupt ended the run.
	Interrupted bool
	// Stopped are the clients still at work when the run was ended (its
	// time bound, quiet, an interrupt): their calls ended with the run,
	// which is no failure of theirs.
	Stopped []string
	// Quiesced says the run ended because nothing could happen any more
	// (liveQuiet): its clients waited, no fault was to come, and nothing
	// returned for longer than the liveness bound and a session timeout;
	// as a simulated run ends, and judged as it stood.
	Quiesced bool
	// NotJudged are the spec's checks the live world cannot judge (the
	// ownership check: it does not see whose node a delete removed), left
	// out of the run's checks and said, never passed silently.
	NotJudged []string
	// Wall is how long the run took.
	Wall time.Duration
	// Counters is the clients' traffic, counted at their end.
	Counters live.Counters
}

// RunLive runs spec once against a live ensemble, with the same
// workload, recording and checks as in the simulator (seed draws the
// random faults): spec → the live world (live.World: clients as
// goroutines, each with its own session, one at a time between their
// blocking calls, as in the simulator) → the recording → the judgement
// both worlds share. The herd check is made from the clients'
// notifications and requests (liveherd.go).
func RunLive(spec Spec, seed uint64, opt LiveOptions) (*LiveOutcome, error) {
	spec, k, err := spec.withDefaults()
	if err != nil {
		return nil, err
	}
	if len(opt.Servers) == 0 {
		return nil, errors.New("live: no servers")
	}
	var notJudged []string
	spec.Checks, notJudged = liveChecks(spec.Checks)
	out := &LiveOutcome{Outcome: Outcome{Spec: spec, Seed: seed, Schedule: spec.schedule(seed, len(opt.Servers))},
		NotJudged: notJudged}
	w := live.NewWorld(opt.Ensemble, opt.Log)
	run := &liveEvidence{w: w, notes: &liveNotes{}}
	// The holders start 50ms apart: a client on a follower takes some
	// milliseconds for each of its first writes (through the leader), and
	// one on the leader would overtake it 5ms behind, as it does not in
	// the simulator.
	clients := &liveClients{w: w}
	r := k.Start(spec.plan(), workload.Launch{World: clients, Impl: spec.implementation(k),
		Bound: runBound(spec, k, out.Schedule, len(opt.Servers)), StartGap: liveStartGap})
	timed, armed, err := sortFaults(w, out, opt.Ensemble != nil, opt.Ensemble != nil && opt.Ensemble.LinksProxied())
	if err != nil {
		return nil, err
	}
	timeout := liveTimeout(spec, opt)
	// The run ends by cancellation, not a deadline: a workload retries a
	// call that timed out on a deadline of its own (an expected fault),
	// but not one whose run is over.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The locks' nodes are read as the run ends, before the waiters give
	// up (each deletes its node as it stops), for the liveness story.
	var once sync.Once
	end := func() { once.Do(func() { run.snapshotLocks(opt.Servers, r); cancel() }) }
	stop := time.AfterFunc(timeout, end)
	defer stop.Stop()
	var interrupted atomic.Bool
	if opt.Interrupt != nil {
		go func() {
			select {
			case <-opt.Interrupt:
				interrupted.Store(true)
				w.Abandon(interruptGrace)
				end()
			case <-ctx.Done():
			}
		}()
	}
	clients.over = func() bool { return ctx.Err() != nil }
	defer w.Close()
	out.Placement = simPlacement(spec, seed, len(opt.Servers))
	err = w.Dial(ctx, live.DialOptions{Servers: opt.Servers, Placed: out.Placement, SessionTimeout: spec.Ensemble.SessionTimeout,
		LocalSessionLoss: spec.Ensemble.LocalSessionLoss, Wait: min(30*time.Second, timeout)})
	if err != nil {
		return nil, err
	}
	for i, p := range w.Processes() {
		run.notes.listen(p.Faults(), i, w.Origin(), opt.Servers)
	}
	defer w.StrikeOnTime(timed)()
	clients.faultsAhead = w.FaultsPending(timed, spec.Ensemble.SessionTimeout)
	clients.holds = w.HoldsHook(timed)
	quiet := newLiveQuiet(r.Bound(), spec.SessionTimeout())
	clients.progressed = append(clients.progressed, quiet.progressed)
	stopWatch := quiet.watch(clients.faultsAhead, end)
	errs := runLiveClients(ctx, w, clients, opt.Progress, timed, timeout, quiet)
	stopWatch()
	out.Wall = time.Since(w.Origin())
	out.Quiesced = quiet.ended.Load()
	out.Interrupted = interrupted.Load()
	out.TimedOut = ctx.Err() != nil && !out.Quiesced && !out.Interrupted
	out.Injected, out.NeverStruck = w.Tally(timed, armed)
	out.Weak = liveWeakness(out)
	counts := make([]triggerCounts, len(w.Processes()))
	for i, p := range w.Processes() {
		counts[i] = p.Faults()
	}
	out.Unreached = unreached(out.NeverStruck, counts)
	err = judgeLive(out, r, k, run, errs, opt.Servers)
	if out.Input != nil {
		out.Coverage = liveCoverage(out, k)
	}
	return out, err
}

// liveEvidence is what a live run keeps beside its world for the checks and
// their explanations: the clients' notifications (the herd check) and the
// locks' nodes as the run ended.
type liveEvidence struct {
	w     *live.World
	notes *liveNotes
	// ending are the locks' nodes as the run ended cut short (by its time
	// bound, or quiet), by lock (snapshotLocks).
	ending map[string][]sim.NodeInfo
}

// runLiveClients runs the world's clients, showing progress on
// progressOut when set, and returns each client's error.
func runLiveClients(ctx context.Context, w *live.World, clients *liveClients, progressOut io.Writer, timed []fault.Fault,
	timeout time.Duration, quiet *liveQuiet) []error {
	if progressOut == nil {
		return w.Run(ctx, nil)
	}
	var names []string
	for _, p := range w.Processes() {
		names = append(names, p.Name())
	}
	progress := newLiveProgress(progressOut, names, timed, timeout)
	progress.quiet = quiet
	clients.progressed = append(clients.progressed, func() { progress.ok.Add(1) })
	go progress.run()
	defer progress.end()
	return w.Run(ctx, func(i int) { progress.done[i].Store(true) })
}

// liveTimeout is the run's bound: the options', or the liveness bound
// and a minute.
func liveTimeout(spec Spec, opt LiveOptions) time.Duration {
	if opt.Timeout > 0 {
		return opt.Timeout
	}
	in := models.Input{Bound: spec.Bound, SessionTimeout: spec.Ensemble.SessionTimeout}
	return in.BoundOrDefault() + time.Minute
}

// sortFaults sorts the run's schedule: faults tied to a client's request
// are armed in its dialer, those at a time are returned to be struck by
// timers; a random fault the live world cannot make is skipped (and
// said), one the scenario names is refused.
func sortFaults(w *live.World, out *LiveOutcome, haveEnsemble, proxied bool) (timed, armed []fault.Fault, err error) {
	spec := out.Spec
	for _, f := range out.Schedule {
		ok, err := w.Arm(f)
		switch {
		case err != nil:
			return nil, nil, fmt.Errorf("faults: %q: %w", f, err)
		case ok:
			armed = append(armed, f)
		case (f.When == nil || f.When.On == fault.OnHolds) && live.Timed(f, haveEnsemble, proxied):
			timed = append(timed, f) // at a time, or when a client holds (World.HoldsHook)
		default:
			if spec.Rates == nil || slices.ContainsFunc(spec.Faults, f.Equal) {
				return nil, nil, live.NotInjectable(f)
			}
			out.Skipped = append(out.Skipped, f.String())
		}
	}
	return timed, armed, nil
}

// simOnlyChecks are the checks only the simulator can judge: the
// ownership check reads which session owned each node a delete removed,
// the leaks check which session made each node left, which the servers
// know and a live client does not.
var simOnlyChecks = []string{"ownership", "leaks"}

// liveChecks splits checks into those a live run judges and those it
// cannot (simOnlyChecks).
func liveChecks(checks []string) (judged, not []string) {
	for _, c := range checks {
		if slices.Contains(simOnlyChecks, c) {
			not = append(not, c)
		} else {
			judged = append(judged, c)
		}
	}
	return judged, not
}

// judgeLive records the run's traffic and history and judges it as a
// simulated run is judged (judge, settle): a client's error is a failure
// unless the run's time was up; the liveness bound allows for the
// schedule's pauses and quorum losses.
func judgeLive(out *LiveOutcome, r *workload.Run, k *workload.Kind, run *liveEvidence, errs []error, servers []string) error {
	spec := out.Spec
	w := run.w
	out.Counters = w.Counters()
	end := int64(out.Wall)
	var failures []ClientFailure
	over := out.TimedOut || out.Quiesced || out.Interrupted
	for i, err := range errs {
		name := w.Processes()[i].Name()
		switch {
		case err == nil:
		case over && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)):
			out.Stopped = append(out.Stopped, name)
		default:
			failures = append(failures, ClientFailure{Message: fmt.Sprintf("%s failed: %v", name, err)})
		}
	}
	in := &models.Input{Ops: r.History(end), End: end, SessionTimeout: spec.Ensemble.SessionTimeout, Traffic: run.notes.traffic()}
	k.Input(in, spec.plan())
	in.Bound = r.Bound()
	out.Input = in
	vs, err := judge(&out.Outcome, failures, nil)
	if err != nil {
		return err
	}
	run.explain(servers, out.Injected, vs)
	settle(&out.Outcome, vs)
	return nil
}

// interruptGrace is how long an interrupted live run waits for its clients
// to return before it judges what they did: a recipe cleaning up through a
// disconnect would otherwise hold the run for its own timeout.
const interruptGrace = 2 * time.Second

// liveStartGap is workload.Launch.StartGap live.
const liveStartGap = 50 * time.Millisecond

// CheckLive refuses, before anything starts, a spec whose scheduled
// faults the live world cannot inject (local: on a local ensemble it
// starts, whose servers it can crash). Random faults it cannot inject are
// skipped when the run draws them, and reported.
func CheckLive(spec Spec, local bool) error {
	for _, f := range spec.Faults {
		if !live.Injectable(f, local, local) { // a local ensemble is started with its links proxied when they need to be
			return live.NotInjectable(f)
		}
	}
	return nil
}

// CheckLiveScenario is CheckLive for a scenario, which also refuses one
// whose expected verdict names a check only the simulator judges
// (simOnlyChecks): live, it could never be met.
func CheckLiveScenario(sc *Scenario, local bool) error {
	if slices.Contains(simOnlyChecks, sc.Expect.Check) {
		return fmt.Errorf("%s expects a violation of the %s check, which only the simulator judges "+
			"(a live client does not see whose node a delete removes)", sc.Name, sc.Expect.Check)
	}
	return CheckLive(sc.Spec, local)
}

// liveWeakness says why a live run met too few of its faults to count as
// a pass: a fault the scenario names (its faults:) that never struck (a
// heal or a restart excepted: it only undoes one), or, for random faults,
// none struck at all. "" when it met enough.
func liveWeakness(out *LiveOutcome) string {
	for _, f := range out.Spec.Faults {
		if undoes(f) {
			continue // a heal or a restart that came after the workload met nothing it had to
		}
		if slices.ContainsFunc(out.NeverStruck, f.Equal) {
			return fmt.Sprintf("the scenario's fault %q never struck", f)
		}
	}
	if len(out.Injected) == 0 && len(out.NeverStruck) > 0 {
		return fmt.Sprintf("none of its %d faults struck", len(out.NeverStruck))
	}
	return ""
}

// triggerCounts is how far a live client got, for the faults tied to its
// requests and notifications (live.ClientFaults).
type triggerCounts interface {
	Made(op client.Op, failed bool) int
	Notified() int
}

// unreached words, of the faults never struck, those whose trigger the
// clients (counts, client i's the i-th) never reached, with how far each
// got.
func unreached(never fault.Schedule, counts []triggerCounts) []string {
	var out []string
	for _, f := range never {
		t := f.When
		if t == nil || t.Client < 0 || t.Client >= len(counts) {
			continue
		}
		faults := counts[t.Client]
		var made int
		var what string
		switch t.On {
		case fault.OnApplied, fault.OnReceived, fault.OnFailed:
			made = faults.Made(t.Op, t.On == fault.OnFailed)
			what = fmt.Sprintf("%s requests", t.Op)
			if t.On == fault.OnFailed {
				what = fmt.Sprintf("%s requests answered with an error", t.Op)
			}
		case fault.OnNotified:
			made, what = faults.Notified(), "notifications"
		default:
			continue
		}
		if made < t.Nth {
			out = append(out, fmt.Sprintf("%q: c%d's trigger never came live (%d %s; it waits for the %s)",
				f.String(), t.Client+1, made, what, ordinal(t.Nth)))
		}
	}
	return out
}

// ordinal is n as "1st", "2nd", "3rd", "4th", ...
func ordinal(n int) string {
	switch {
	case n%100 >= 11 && n%100 <= 13:
		return fmt.Sprintf("%dth", n)
	case n%10 == 1:
		return fmt.Sprintf("%dst", n)
	case n%10 == 2:
		return fmt.Sprintf("%dnd", n)
	case n%10 == 3:
		return fmt.Sprintf("%drd", n)
	}
	return fmt.Sprintf("%dth", n)
}

// Against says whether the live run was as e expects, and, when it was
// not for want of faults, why (weak): the run's own weakness (Weak), or,
// when it missed its verdict, the faults whose trigger it never reached
// (Unreached): a fault tied to a late request that the live clients did
// not make is the live run's miss, not a failure of the recipe.
func (o *LiveOutcome) Against(e Expectation) (as bool, weak string) {
	met := e.Met(o.Violations)
	switch {
	case o.Weak != "":
		return false, o.Weak
	case !met && len(o.Unreached) > 0:
		return false, "the fault " + strings.Join(o.Unreached, "; the fault ")
	}
	return met, ""
}

// undoes reports whether f only undoes an earlier fault (a heal, a
// restart): the workload need not meet it for the run to be worth its
// faults.
func undoes(f fault.Fault) bool { return f.Kind == fault.Heal || f.Kind == fault.Restart }

// NeedsProxiedLinks reports whether spec's faults act on the links
// between servers, named or drawn at random (live.NeedsProxiedLinks): its
// local ensemble must be started with its links proxied.
func NeedsProxiedLinks(spec Spec) bool { return live.NeedsProxiedLinks(spec.Faults, spec.Rates) }
