package search

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/scenarios"
	"github.com/zksim/zksim/workload"
)

// Counterexample is a failing run made as small as the search could: the
// spec to replay (its clients and rounds cut down, its faults exactly
// Schedule) and the seed.
type Counterexample struct {
	Spec       scenarios.Spec     `json:"-"`
	Seed       uint64             `json:"seed"`
	Clients    int                `json:"clients"`
	Rounds     int                `json:"rounds"`
	Schedule   fault.Schedule     `json:"-"`
	Violations []models.Violation `json:"violations"`
	TraceHash  string             `json:"trace_hash"`
	// Tries is how many runs the search and the shrinking made.
	Tries int `json:"tries"`
	// Minimal says the shrinking ran to its end: no fault, client or round
	// it tried to take away could go. Otherwise it was cut short (its
	// context ended, or it made MaxShrinkRuns runs) and the counterexample
	// is the smallest found by then, not known to be minimal.
	Minimal bool `json:"minimal"`
	// struck are its faults as they struck (in order, with when), for
	// minimize.
	struck []strike
}

// Faults is the schedule in the one-line form the tool and a test flag
// read back ("; "-separated).
func (c *Counterexample) Faults() string { return FaultsLine(c.Schedule) }

// reseeds are the seeds minimize tries a smaller schedule with: the
// counterexample's own first, then a few after it. A failure that hangs on
// the timing of several faults together may go with one of them removed
// under the seed's choices, and come back under another's; the
// counterexample then carries the seed it fails with.
func reseeds(seed uint64) []uint64 {
	out := []uint64{seed}
	for i := uint64(1); i < 8; i++ {
		out = append(out, seed+i)
	}
	return out
}

// FaultsLine is a schedule on one line, "; "-separated, as flags and
// fault.ParseSchedule take it back.
func FaultsLine(s fault.Schedule) string {
	parts := make([]string, len(s))
	for i, f := range s {
		parts[i] = f.String()
	}
	return strings.Join(parts, "; ")
}

// Hunt drives runs from rapid: rapid draws the number of clients, the
// rounds, the seed and a fault schedule, and when a run breaks a check it
// shrinks its own choices to a minimal counterexample: fewest faults,
// fewest clients, shortest run.
type Hunt struct {
	Spec scenarios.Spec
	// MinClients..Spec.Clients is the range of clients drawn (default 1,
	// or the kind's least).
	MinClients int
	// MaxFaults is the most faults a schedule holds (default 4).
	MaxFaults int
	// Kinds are the fault kinds drawn (default every kind).
	Kinds []fault.Kind
	// Checks is how many runs rapid tries before it gives up (default
	// 100).
	Checks int
	// Seed makes rapid's own draws reproducible (default 1).
	Seed uint64
}

// Shrink takes a failing run (spec and seed) and makes it smaller with
// rapid: rapid draws which of its faults to keep (shrinking towards none),
// how many clients (towards the fewest) and rounds (towards one); a draw
// is a counterexample when its run still breaks the same check. Then
// minimize removes every fault it can, chunks first, so that each fault
// left is needed, with the run's seed or, when a smaller schedule does not
// fail with it, one of a few others (reseeds): the counterexample carries
// the seed it fails with, which may not be the one it came from.
func Shrink(spec scenarios.Spec, seed uint64, checks int) (*Counterexample, error) {
	return ShrinkContext(context.Background(), spec, seed, checks, nil)
}

// MaxShrinkRuns bounds a shrink by its runs, never by the clock: a
// shrink cut short by wall time would end somewhere else on a slower or a
// busier machine, and a counterexample of 28 faults once came back
// unshrunk that way. Shrinks run to their end far below it (barrier-no-sync
// under the session-shaped faults takes about 2,400 runs, a few seconds);
// one that reaches it ends there and says it was cut short.
const MaxShrinkRuns = 20000

// ShrinkContext is Shrink until ctx ends or MaxShrinkRuns runs are made:
// the smallest counterexample found by then is returned (the original
// run's, at worst), Minimal only when shrinking ran to its end. progress, when set,
// is called after each run with the runs made, how many of them failed the
// check (the original's included), and the faults of the smallest
// counterexample so far.
func ShrinkContext(ctx context.Context, spec scenarios.Spec, seed uint64, checks int, progress func(runs, failing, faults int)) (*Counterexample, error) {
	orig, err := scenarios.Run(spec, seed, scenarios.Options{})
	if err != nil {
		return nil, err
	}
	if !orig.Failed() {
		return nil, fmt.Errorf("seed %d does not fail: nothing to shrink", seed)
	}
	target := orig.Violations[0].Check
	for _, v := range orig.Violations { // the first a check decided: an undecided check has not failed
		if v.Kind != models.Undecided {
			target = v.Check
			break
		}
	}
	full := orig.Schedule
	base := orig.Spec
	k, _ := workload.Lookup(base.Kind)
	best := &Counterexample{Spec: base.WithSchedule(full), Seed: seed, Clients: base.Clients, Rounds: base.Workload.Rounds,
		Schedule: full, Violations: orig.Violations, TraceHash: scenarios.HashString(orig.Result.Hash), Tries: 1,
		struck: strikes(orig)}
	tries, failing, size := 1, 1, len(full)
	cut := false // a run was refused: the context ended, or the runs ran out
	over := func() bool {
		cut = cut || ctx.Err() != nil || tries >= MaxShrinkRuns
		return cut
	}
	ran := func(failed bool, faults int) {
		tries++
		if failed {
			failing++
			size = min(size, faults)
		}
		if progress != nil {
			progress(tries, failing, size)
		}
	}
	err = runRapid(checks, 1, func(t *rapid.T) {
		if over() {
			t.Skip("out of runs or time")
		}
		clients := rapid.IntRange(k.MinClients(), base.Clients).Draw(t, "clients")
		rounds := rapid.IntRange(1, max(base.Workload.Rounds, 1)).Draw(t, "rounds")
		var sched fault.Schedule
		for i, f := range full {
			// 0 drops the fault; shrinking drives draws towards 0.
			if rapid.IntRange(0, 9).Draw(t, "keep "+strconv.Itoa(i)) > 0 && fits(f, clients) {
				sched = append(sched, f)
			}
		}
		s := resized(spec.WithSchedule(sched), clients, rounds)
		o, err := scenarios.Run(s, seed, scenarios.Options{})
		ran(err == nil && hasCheck(o, target), len(sched))
		if err != nil {
			t.Skip(err.Error()) // cannot run this draw (not a counterexample)
		}
		if hasCheck(o, target) {
			best = counterexample(s, seed, clients, rounds, sched, o)
			t.Fatalf("still fails")
		}
	})
	if err != nil {
		return nil, err
	}
	found := minimize(kept{best.Schedule, trial{failed: true, struck: best.struck, cx: best}}, rerun(over, spec, target, ran))
	best = found.tr.cx
	best.Tries = tries // the original stands when no smaller schedule fails
	best.Minimal = !cut
	return best, nil
}

// rerun is how minimize runs a schedule: with the clients and rounds of
// the counterexample it shrinks and its seed, or else one of a few others
// (reseeds), until one breaks the target check. It returns that run's
// trial, or the first seed's when none breaks it (or none once over says
// the shrink is over: its context ended or its runs ran out). ran counts
// each run.
func rerun(over func() bool, spec scenarios.Spec, target string, ran func(failed bool, faults int)) func(kept, fault.Schedule) trial {
	return func(from kept, sched fault.Schedule) trial {
		cx := from.tr.cx
		s := resized(spec.WithSchedule(sched), cx.Clients, cx.Rounds)
		var first trial
		for i, sd := range reseeds(cx.Seed) {
			if over() {
				break
			}
			o, err := scenarios.Run(s, sd, scenarios.Options{})
			failed := err == nil && hasCheck(o, target)
			ran(failed, len(sched))
			switch {
			case failed:
				return trial{failed: true, struck: strikes(o), cx: counterexample(s, sd, cx.Clients, cx.Rounds, sched, o)}
			case err == nil && i == 0:
				first = trial{struck: strikes(o)}
			}
		}
		return first
	}
}

// counterexample is the failing run o of spec s (clients and rounds as
// given, faults sched) with seed.
func counterexample(s scenarios.Spec, seed uint64, clients, rounds int, sched fault.Schedule, o *scenarios.Outcome) *Counterexample {
	return &Counterexample{Spec: s, Seed: seed, Clients: clients, Rounds: rounds, Schedule: sched,
		Violations: o.Violations, TraceHash: scenarios.HashString(o.Result.Hash), struck: strikes(o)}
}

// strikes are the faults that struck in o, in order, with when (the
// world keeps both; no trace is needed).
func strikes(o *scenarios.Outcome) []strike {
	at := o.World.StruckAt()
	out := make([]strike, len(at))
	for i, f := range o.World.Struck() {
		out[i] = strike{f.String(), at[i].Std()}
	}
	return out
}

// Run hunts for a counterexample. It returns nil when rapid found none in
// its tries.
func (h Hunt) Run() (*Counterexample, error) {
	base, err := h.Spec.WithDefaults()
	if err != nil {
		return nil, err
	}
	k, err := workload.Lookup(base.Kind)
	if err != nil {
		return nil, err
	}
	minClients := max(h.MinClients, k.MinClients(), 1)
	maxFaults := h.MaxFaults
	if maxFaults == 0 {
		maxFaults = 4
	}
	kinds := h.Kinds
	if len(kinds) == 0 {
		kinds = HuntKinds
	}
	servers := base.Ensemble.ServerCount()
	var best *Counterexample
	tries := 0
	err = runRapid(h.Checks, max(h.Seed, 1), func(t *rapid.T) {
		clients := rapid.IntRange(minClients, max(base.Clients, minClients)).Draw(t, "clients")
		rounds := rapid.IntRange(1, max(base.Workload.Rounds, 1)).Draw(t, "rounds")
		seed := rapid.Uint64Range(1, 1<<32).Draw(t, "seed")
		// A slice of faults: rapid shrinks it by dropping any of them.
		drawn := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) fault.Fault {
			return drawFault(t, kinds, servers, clients, base.Horizon)
		}), 0, maxFaults).Draw(t, "faults")
		sched := append(slices.Clone(base.Faults), drawn...)
		s := resized(h.Spec.WithSchedule(sched), clients, rounds)
		tries++
		o, err := scenarios.Run(s, seed, scenarios.Options{})
		if err != nil {
			t.Skip(err.Error())
		}
		if o.Failed() {
			best = &Counterexample{Spec: s, Seed: seed, Clients: clients, Rounds: rounds, Schedule: sched,
				Violations: o.Violations, TraceHash: scenarios.HashString(o.Result.Hash)}
			t.Fatalf("fails")
		}
	})
	if err != nil || best == nil {
		return nil, err
	}
	best.Tries, best.Minimal = tries, true // rapid shrank its draw to its end (no shrink time: runRapid)
	return best, nil
}

// HuntKinds are the fault kinds a Hunt draws by default: every kind that
// undoes itself, the session-shaped ones included.
var HuntKinds = []fault.Kind{fault.Crash, fault.Partition, fault.Isolate, fault.Pause, fault.Spike, fault.LoseReply,
	fault.Disconnect, fault.Expire, fault.Lag, fault.LoseRequest, fault.Delay}

// resized is spec with clients and rounds set. The spec is taken as the
// user wrote it, before the kind's defaults: those that depend on the
// number of clients (readers, consumers, a barrier's size) are worked
// out again for the new number.
func resized(spec scenarios.Spec, clients, rounds int) scenarios.Spec {
	spec.Clients, spec.Workload.Rounds = clients, rounds
	return spec
}

// drawFault draws one fault that undoes itself: a crash restarts, a cut
// heals, a pause ends.
func drawFault(t *rapid.T, kinds []fault.Kind, servers, clients int, horizon time.Duration) fault.Fault {
	kind := rapid.SampledFrom(kinds).Draw(t, "kind")
	at := time.Duration(rapid.IntRange(0, int(horizon/(100*time.Millisecond))).Draw(t, "at")) * 100 * time.Millisecond
	lasts := time.Duration(rapid.IntRange(1, 30).Draw(t, "lasts")) * 500 * time.Millisecond
	srv := fault.Target{Kind: fault.ServerT, Index: rapid.IntRange(0, servers-1).Draw(t, "server")}
	cl := fault.Target{Kind: fault.ClientT, Index: rapid.IntRange(0, clients-1).Draw(t, "client")}
	f := fault.Fault{At: at, Kind: kind}
	switch kind {
	case fault.Crash:
		f.A, f.For = srv, lasts
		if rapid.Bool().Draw(t, "leader") {
			f.A = fault.Target{Kind: fault.LeaderT}
		}
	case fault.Partition:
		f.A, f.B, f.For = srv, cl, lasts
		if servers > 1 && rapid.Bool().Draw(t, "between servers") {
			f.B = fault.Target{Kind: fault.ServerT, Index: (srv.Index + 1) % servers}
		}
	case fault.Isolate:
		f.A, f.For = srv, lasts
	case fault.Pause:
		f.A, f.D = cl, lasts
	case fault.Spike:
		f.D, f.For = time.Duration(rapid.IntRange(1, 10).Draw(t, "extra"))*10*time.Millisecond, lasts
	case fault.LoseReply:
		op := rapid.SampledFrom([]client.Op{client.OpCreate, client.OpDelete, client.OpSetData, client.OpMulti}).Draw(t, "op")
		f.At, f.When = 0, &fault.Trigger{Client: cl.Index, Op: op, Nth: rapid.IntRange(1, 8).Draw(t, "nth")}
	case fault.Disconnect:
		f.A, f.For = cl, lasts
	case fault.Expire:
		f.A = cl
	case fault.Lag:
		f.A, f.For = srv, lasts
	case fault.LoseRequest:
		op := rapid.SampledFrom([]client.Op{client.OpCreate, client.OpDelete, client.OpSetData, client.OpMulti}).Draw(t, "op")
		f.At, f.When = 0, &fault.Trigger{Client: cl.Index, Op: op, Nth: rapid.IntRange(1, 8).Draw(t, "nth"), On: fault.OnReceived}
	case fault.Delay:
		// A reply to a read, or a notification, held back.
		tr := &fault.Trigger{Client: cl.Index, Nth: rapid.IntRange(1, 8).Draw(t, "nth"), On: fault.OnNotified}
		if rapid.Bool().Draw(t, "read") {
			tr.Op = rapid.SampledFrom([]client.Op{client.OpGetChildren, client.OpExists, client.OpGetData}).Draw(t, "op")
			tr.On = fault.OnApplied
		}
		f.At, f.When, f.D = 0, tr, lasts
	default:
		f.Kind = fault.Spike
		f.D, f.For = 50*time.Millisecond, lasts
	}
	return f
}

// fits reports whether f names only clients below n.
func fits(f fault.Fault, n int) bool {
	for _, t := range []fault.Target{f.A, f.B} {
		if t.Kind == fault.ClientT && t.Index >= n {
			return false
		}
	}
	return f.When == nil || f.When.Client < n
}

func hasCheck(o *scenarios.Outcome, check string) bool {
	for _, v := range o.Violations {
		if v.Check == check {
			return true
		}
	}
	return false
}

// rapidMu serialises rapid runs: its settings are process-wide flags.
var rapidMu sync.Mutex

// runRapid runs prop under rapid for checks tries (default 100) from
// rapid's seed, without writing rapid's fail files. When a draw fails,
// rapid shrinks it, and prop's last failing call is the smallest draw.
func runRapid(checks int, seed uint64, prop func(*rapid.T)) error {
	rapidMu.Lock()
	defer rapidMu.Unlock()
	// rapid asks testing.Short(), which wants the testing flags registered
	// and parsed: `go test` has done both; a command has not.
	testing.Init()
	if !flag.Parsed() {
		if err := flag.CommandLine.Parse(nil); err != nil {
			return err
		}
	}
	if checks <= 0 {
		checks = 100
	}
	restore := map[string]string{}
	// rapid's shrinking stops at its shrink time (30s by default) of the
	// wall clock: off, as a shrink is bounded by its runs (MaxShrinkRuns).
	for name, v := range map[string]string{"rapid.checks": strconv.Itoa(checks), "rapid.seed": strconv.FormatUint(seed, 10),
		"rapid.nofailfile": "true", "rapid.failfile": "", "rapid.shrinktime": "24h"} {
		f := flag.Lookup(name)
		if f == nil {
			return fmt.Errorf("rapid's %s setting is missing", name)
		}
		restore[name] = f.Value.String()
		if err := f.Value.Set(v); err != nil {
			return err
		}
	}
	defer func() {
		for name, v := range restore {
			_ = flag.Lookup(name).Value.Set(v)
		}
	}()
	rapid.Check(&rapidTB{}, prop)
	return nil
}

// rapidTB is the rapid.TB a search runs rapid with, in or out of `go
// test`: the property keeps what it found, so rapid's own report is
// dropped.
type rapidTB struct {
	failed bool
}

func (*rapidTB) Helper()                 {}
func (*rapidTB) Name() string            { return "zksim" }
func (*rapidTB) Logf(string, ...any)     {}
func (*rapidTB) Log(...any)              {}
func (*rapidTB) Skipf(string, ...any)    {}
func (*rapidTB) Skip(...any)             {}
func (*rapidTB) SkipNow()                {}
func (t *rapidTB) Errorf(string, ...any) { t.failed = true }
func (t *rapidTB) Error(...any)          { t.failed = true }
func (t *rapidTB) Fatalf(string, ...any) { t.failed = true }
func (t *rapidTB) Fatal(...any)          { t.failed = true }
func (*rapidTB) FailNow()                {}
func (t *rapidTB) Fail()                 { t.failed = true }
func (t *rapidTB) Failed() bool          { return t.failed }
