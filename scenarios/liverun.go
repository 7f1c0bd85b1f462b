package scenarios

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/live"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/sim"
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
	Injected    []StruckFault
	NeverStruck []string
	// Weak says why the run met too few of its faults to be a pass ("":
	// it met enough): a fault the scenario names that never struck, or
	// none of its random faults. A weak run is not as expected.
	Weak string
	// TimedOut says the run reached its Timeout with clients still going.
	TimedOut bool
	// Interrupted says LiveOptions.Interrupt ended the run.
	Interrupted bool
	// Quiesced says the run ended because nothing could happen any more
	// (liveQuiet): its clients waited, no fault was to come, and nothing
	// returned for longer than the liveness bound and a session timeout;
	// as a simulated run ends, and judged as it stood.
	Quiesced bool
	// Wall is how long the run took.
	Wall time.Duration
	// Counters is the clients' traffic, counted at their end.
	Counters live.Counters
}

// RunLive runs spec once against a live ensemble, with the same
// workload, recording and checks as in the simulator (seed draws the
// random faults). Clients run as goroutines, each with its own session,
// but one at a time (a client runs only between its blocking calls, as in
// the simulator), so the workloads' shared bookkeeping needs no locks.
// The herd check is made from the clients' notifications and requests
// (liveherd.go).
func RunLive(spec Spec, seed uint64, opt LiveOptions) (*LiveOutcome, error) {
	spec, k, err := spec.withDefaults()
	if err != nil {
		return nil, err
	}
	if len(opt.Servers) == 0 {
		return nil, errors.New("live: no servers")
	}
	out := &LiveOutcome{Outcome: Outcome{Spec: spec, Seed: seed, Schedule: spec.schedule(seed, len(opt.Servers))}}
	w := &liveWorld{origin: time.Now(), log: opt.Log, notes: &liveNotes{}}
	if w.log == nil {
		w.log = io.Discard
	}
	// The holders start 50ms apart: a client on a follower takes some
	// milliseconds for each of its first writes (through the leader), and
	// one on the leader would overtake it 5ms behind, as it does not in
	// the simulator.
	r := &runner{spec: spec, impl: k.implementation(spec), rec: &recording{}, resources: map[string]*resource{},
		startGap: liveStartGap}
	r.start = func(name string, servers []int, body clientBody) {
		w.clients = append(w.clients, &liveClient{w: w, name: name, servers: servers, body: body,
			faults: live.NewClientFaults(), proc: &liveProcess{}})
	}
	k.spawn(r)
	timed, armed, err := w.sortFaults(out, opt.Ensemble != nil, opt.Ensemble != nil && opt.Ensemble.LinksProxied())
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
	end := func() { once.Do(func() { w.snapshotLocks(opt.Servers, r.rec); cancel() }) }
	stop := time.AfterFunc(timeout, end)
	defer stop.Stop()
	var interrupted atomic.Bool
	if opt.Interrupt != nil {
		go func() {
			select {
			case <-opt.Interrupt:
				interrupted.Store(true)
				end()
			case <-ctx.Done():
			}
		}()
	}
	r.rec.over = func() bool { return ctx.Err() != nil }
	defer w.closeSessions()
	out.Placement = simPlacement(spec, seed, len(opt.Servers))
	if err := w.dial(ctx, spec, opt.Servers, out.Placement, min(30*time.Second, timeout)); err != nil {
		return nil, err
	}
	w.origin = time.Now()
	for i, c := range w.clients {
		w.notes.listen(c.faults, i, w.origin, opt.Servers)
	}
	defer w.strikeOnTime(timed, opt.Ensemble)()
	r.more = w.faultsPending(timed, spec.Ensemble.SessionTimeout)
	r.holds = w.holdsHook(timed, opt.Ensemble)
	quiet := newLiveQuiet(liveBound(spec, k, out.Schedule, len(opt.Servers)), sessionTimeoutOf(spec))
	r.rec.progressed = quiet.progressed
	stopWatch := quiet.watch(r.more, end)
	errs := w.runClients(ctx, r.rec, opt.Progress, timed, timeout, quiet)
	stopWatch()
	out.Wall = time.Since(w.origin)
	out.Quiesced = quiet.ended.Load()
	out.Interrupted = interrupted.Load()
	out.TimedOut = ctx.Err() != nil && !out.Quiesced && !out.Interrupted
	out.Injected, out.NeverStruck = w.tally(timed, armed)
	out.Weak = liveWeakness(out)
	err = judgeLive(out, r, k, w, errs, opt.Servers)
	if out.Input != nil {
		out.Coverage = liveCoverage(out, k)
	}
	return out, err
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
func (w *liveWorld) sortFaults(out *LiveOutcome, haveEnsemble, proxied bool) (timed, armed []fault.Fault, err error) {
	spec := out.Spec
	for _, f := range out.Schedule {
		ok, err := armLive(w, f)
		switch {
		case err != nil:
			return nil, nil, fmt.Errorf("faults: %q: %w", f, err)
		case ok:
			armed = append(armed, f)
		case (f.When == nil || f.When.On == fault.OnHolds) && liveKind(f, haveEnsemble, proxied):
			timed = append(timed, f) // at a time, or when a client holds (w.holds)
		default:
			if spec.Rates == nil || slices.Contains(spec.Faults, f) {
				return nil, nil, notLive(f)
			}
			out.Skipped = append(out.Skipped, f.String())
		}
	}
	return timed, armed, nil
}

// dial opens every client's session, to the servers in the order placed
// gives for it (its index; see simPlacement), or without it to its servers
// (all of them unless it names some) in the library's shuffled order, and
// waits until each has one, so that clients start in order, as in the
// simulator. Servers that cannot be reached end the run after wait.
func (w *liveWorld) dial(ctx context.Context, spec Spec, servers []string, placed [][]int, wait time.Duration) error {
	for i, c := range w.clients {
		order := c.servers
		if i < len(placed) {
			order = placed[i]
		}
		addrs := servers
		if len(order) > 0 {
			addrs = nil
			for _, s := range order {
				if s < len(servers) {
					addrs = append(addrs, servers[s])
				}
			}
		}
		conn, err := live.Dial(addrs, live.Options{SessionTimeout: spec.Ensemble.SessionTimeout, Dialer: c.faults.Dialer(),
			LocalSessionLoss: spec.Ensemble.LocalSessionLoss, InOrder: i < len(placed)})
		if err != nil {
			return err
		}
		c.conn = conn
		c.proc.sessions = []*live.Conn{conn}
	}
	deadline := time.Now().Add(wait)
	for _, c := range w.clients {
		for c.conn.State() != zk.StateHasSession {
			if time.Now().After(deadline) || ctx.Err() != nil {
				return fmt.Errorf("live: %s got no session from %v within %s", c.name, servers, wait)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	return nil
}

// faultsPending is runner.more for a live run: the workload goes on past
// its rounds until every fault at a time or tied to a holding has struck
// and been undone, and a session timeout more has passed for the ensemble
// and the sessions to recover, so that every fault strikes while clients
// are at work (the run's time bound still ends it).
func (w *liveWorld) faultsPending(timed []fault.Fault, settle time.Duration) func() bool {
	if len(timed) == 0 {
		return nil
	}
	if settle == 0 {
		settle = 10 * time.Second
	}
	return func() bool {
		now := time.Since(w.origin)
		w.struckMu.Lock()
		defer w.struckMu.Unlock()
		for _, f := range timed {
			at := f.At
			if f.When != nil { // tied to a holding: when it struck, if it has
				i := slices.IndexFunc(w.struck, func(s StruckFault) bool { return s.Fault == f.String() })
				if i < 0 {
					return true
				}
				at = w.struck[i].At
			}
			if now < at+f.For+f.D+settle {
				return true
			}
		}
		return false
	}
}

// holdsHook is runner.holds for a live run: the faults tied to "cN
// holds#K" strike when client N's workload holds for the Kth time. The
// workload calls it with the world's lock held, one client at a time.
func (w *liveWorld) holdsHook(timed []fault.Fault, e *live.Ensemble) func(int) {
	counts := make([]int, len(w.clients))
	return func(i int) {
		counts[i]++
		for _, f := range timed {
			if t := f.When; t != nil && t.On == fault.OnHolds && t.Client == i && t.Nth == counts[i] {
				w.strike(f, e)
			}
		}
	}
}

// closeSessions closes every session the clients opened, all at once:
// the library waits up to a second for a server to answer each close, so
// closing them one after another could outlast the run's time bound
// against servers that accept connections and never answer.
func (w *liveWorld) closeSessions() {
	var wg sync.WaitGroup
	for _, c := range w.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.proc.closeAll()
		}()
	}
	wg.Wait()
}

// strikeOnTime sets a timer for each timed fault, from the run's origin,
// and returns what stops them.
func (w *liveWorld) strikeOnTime(timed []fault.Fault, e *live.Ensemble) func() {
	var timers []*time.Timer
	for _, f := range timed {
		if f.When == nil {
			timers = append(timers, time.AfterFunc(f.At, func() { w.strike(f, e) }))
		}
	}
	return func() {
		for _, t := range timers {
			t.Stop()
		}
	}
}

// runClients runs every client's body, one at a time between their
// blocking calls (the world's lock), showing progress on progressOut
// when set, and returns each client's error.
func (w *liveWorld) runClients(ctx context.Context, rec *recording, progressOut io.Writer, timed []fault.Fault, timeout time.Duration,
	quiet *liveQuiet) []error {
	var progress *liveProgress
	if progressOut != nil {
		names := make([]string, len(w.clients))
		for i, c := range w.clients {
			names[i] = c.name
		}
		progress = newLiveProgress(progressOut, names, timed, timeout)
		progress.quiet = quiet
		also := rec.progressed
		rec.progressed = func() {
			progress.ok.Add(1)
			if also != nil {
				also()
			}
		}
		go progress.run()
	}
	var wg sync.WaitGroup
	errs := make([]error, len(w.clients))
	w.gil.Lock()
	for i, c := range w.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.gil.Lock()
			defer w.gil.Unlock()
			errs[i] = c.body(ctx, c)
			if progress != nil {
				progress.done[i].Store(true)
			}
		}()
	}
	w.gil.Unlock()
	wg.Wait()
	if progress != nil {
		progress.end()
	}
	return errs
}

// judgeLive records the run's traffic and history and checks it: a
// client's error is a violation unless the run's time was up; the
// liveness bound allows for the schedule's pauses and quorum losses.
func judgeLive(out *LiveOutcome, r *runner, k *kind, w *liveWorld, errs []error, servers []string) error {
	spec := out.Spec
	for _, c := range w.clients {
		n := c.proc.counters()
		out.Counters.Requests += n.Requests
		out.Counters.Notifications += n.Notifications
	}
	end := int64(out.Wall)
	out.Result = sim.Result{End: sim.Time(end)}
	for i, err := range errs {
		over := out.TimedOut || out.Quiesced
		if err != nil && !(over && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled))) {
			out.Violations = append(out.Violations, models.Violation{Check: "client", Kind: models.Safety,
				Message: fmt.Sprintf("%s failed: %v", w.clients[i].name, err)})
		}
	}
	ops := r.rec.history(end)
	for _, h := range r.stores {
		ops = append(ops, h.Operations()...)
	}
	in := &models.Input{Ops: ops, End: end, SessionTimeout: spec.Ensemble.SessionTimeout, Traffic: w.notes.traffic()}
	if k.input != nil {
		k.input(in, spec)
	}
	in.Bound = liveBound(spec, k, out.Schedule, len(servers))
	out.Input = in
	vs, err := models.Run(in, spec.Checks...)
	if err != nil {
		return err
	}
	causes := liveWaitCauses(servers, w, out.Injected, vs)
	causes = w.notes.staleSources(servers, out.Injected, vs, causes)
	explain(vs, liveHolderFaults(out.Injected, vs, causes))
	out.Violations = append(out.Violations, vs...)
	return nil
}

// armLive arms a fault tied to a client's request or notification in that
// client's dialer, where the live world can: a lost reply, request or
// notification, a delayed reply or notification. It reports whether it
// did.
func armLive(w *liveWorld, f fault.Fault) (bool, error) {
	t := f.When
	if t == nil {
		return false, nil
	}
	if t.Client >= len(w.clients) {
		return false, fmt.Errorf("no client c%d", t.Client+1)
	}
	faults := w.clients[t.Client].faults
	switch {
	case f.Kind == fault.LoseReply && t.On == fault.OnApplied:
		return true, faults.LoseReply(t.Op, t.Nth)
	case f.Kind == fault.LoseRequest && t.On == fault.OnReceived:
		return true, faults.LoseRequest(t.Op, t.Nth)
	case f.Kind == fault.Delay && t.On == fault.OnApplied:
		return true, faults.DelayReply(t.Op, t.Nth, f.D)
	case (f.Kind == fault.LoseReply || f.Kind == fault.Delay) && t.On == fault.OnNotified:
		faults.Notification(t.Nth, f.D) // D is 0 for a loss
		return true, nil
	case f.Kind == fault.Disconnect && t.On == fault.OnApplied:
		return true, faults.Disconnect(t.Op, t.Nth, f.For)
	case f.Kind == fault.Disconnect && t.On == fault.OnNotified:
		faults.DisconnectOnNotification(t.Nth, f.For)
		return true, nil
	}
	return false, nil
}

// liveStartGap is runner.startGap live.
const liveStartGap = 50 * time.Millisecond

// CheckLive refuses, before anything starts, a spec whose scheduled
// faults the live world cannot inject (local: on a local ensemble it
// starts, whose servers it can crash). Random faults it cannot inject are
// skipped when the run draws them, and reported.
func CheckLive(spec Spec, local bool) error {
	for _, f := range spec.Faults {
		if !liveInjectable(f, local, local) { // a local ensemble is started with its links proxied when they need to be
			return notLive(f)
		}
	}
	return nil
}

// liveInjectable reports whether the live world can inject f: a fault
// tied to a client's request or notification that its dialer can strike,
// or a timed one liveKind allows.
func liveInjectable(f fault.Fault, local, proxied bool) bool {
	if t := f.When; t != nil && t.On != fault.OnHolds {
		switch {
		case f.Kind == fault.LoseReply && t.On == fault.OnApplied, f.Kind == fault.LoseRequest && t.On == fault.OnReceived,
			f.Kind == fault.Delay && t.On == fault.OnApplied, (f.Kind == fault.LoseReply || f.Kind == fault.Delay) && t.On == fault.OnNotified,
			f.Kind == fault.Disconnect && (t.On == fault.OnApplied || t.On == fault.OnNotified):
			return true
		}
		return false
	}
	return liveKind(f, local, proxied)
}

// notLive is the error that refuses a fault the live world cannot inject.
func notLive(f fault.Fault) error {
	return fmt.Errorf("faults: %q cannot be injected on a live ensemble here (live faults: crash sN|leader, "+
		"restart sN, pause cN|sN|leader, disconnect cN for D, partition A B, one-way sA sB, isolate sN, heal, spike EXTRA for D, "+
		"lag sN for D; lose-reply, delay and disconnect on a request applied or a notification, lose-request on a request "+
		"received, expire cN; crashes, server pauses and links need the local ensemble)", f)
}

// tally sorts the run's faults into those that struck, with when, in the
// order they did, and those that did not.
func (w *liveWorld) tally(timed, armed []fault.Fault) (injected []StruckFault, never []string) {
	w.struckMu.Lock()
	struck := slices.Clone(w.struck)
	w.struckMu.Unlock()
	for _, f := range timed {
		i := slices.IndexFunc(struck, func(s StruckFault) bool { return s.Fault == f.String() })
		if i < 0 {
			never = append(never, f.String())
			continue
		}
		injected = append(injected, struck[i])
		struck = slices.Delete(struck, i, i+1)
	}
	for _, f := range armed {
		t := f.When
		faults := w.clients[t.Client].faults
		at, hit := faults.StruckAt(t.Op, t.Nth)
		if t.On == fault.OnNotified {
			at, hit = faults.NotificationStruckAt(t.Nth)
		}
		if !hit {
			never = append(never, f.String())
			continue
		}
		injected = append(injected, struckFault(f.String(), at, w.origin))
	}
	slices.SortStableFunc(injected, func(a, b StruckFault) int { return a.Wall.Compare(b.Wall) })
	return injected, never
}

// StruckFault is a fault a live run injected: when, on the run's clock
// (from its clients' start) and on the wall clock.
type StruckFault struct {
	Fault string        `json:"fault"`
	At    time.Duration `json:"-"`
	AtMs  float64       `json:"at_ms"`
	Wall  time.Time     `json:"wall"`
}

// struckFault is fault, struck at wall on a run that began at origin.
func struckFault(fault string, wall, origin time.Time) StruckFault {
	at := wall.Sub(origin)
	return StruckFault{Fault: fault, At: at, AtMs: float64(at.Microseconds()) / 1000, Wall: wall}
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
		if slices.Contains(out.NeverStruck, f.String()) {
			return fmt.Sprintf("the scenario's fault %q never struck", f)
		}
	}
	if len(out.Injected) == 0 && len(out.NeverStruck) > 0 {
		return fmt.Sprintf("none of its %d faults struck", len(out.NeverStruck))
	}
	return ""
}

// undoes reports whether f only undoes an earlier fault (a heal, a
// restart): the workload need not meet it for the run to be worth its
// faults.
func undoes(f fault.Fault) bool { return f.Kind == fault.Heal || f.Kind == fault.Restart }

// liveKind reports whether a timed fault can be struck live: on a local
// ensemble (local), whose links between servers are proxied (proxied).
func liveKind(f fault.Fault, local, proxied bool) bool {
	switch f.Kind {
	case fault.Crash:
		return local && (f.A.Kind == fault.ServerT || f.A.Kind == fault.LeaderT)
	case fault.Restart:
		return local
	case fault.Pause:
		return f.A.Kind == fault.ClientT || local // a server's process: the local ensemble's
	case fault.Disconnect:
		return f.For > 0
	case fault.Expire: // through a second connection with each session's id and password
		return f.A.Kind == fault.ClientT
	case fault.Partition:
		// A client's link through its dialer (on a local ensemble, whose
		// servers' addresses it knows by index); between two servers
		// through the local ensemble's proxies.
		return local && (f.A.Kind == fault.ClientT || f.B.Kind == fault.ClientT || proxied)
	case fault.Isolate, fault.Heal, fault.Spike:
		return local && proxied
	case fault.OneWay: // between servers through their proxies; a client's link in its dialer
		return local && (proxied || f.A.Kind == fault.ClientT || f.B.Kind == fault.ClientT)
	case fault.Lag:
		// A follower's quorum link, held up; the leader has no such link,
		// so "lag leader" (or the applier, known only when it applies) is
		// the simulator's.
		return local && proxied && f.A.Kind == fault.ServerT
	}
	return false
}

// NeedsProxiedLinks reports whether spec's faults act on the links
// between servers (a partition, an isolation, a heal, a latency spike,
// named or drawn at random): its local ensemble must be started with its
// links proxied (live.EnsembleOptions.ProxyPeers).
func NeedsProxiedLinks(spec Spec) bool {
	for _, f := range spec.Faults {
		switch f.Kind {
		case fault.Partition, fault.OneWay, fault.Isolate, fault.Heal, fault.Spike, fault.Lag:
			return true
		}
	}
	r := spec.Rates
	return r != nil && (r.Partition > 0 || r.Isolate > 0 || r.Spike > 0 || r.Lag > 0)
}

// liveWorld runs a scenario's clients against a live ensemble, one at a
// time: a client holds gil while its code runs and lets go of it while it
// waits on the ensemble or the clock.
type liveWorld struct {
	gil     sync.Mutex
	origin  time.Time
	clients []*liveClient
	log     io.Writer
	notes   *liveNotes // the clients' watch notifications, for the herd check
	// ending are the locks' nodes as the run ended cut short (by its time
	// bound, or quiet), by lock (snapshotLocks).
	ending map[string][]sim.NodeInfo

	struckMu sync.Mutex
	struck   []StruckFault // the timed faults struck, as their timers fired
}

// strike carries out a timed fault.
func (w *liveWorld) strike(f fault.Fault, e *live.Ensemble) {
	fmt.Fprintf(w.log, "live fault at %s: %s\n", time.Since(w.origin).Round(time.Millisecond), f)
	w.struckMu.Lock()
	w.struck = append(w.struck, struckFault(f.String(), time.Now(), w.origin))
	w.struckMu.Unlock()
	server := func(t fault.Target) int {
		if t.Kind == fault.LeaderT {
			return e.Leader()
		}
		return t.Index
	}
	switch f.Kind {
	case fault.Crash:
		i := server(f.A)
		if i < 0 || i >= len(e.Servers) {
			return
		}
		_ = e.Kill(i)
		if f.For > 0 {
			time.AfterFunc(f.For, func() { _ = e.Restart(i) })
		}
	case fault.Restart:
		if f.A.Index < len(e.Servers) {
			_ = e.Restart(f.A.Index)
		}
	case fault.Pause:
		if f.A.Kind != fault.ClientT {
			if i := server(f.A); i >= 0 && i < len(e.Servers) {
				_ = e.Pause(i, f.D)
			}
		} else if f.A.Index < len(w.clients) {
			w.clients[f.A.Index].Pause(f.D)
		}
	case fault.Expire:
		if f.A.Index < len(w.clients) {
			w.clients[f.A.Index].proc.expireAll(w.log)
		}
	case fault.Disconnect:
		// The process's cable pulled: nothing passes, no connection is
		// made, for every session of the process (they share the dialer);
		// the connections stay open, and the library notices the silence
		// when its read deadline passes, as a simulated client does.
		if f.A.Index < len(w.clients) && f.For > 0 {
			w.clients[f.A.Index].faults.Silence(f.For)
		}
	default:
		w.strikeLinks(f, e)
	}
}

// strikeLinks carries out a fault on links: a partition between two
// servers or between a client and a server, a server isolated, links
// healed, every link between servers slowed. Links between servers go
// through the local ensemble's proxies (live/peerlinks.go), a client's
// through its dialer.
func (w *liveWorld) strikeLinks(f fault.Fault, e *live.Ensemble) {
	undo := func(fn func()) {
		if f.For > 0 {
			time.AfterFunc(f.For, fn)
		}
	}
	switch f.Kind {
	case fault.Partition:
		a, b := f.A, f.B
		if a.Kind == fault.ClientT {
			w.clients[a.Index].faults.Cut(e.Servers[b.Index].Addr(), f.For)
			return
		}
		if b.Kind == fault.ClientT {
			w.clients[b.Index].faults.Cut(e.Servers[a.Index].Addr(), f.For)
			return
		}
		w.note(e.Partition(a.Index, b.Index))
		undo(func() { w.note(e.Heal(a.Index, b.Index)) })
	case fault.Isolate:
		i := f.A.Index
		w.note(e.Isolate(i))
		for _, c := range w.clients {
			c.faults.Cut(e.Servers[i].Addr(), f.For)
		}
		undo(func() {
			for j := range e.Servers {
				if j != i {
					w.note(e.Heal(i, j))
				}
			}
		})
	case fault.OneWay:
		switch {
		case f.A.Kind == fault.ClientT: // what the client sends the server
			w.clients[f.A.Index].faults.OneWay(e.Servers[f.B.Index].Addr(), true, f.For)
		case f.B.Kind == fault.ClientT: // what the server sends the client
			w.clients[f.B.Index].faults.OneWay(e.Servers[f.A.Index].Addr(), false, f.For)
		default:
			w.note(e.OneWay(f.A.Index, f.B.Index))
			undo(func() { w.note(e.Heal(f.A.Index, f.B.Index)) })
		}
	case fault.Heal:
		w.heal(f, e)
	case fault.Lag:
		if i := f.A.Index; f.A.Kind == fault.ServerT && i < len(e.Servers) {
			w.note(e.Lag(i, f.For))
			time.AfterFunc(f.For, func() { w.note(e.Lag(i, 0)) })
		}
	case fault.Spike:
		w.note(e.Slow(f.D))
		time.AfterFunc(f.For, func() { w.note(e.Slow(0)) })
		until := time.Now().Add(f.For)
		for _, c := range w.clients {
			c.faults.Slow(f.D, until) // the clients' links too, as in the simulator
		}
	}
}

// heal reopens the links a heal names (every link when it names none).
func (w *liveWorld) heal(f fault.Fault, e *live.Ensemble) {
	a, b := f.A, f.B
	switch {
	case a.Kind == fault.NoTarget:
		w.note(e.HealAll())
		for _, c := range w.clients {
			c.faults.Uncut("")
		}
	case a.Kind == fault.ClientT || b.Kind == fault.ClientT:
		if a.Kind != fault.ClientT {
			a, b = b, a
		}
		w.clients[a.Index].faults.Uncut(e.Servers[b.Index].Addr())
	default:
		w.note(e.Heal(a.Index, b.Index))
	}
}

// note logs an error a fault's action met (the run goes on: a fault that
// could not be made shows in what the run did).
func (w *liveWorld) note(err error) {
	if err != nil {
		fmt.Fprintf(w.log, "live fault: %v\n", err)
	}
}

// liveClient is one client process of a live run: its session, seen
// through the world's one-at-a-time lock, with times counted from the
// run's start (client.Epoch stands for it, as in the simulator, so the
// workloads' clocks read the same).
type liveClient struct {
	w       *liveWorld
	name    string
	servers []int
	body    clientBody
	conn    *live.Conn
	faults  *live.ClientFaults

	proc *liveProcess // shared by the sessions of the process
}

// liveProcess is what the sessions of one client process share: its
// pauses and the sessions it opened, closed when the run ends.
type liveProcess struct {
	pausedUntil atomic.Int64 // unix ns: the process runs no code before
	// inCall counts the process's calls waiting on the ensemble or the
	// clock; cutPending says a pause struck while it ran code, and its
	// connections go quiet at its next call.
	inCall     atomic.Int32
	cutPending atomic.Bool

	mu       sync.Mutex
	sessions []*live.Conn
}

func (p *liveProcess) add(conn *live.Conn) {
	p.mu.Lock()
	p.sessions = append(p.sessions, conn)
	p.mu.Unlock()
}

// expireAll has the ensemble expire every session of the process now
// (live.Conn.Expire), as the simulator's leader does on "expire cN"; one
// already closed is gone already.
func (p *liveProcess) expireAll(log io.Writer) {
	p.mu.Lock()
	sessions := slices.Clone(p.sessions)
	p.mu.Unlock()
	for _, conn := range sessions {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := conn.Expire(ctx); err != nil {
				fmt.Fprintf(log, "live: expire: %v\n", err)
			}
		}()
	}
}

func (p *liveProcess) closeAll() {
	p.mu.Lock()
	sessions := slices.Clone(p.sessions)
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, conn := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn.Close()
		}()
	}
	wg.Wait()
}

// counters sums the traffic of every session of the process.
func (p *liveProcess) counters() live.Counters {
	p.mu.Lock()
	defer p.mu.Unlock()
	var k live.Counters
	for _, conn := range p.sessions {
		n := conn.Counters()
		k.Requests += n.Requests
		k.Notifications += n.Notifications
	}
	return k
}

var _ client.Conn = (*liveClient)(nil)

// Pause stops the process for d: its connection carries nothing (no
// heartbeats) and its code does not run until d has passed.
//
// A process waiting in a call stops at once. One running code (a fault
// tied to its own holding strikes as its acquisition returns) stops at
// its next call, as in the simulator, where the code between two calls
// takes no time: until then its connection carries on, so that what it
// checks in between (its lease) reads as it would have at that instant.
func (c *liveClient) Pause(d time.Duration) {
	c.proc.pausedUntil.Store(time.Now().Add(d).UnixNano())
	if c.proc.inCall.Load() > 0 {
		c.faults.BlackHole(d)
		return
	}
	c.proc.cutPending.Store(true)
}

// waitPause sleeps out the process's pause, if any.
func (c *liveClient) waitPause() {
	if d := time.Until(time.Unix(0, c.proc.pausedUntil.Load())); d > 0 {
		time.Sleep(d)
	}
}

// blocking lets other clients run while fn waits on the ensemble. A
// paused process neither starts a call nor returns from one before its
// pause is over: a call or a sleep that ends during the pause returns
// after it, as in a process stopped by a long garbage collection.
func blocking[T any](c *liveClient, fn func() T) T {
	c.w.gil.Unlock()
	defer c.w.gil.Lock()
	c.proc.inCall.Add(1)
	defer c.proc.inCall.Add(-1)
	if c.proc.cutPending.Swap(false) {
		if d := time.Until(time.Unix(0, c.proc.pausedUntil.Load())); d > 0 {
			c.faults.BlackHole(d)
		}
	}
	c.waitPause()
	v := fn()
	c.waitPause()
	return v
}

type res3[A, B any] struct {
	a   A
	b   B
	err error
}

type res4[A, B any] struct {
	a   A
	b   B
	w   client.Watch
	err error
}

func (c *liveClient) Create(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL) (string, error) {
	r := blocking(c, func() res3[string, struct{}] {
		p, err := c.conn.Create(ctx, path, data, flags, acl)
		return res3[string, struct{}]{p, struct{}{}, err}
	})
	return r.a, r.err
}

func (c *liveClient) Create2(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL) (string, *zk.Stat, error) {
	r := blocking(c, func() res3[string, *zk.Stat] {
		p, st, err := c.conn.Create2(ctx, path, data, flags, acl)
		return res3[string, *zk.Stat]{p, st, err}
	})
	return r.a, r.b, r.err
}

func (c *liveClient) GetEphemerals(ctx context.Context, prefix string) ([]string, error) {
	r := blocking(c, func() res3[[]string, struct{}] {
		p, err := c.conn.GetEphemerals(ctx, prefix)
		return res3[[]string, struct{}]{p, struct{}{}, err}
	})
	return r.a, r.err
}

func (c *liveClient) GetAllChildrenNumber(ctx context.Context, path string) (int, error) {
	r := blocking(c, func() res3[int, struct{}] {
		n, err := c.conn.GetAllChildrenNumber(ctx, path)
		return res3[int, struct{}]{n, struct{}{}, err}
	})
	return r.a, r.err
}

func (c *liveClient) Delete(ctx context.Context, path string, version int32) error {
	return blocking(c, func() error { return c.conn.Delete(ctx, path, version) })
}

func (c *liveClient) Exists(ctx context.Context, path string) (bool, *zk.Stat, error) {
	r := blocking(c, func() res3[bool, *zk.Stat] {
		ok, st, err := c.conn.Exists(ctx, path)
		return res3[bool, *zk.Stat]{ok, st, err}
	})
	return r.a, r.b, r.err
}

func (c *liveClient) ExistsW(ctx context.Context, path string) (bool, *zk.Stat, client.Watch, error) {
	r := blocking(c, func() res4[bool, *zk.Stat] {
		ok, st, w, err := c.conn.ExistsW(ctx, path)
		return res4[bool, *zk.Stat]{ok, st, w, err}
	})
	return r.a, r.b, c.watch(r.w), r.err
}

func (c *liveClient) Get(ctx context.Context, path string) ([]byte, *zk.Stat, error) {
	r := blocking(c, func() res3[[]byte, *zk.Stat] {
		d, st, err := c.conn.Get(ctx, path)
		return res3[[]byte, *zk.Stat]{d, st, err}
	})
	return r.a, r.b, r.err
}

func (c *liveClient) GetW(ctx context.Context, path string) ([]byte, *zk.Stat, client.Watch, error) {
	r := blocking(c, func() res4[[]byte, *zk.Stat] {
		d, st, w, err := c.conn.GetW(ctx, path)
		return res4[[]byte, *zk.Stat]{d, st, w, err}
	})
	return r.a, r.b, c.watch(r.w), r.err
}

func (c *liveClient) Set(ctx context.Context, path string, data []byte, version int32) (*zk.Stat, error) {
	r := blocking(c, func() res3[*zk.Stat, struct{}] {
		st, err := c.conn.Set(ctx, path, data, version)
		return res3[*zk.Stat, struct{}]{st, struct{}{}, err}
	})
	return r.a, r.err
}

func (c *liveClient) Children(ctx context.Context, path string) ([]string, *zk.Stat, error) {
	r := blocking(c, func() res3[[]string, *zk.Stat] {
		k, st, err := c.conn.Children(ctx, path)
		return res3[[]string, *zk.Stat]{k, st, err}
	})
	return r.a, r.b, r.err
}

func (c *liveClient) ChildrenW(ctx context.Context, path string) ([]string, *zk.Stat, client.Watch, error) {
	r := blocking(c, func() res4[[]string, *zk.Stat] {
		k, st, w, err := c.conn.ChildrenW(ctx, path)
		return res4[[]string, *zk.Stat]{k, st, w, err}
	})
	return r.a, r.b, c.watch(r.w), r.err
}

func (c *liveClient) Sync(ctx context.Context, path string) (string, error) {
	r := blocking(c, func() res3[string, struct{}] {
		p, err := c.conn.Sync(ctx, path)
		return res3[string, struct{}]{p, struct{}{}, err}
	})
	return r.a, r.err
}

func (c *liveClient) Multi(ctx context.Context, ops ...any) ([]zk.MultiResponse, error) {
	r := blocking(c, func() res3[[]zk.MultiResponse, struct{}] {
		m, err := c.conn.Multi(ctx, ops...)
		return res3[[]zk.MultiResponse, struct{}]{m, struct{}{}, err}
	})
	return r.a, r.err
}

func (c *liveClient) CreateContainer(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL) (string, error) {
	r := blocking(c, func() res3[string, struct{}] {
		p, err := c.conn.CreateContainer(ctx, path, data, flags, acl)
		return res3[string, struct{}]{p, struct{}{}, err}
	})
	return r.a, r.err
}

func (c *liveClient) CreateTTL(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL, ttl time.Duration) (string, error) {
	r := blocking(c, func() res3[string, struct{}] {
		p, err := c.conn.CreateTTL(ctx, path, data, flags, acl, ttl)
		return res3[string, struct{}]{p, struct{}{}, err}
	})
	return r.a, r.err
}

func (c *liveClient) CreateProtectedEphemeralSequential(ctx context.Context, path string, data []byte, acl []zk.ACL) (string, error) {
	r := blocking(c, func() res3[string, struct{}] {
		p, err := c.conn.CreateProtectedEphemeralSequential(ctx, path, data, acl)
		return res3[string, struct{}]{p, struct{}{}, err}
	})
	return r.a, r.err
}

func (c *liveClient) AddWatch(ctx context.Context, path string, recursive bool) (client.Subscription, error) {
	return c.conn.AddWatch(ctx, path, recursive)
}

func (c *liveClient) RemoveWatches(ctx context.Context, path string) error {
	return c.conn.RemoveWatches(ctx, path)
}

func (c *liveClient) AddAuth(ctx context.Context, scheme string, auth []byte) error {
	return blocking(c, func() error { return c.conn.AddAuth(ctx, scheme, auth) })
}

func (c *liveClient) GetACL(ctx context.Context, path string) ([]zk.ACL, *zk.Stat, error) {
	r := blocking(c, func() res3[[]zk.ACL, *zk.Stat] {
		acl, st, err := c.conn.GetACL(ctx, path)
		return res3[[]zk.ACL, *zk.Stat]{acl, st, err}
	})
	return r.a, r.b, r.err
}

func (c *liveClient) SetACL(ctx context.Context, path string, acl []zk.ACL, version int32) (*zk.Stat, error) {
	r := blocking(c, func() res3[*zk.Stat, struct{}] {
		st, err := c.conn.SetACL(ctx, path, acl, version)
		return res3[*zk.Stat, struct{}]{st, struct{}{}, err}
	})
	return r.a, r.err
}

func (c *liveClient) SessionID() int64 { return c.conn.SessionID() }
func (c *liveClient) State() zk.State  { return c.conn.State() }

func (c *liveClient) SessionEvents() client.Subscription {
	return &liveSubscription{c: c, s: c.conn.SessionEvents()}
}

// Now is the run's time: client.Epoch plus the time since the run started.
func (c *liveClient) Now() time.Time { return client.Epoch.Add(time.Since(c.w.origin)) }

func (c *liveClient) Sleep(ctx context.Context, d time.Duration) error {
	return blocking(c, func() error { return c.conn.Sleep(ctx, d) })
}

func (c *liveClient) WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, d)
}

// watch wraps a watch so that waiting on it lets other clients run.
func (c *liveClient) watch(w client.Watch) client.Watch {
	if w == nil {
		return nil
	}
	return &liveWatch{c: c, w: w}
}

type liveWatch struct {
	c *liveClient
	w client.Watch
}

func (w *liveWatch) Wait(ctx context.Context) (zk.Event, error) {
	if ctx.Err() != nil { // a poll: no need to let go
		return w.w.Wait(ctx)
	}
	r := blocking(w.c, func() res3[zk.Event, struct{}] {
		ev, err := w.w.Wait(ctx)
		return res3[zk.Event, struct{}]{ev, struct{}{}, err}
	})
	return r.a, r.err
}

type liveSubscription struct {
	c *liveClient
	s client.Subscription
}

func (s *liveSubscription) Next(ctx context.Context) (zk.Event, error) {
	if ctx.Err() != nil {
		return s.s.Next(ctx)
	}
	r := blocking(s.c, func() res3[zk.Event, struct{}] {
		ev, err := s.s.Next(ctx)
		return res3[zk.Event, struct{}]{ev, struct{}{}, err}
	})
	return r.a, r.err
}

func (s *liveSubscription) Close() { s.s.Close() }

func (s *liveSubscription) Poll() (zk.Event, bool) { return s.s.Poll() }

func (w *liveWatch) Poll() (zk.Event, bool) { return w.w.Poll() }

// Close ends the session (go-zookeeper/zk's Close), letting other clients
// run while it waits for the server's answer.
func (c *liveClient) Close() {
	blocking(c, func() struct{} { c.conn.Close(); return struct{}{} })
}

// NewSession opens another session of the same process: the same servers,
// the same faults (through the same dialer), the same pauses.
func (c *liveClient) NewSession(ctx context.Context) (client.Conn, error) {
	conn, err := c.conn.NewSession(ctx)
	if err != nil {
		return nil, err
	}
	lc := conn.(*live.Conn)
	c.proc.add(lc)
	n := *c
	n.conn = lc
	return &n, nil
}

func (c *liveClient) NewTimer(d time.Duration) client.Timer { return c.conn.NewTimer(d) }

// Select waits, letting other clients run, on the sessions' own
// waitables beneath the wrappers.
func (c *liveClient) Select(ctx context.Context, ws ...client.Waitable) (int, zk.Event, error) {
	inner := make([]client.Waitable, len(ws))
	for i, w := range ws {
		switch w := w.(type) {
		case *liveWatch:
			inner[i] = w.w
		case *liveSubscription:
			inner[i] = w.s
		default:
			inner[i] = w
		}
	}
	r := blocking(c, func() res4[int, zk.Event] {
		i, ev, err := c.conn.Select(ctx, inner...)
		return res4[int, zk.Event]{a: i, b: ev, err: err}
	})
	return r.a, r.b, r.err
}
