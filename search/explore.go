package search

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/scenarios"
)

// Explore enumerates, for a small configuration, every fault schedule
// within a bound: each fault strikes at one of the run's events (the
// moment a client's write is applied, "when cN OP#K applied:") and is one
// of a few kinds, and a schedule holds at most MaxFaults of them, each
// after the last. It is a depth-first search over those choice sequences:
// a run shows the events the next fault can be tied to, and each choice
// makes a new run. The rest of a run's choices (latencies, tie orders)
// come from the seed, the same in every run, so the exploration is exact
// and repeatable: the same bound explores the same schedules, and says
// how many.
type Explore struct {
	Spec scenarios.Spec
	// Seed fixes the runs' other choices (default 1).
	Seed uint64
	// MinClients..MaxClients are the client counts explored (default: the
	// spec's alone).
	MinClients, MaxClients int
	// MaxFaults bounds the faults of a schedule (default 2).
	MaxFaults int
	// Faults are the faults that may strike at an event, in the schedule
	// syntax after "when cN OP#K applied:"; "{c}" stands for the client
	// whose event it is, "{over}" and "{under}" for 1.5 and 0.8 session
	// timeouts. Default: ExploreFaults.
	Faults []string
	// Reads ties faults to the clients' reads answered too (getChildren,
	// exists, getData), and Notifications to the watch notifications sent
	// to them, besides their writes: many more schedules, and the place
	// where a recipe that lists, then watches, breaks.
	Reads, Notifications bool
	// Holds ties faults to the moments a client of a lock or an election
	// comes to hold it too ("cN holds#K"): a pause there strikes a holder
	// between its check and its use. Every unfenced lock breaks under it
	// (a finding about leases, not a recipe's bug: see lock-unfenced-pause),
	// so it is on by default only for a fenced workload.
	Holds bool
	// Limit stops the exploration after this many runs (0: none).
	Limit int
	// StopAtFirst stops at the first counterexample that breaks a safety
	// or liveness check, or one of a kind in StopAlso (as Sweep's: a herd
	// alone does not stop it).
	StopAtFirst bool
	StopAlso    []models.ViolationKind
	// Progress, when set, is called after each run.
	Progress func(explored, failed int)
}

// ExploreFaults are the faults explored at each event by default: each
// undoes itself, so every schedule leaves a working ensemble behind.
var ExploreFaults = []string{
	"lose-reply",                 // the reply is lost, the connection drops
	"lose-request",               // the request is lost before any server acts on it (writes only)
	"crash applier for 1s",       // the server that applied it crashes before answering
	"crash leader for 1s",        // the leader crashes, a new one is elected
	"pause {c} 15s",              // the client stops past its session timeout: its session expires
	"disconnect {c} for {over}",  // the client is cut off past its session timeout: the same, awake
	"disconnect {c} for {under}", // cut off just under it: the session survives, the connection does not
	"lag applier for 3s",         // the server that applied it stops applying: its clients read the past
}

// ExploreResult is what an exploration found.
type ExploreResult struct {
	// Explored is how many runs (schedules) it made.
	Explored int `json:"explored"`
	// Complete says every schedule within the bound was explored (no
	// Limit or StopAtFirst cut it short).
	Complete bool `json:"complete"`
	// Counterexamples are the failing schedules, fewest faults first.
	Counterexamples []*Counterexample `json:"counterexamples"`
}

// writeOps are the requests a fault is tied to: a client's writes.
var writeOps = map[client.Op]bool{client.OpCreate: true, client.OpDelete: true, client.OpSetData: true, client.OpMulti: true}

// readOps are the reads a fault is tied to with Explore.Reads.
var readOps = map[client.Op]bool{client.OpGetChildren: true, client.OpExists: true, client.OpGetData: true}

// Run explores.
func (e Explore) Run() (*ExploreResult, error) { return e.RunContext(context.Background()) }

// RunContext explores until done or ctx ends; what it found by then is
// returned with ctx's error, marked incomplete.
func (e Explore) RunContext(ctx context.Context) (*ExploreResult, error) {
	base, err := e.Spec.WithDefaults()
	if err != nil {
		return nil, err
	}
	if e.Seed == 0 {
		e.Seed = 1
	}
	if e.MaxFaults == 0 {
		e.MaxFaults = 2
	}
	if len(e.Faults) == 0 {
		e.Faults = ExploreFaults
	}
	lo, hi := e.MinClients, e.MaxClients
	if lo == 0 {
		lo = base.Clients
	}
	if hi < lo {
		hi = lo
	}
	x := &explorer{Explore: e, ctx: ctx, base: base, res: &ExploreResult{Complete: true}, level: -1}
	// Stopping at the first counterexample, the schedules of fewer faults
	// come first, level by level (iterative deepening; the prefixes are run
	// again, uncounted, for the events to extend): depth first, a schedule
	// of two faults could be found before one of one.
	levels := []int{-1}
	if e.StopAtFirst {
		levels = levels[:0]
		for d := 0; d <= e.MaxFaults; d++ {
			levels = append(levels, d)
		}
	}
	for _, level := range levels {
		x.level = level
		for n := lo; n <= hi && !x.stopped; n++ {
			spec := e.Spec // as written: the kind's defaults follow the clients
			spec.Clients = n
			if err := x.visit(spec, nil); err != nil {
				return x.res, err
			}
		}
	}
	slices.SortStableFunc(x.res.Counterexamples, func(a, b *Counterexample) int {
		return cmp.Compare(len(a.Schedule), len(b.Schedule))
	})
	return x.res, ctx.Err()
}

// explorer is one exploration under way: its bound (with defaults), its
// base spec's defaults, what it found so far, and whether it stopped.
type explorer struct {
	Explore
	ctx     context.Context
	base    scenarios.Spec
	res     *ExploreResult
	stopped bool
	// level, when 0 or more, is the one number of faults the schedules
	// recorded now have (StopAtFirst's iterative deepening); -1: all.
	level int
}

// visit runs spec with sched, records it, and extends sched with one more
// fault at each event after the last fault's, depth first.
func (x *explorer) visit(spec scenarios.Spec, sched fault.Schedule) error {
	if x.stopped {
		return nil
	}
	if (x.Limit > 0 && x.res.Explored >= x.Limit) || x.ctx.Err() != nil {
		x.stopped, x.res.Complete = true, false
		return nil
	}
	var o *scenarios.Outcome
	var err error
	if x.level >= 0 && len(sched) < x.level {
		// A prefix, recorded at its own level already: run again for its
		// events; a failing one was a counterexample there.
		if o, err = scenarios.Run(spec.WithSchedule(sched), x.Seed, scenarios.Options{KeepTrace: true}); err != nil {
			return fmt.Errorf("schedule %q: %w", FaultsLine(sched), err)
		}
		if o.Failed() {
			return nil
		}
	} else {
		if o, err = x.record(spec.WithSchedule(sched), sched); err != nil {
			return err
		}
		if x.level >= 0 {
			return nil // this level's schedules are extended at the next
		}
	}
	if len(sched) >= x.MaxFaults || o.Failed() {
		return nil // a failing schedule is not extended: it is the smaller counterexample
	}
	events := x.triggers(o)
	start := 0
	if len(sched) > 0 {
		last := *sched[len(sched)-1].When
		if last.On == fault.OnReceived { // a lost request: tied to its write's event
			last.On = fault.OnApplied
		}
		start = -1
		for i, t := range events {
			if t == last {
				start = i + 1
			}
		}
		if start < 0 {
			return nil // the last fault never struck: its extensions repeat others
		}
	}
	for _, t := range events[start:] {
		for _, text := range x.Faults {
			f, ok := faultAt(t, text, x.base.SessionTimeout())
			if !ok {
				continue // not a fault this event can carry
			}
			if err := x.visit(spec, append(sched[:len(sched):len(sched)], f)); err != nil {
				return err
			}
		}
	}
	return nil
}

// record runs s (spec with sched) and counts it, keeping it as a
// counterexample when it fails.
func (x *explorer) record(s scenarios.Spec, sched fault.Schedule) (*scenarios.Outcome, error) {
	o, err := scenarios.Run(s, x.Seed, scenarios.Options{KeepTrace: true})
	if err != nil {
		return nil, fmt.Errorf("schedule %q: %w", FaultsLine(sched), err)
	}
	x.res.Explored++
	if o.Failed() {
		x.res.Counterexamples = append(x.res.Counterexamples, &Counterexample{Spec: s, Seed: x.Seed, Clients: s.Clients,
			Rounds: o.Spec.Workload.Rounds, Schedule: sched, Violations: o.Violations,
			TraceHash: scenarios.HashString(o.Result.Hash), Tries: x.res.Explored})
		if x.StopAtFirst && stopsAt(o.Violations, x.StopAlso) {
			x.stopped, x.res.Complete = true, false
		}
	}
	if x.Progress != nil {
		x.Progress(x.res.Explored, len(x.res.Counterexamples))
	}
	return o, nil
}

// triggers lists the events of a run a fault can be tied to, in the order
// they happened: each client's writes as their answers were given, and
// with Reads its reads, with Notifications the notifications sent to it;
// and with Holds (or a fenced workload) each time a client of a lock or an
// election came to hold it (from the history: an acquire that returned),
// so that a pause or a disconnect can strike a holder.
func (e Explore) triggers(o *scenarios.Outcome) []fault.Trigger {
	counts := map[fault.Trigger]int{}
	var out []fault.Trigger
	add := func(key fault.Trigger) {
		counts[key]++
		key.Nth = counts[key]
		out = append(out, key)
	}
	var holds []models.Operation
	if e.Holds || o.Spec.Workload.Fenced {
		holds = holdings(o)
	}
	for _, ev := range o.ClientEvents() {
		for len(holds) > 0 && holds[0].Return < ev.At {
			add(fault.Trigger{Client: holds[0].Client, On: fault.OnHolds})
			holds = holds[1:]
		}
		switch {
		case !ev.Notified && (writeOps[ev.Op] || e.Reads && readOps[ev.Op]):
			add(fault.Trigger{Client: ev.Client, Op: ev.Op})
		case ev.Notified && e.Notifications:
			add(fault.Trigger{Client: ev.Client, On: fault.OnNotified})
		}
	}
	for _, h := range holds {
		add(fault.Trigger{Client: h.Client, On: fault.OnHolds})
	}
	return out
}

// holdings are the acquires of a run that returned holding, in the order
// they returned: the moments its workload told the world "cN holds#K".
func holdings(o *scenarios.Outcome) []models.Operation {
	if o.Input == nil {
		return nil
	}
	var out []models.Operation
	for _, op := range o.Input.Ops {
		if op.Kind == models.Acquire && op.Result == models.OK {
			out = append(out, op)
		}
	}
	slices.SortStableFunc(out, func(a, b models.Operation) int { return cmp.Compare(a.Return, b.Return) })
	return out
}

// faultAt is the fault text ties to trigger t, and whether t can carry it:
// a lost request is tied to a write's arrival ("received"), not to a read,
// a notification or a holding; a lost reply and the applier's crash to a
// request's answer, not to a notification or a holding.
func faultAt(t fault.Trigger, text string, timeout time.Duration) (fault.Fault, bool) {
	request := t.On == fault.OnApplied
	switch {
	case text == "lose-request":
		if !request || !writeOps[t.Op] {
			return fault.Fault{}, false
		}
		t.On = fault.OnReceived
	case text == "lose-reply" || strings.HasPrefix(text, "crash applier"):
		if !request {
			return fault.Fault{}, false
		}
	}
	f, err := parseFaultAt(t, text, timeout)
	return f, err == nil
}

// parseFaultAt reads text as a fault tied to t ({c} is t's client, {over}
// and {under} just over and under the session timeout).
func parseFaultAt(t fault.Trigger, text string, timeout time.Duration) (fault.Fault, error) {
	text = strings.NewReplacer("{c}", fmt.Sprintf("c%d", t.Client+1),
		"{over}", (timeout * 3 / 2).String(), "{under}", (timeout * 4 / 5).String()).Replace(text)
	s, err := fault.ParseSchedule(fmt.Sprintf("when %s: %s", t, text))
	if err != nil {
		return fault.Fault{}, fmt.Errorf("explored fault %q: %w", text, err)
	}
	if len(s) != 1 {
		return fault.Fault{}, fmt.Errorf("explored fault %q: want one fault", text)
	}
	return s[0], nil
}

// Check reports, before any run, a fault text that does not parse or a
// spec that cannot run.
func (e Explore) Check() error {
	base, err := e.Spec.WithDefaults()
	if err != nil {
		return err
	}
	faults := e.Faults
	if len(faults) == 0 {
		faults = ExploreFaults
	}
	for _, text := range faults {
		t := fault.Trigger{Op: client.OpCreate, Nth: 1}
		if text == "lose-request" {
			t.On = fault.OnReceived
		}
		if _, err := parseFaultAt(t, text, base.SessionTimeout()); err != nil {
			return err
		}
	}
	return nil
}
