// Package zksimtest lets a user's own `go test` check their implementation
// of a recipe kind in the simulator: many seeds under faults, the checks of
// the kind, and on a violation the smallest counterexample found, its
// report, and the command that replays it.
//
//	func TestMyLock(t *testing.T) {
//		zksimtest.Lock(t, func(conn client.Conn, path string) recipes.Locker {
//			return mylock.New(conn, path)
//		}, zksimtest.Options{})
//	}
//
// A failure ends with a line such as
//
//	replay: go test ./mylock -run '^TestMyLock$' -zksim.seed=17 -zksim.clients=2 -zksim.rounds=1 -zksim.faults='when c1 create#3 applied: lose-reply'
//
// (and -zksim.options='{workload: {...}, ensemble: {...}}', the settings
// the run had), which, run from the module's root, runs that one
// counterexample again, exactly. The
// flags:
//
//	-zksim.seeds N     how many seeds to search (default Options.Seeds, or 200)
//	-zksim.seed S      run seed S alone (with the flags below, a replay)
//	-zksim.faults F    the faults, "; "-separated, instead of random ones
//	                   ("none": no faults at all)
//	-zksim.clients N   the number of clients
//	-zksim.rounds N    the workload's rounds
//	-zksim.options O   the workload's and the ensemble's settings, the
//	                   horizon, the bound and the checks, in place of the
//	                   Options' (YAML in flow style, as a replay line has
//	                   them: '{workload: {steps: 3, step: 5s}, ...}')
//	-zksim.report DIR  write the violation report's files (timeline,
//	                   history, porcupine's visualization) into DIR
//	-zksim.budget D    the wall-clock budget of the search (default
//	                   Options.Budget, or 2m)
//	-zksim.swarm       each seed draws its own mix of the random faults'
//	                   rates (Options.Swarm)
//
// The search prints a progress line to standard error every few seconds,
// and stops at its wall-clock budget, saying how many seeds it ran; so
// does Explore: a slow implementation cannot hang `go test`. The shrinking
// of a failing seed shows the same line and is bounded by its runs
// (search.MaxShrinkRuns), never by the clock, so that a counterexample
// shrinks to the same place on any machine; one cut short by that bound
// says it is not minimal. Everything else the run needs
// (the workload's and the ensemble's options) comes from the Options the
// test passes, so the replay line's flags replay it exactly.
//
// Explore runs the experiment Check runs (session-paced unless the
// Options say otherwise) under every fault schedule within a bound instead
// of random seeds (each fault tied to one of the run's writes, and with
// ExploreOptions.Reads and Notifications its reads and notifications), and
// says how many it ran.
//
// GoZKLock checks a lock written against go-zookeeper/zk's *zk.Conn as it
// is, with no port to client.Conn: go-zk's own zk.Lock, or the user's.
//
//	func TestGoZKLock(t *testing.T) {
//		zksimtest.GoZKLock(t, func(conn *zk.Conn, path string) zksimtest.GoZKLocker {
//			return zk.NewLock(conn, path, zk.WorldACL(zk.PermAll))
//		}, zksimtest.GoZKOptions{Faults: "at 1s disconnect c1 for 8s", Hold: 10 * time.Second})
//	}
//
// Each client's zk.Connect reaches the simulated ensemble over the wire
// protocol (package serve), in a testing/synctest bubble: virtual time, a
// seed's run in milliseconds. go-zk's goroutines are the user's and are
// not replayed; each seed runs twice (GoZKOptions.Runs) and the test log
// says how many seeds gave the same trace hash each run, a violation how
// many of its seed's runs found it.
//
// It must never be used outside tests: it fails the test it is given.
//
// Its files are listed in docs/ARCHITECTURE.md.
package zksimtest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/reports"
	"github.com/zksim/zksim/scenarios"
	"github.com/zksim/zksim/search"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/workload"
)

var (
	flagSeeds   = flag.Int("zksim.seeds", 0, "zksim: how many seeds to search")
	flagSeed    = flag.Uint64("zksim.seed", 0, "zksim: run this seed alone")
	flagFaults  = flag.String("zksim.faults", "", "zksim: the faults, '; '-separated, instead of random ones")
	flagClients = flag.Int("zksim.clients", 0, "zksim: the number of clients")
	flagRounds  = flag.Int("zksim.rounds", 0, "zksim: the workload's rounds")
	flagOptions = flag.String("zksim.options", "", "zksim: the run's workload, ensemble, horizon, bound and checks, as a replay line gives them")
	flagReport  = flag.String("zksim.report", "", "zksim: write a violation's report files into this directory")
	flagBudget  = flag.Duration("zksim.budget", 0, "zksim: the search's wall-clock budget")
	flagSwarm   = flag.Bool("zksim.swarm", false, "zksim: each seed draws its own mix of the random faults' rates (swarm testing)")
)

// Options choose the experiment. Zero values take the kind's defaults.
type Options struct {
	// Clients is the number of client processes.
	Clients int
	// Seeds is how many seeds to search (default 200: a run of the
	// session-paced experiment takes a few milliseconds, and some session
	// mistakes show only once in a hundred seeds).
	Seeds int
	// Faults, in the schedule syntax ("; " or newline separated), strike
	// in every run; "none" runs without faults (as -zksim.faults=none).
	// When neither Faults nor Rates is set, DefaultRates apply.
	Faults string
	// Rates draws random faults from each seed.
	Rates *fault.Rates
	// Swarm has each seed draw its own mix of the rates (Rates, or
	// DefaultRates): which kinds of fault are on, and how often each
	// strikes (fault.Swarm). It is not the default here: on the session
	// mistakes zksimtest's defaults are tuned for, the fixed mix breaks
	// more of them more often (README, "Swarm testing"). A search that
	// has run out of mistakes to find at the fixed mix may find others
	// with it.
	Swarm bool
	// Workload tunes the kind's workload (rounds, steps, fencing, ...).
	Workload workload.Shape
	// Checks replaces the kind's checks.
	Checks []string
	// Ensemble configures the simulated ensemble (servers, timeouts).
	Ensemble sim.Config
	// Horizon is how long random faults are drawn over (default: the
	// experiment's: 20s session-paced).
	Horizon time.Duration
	// Bound is the liveness bound: how long a wait may last that nothing
	// blocks (default: the kind's). Every field a replay line carries is
	// an Option, so that the experiment a test states is the one it
	// replays.
	Bound time.Duration
	// NoShrink reports the first failing seed as it is.
	NoShrink bool
	// Budget is the search's wall-clock budget (default 2m): past it, the
	// search stops and says how many seeds it ran.
	Budget time.Duration
}

// DefaultRates are the random faults a check runs under when none are
// given: crashes, leader crashes, partitions, isolation, latency spikes,
// lost replies and lost requests, lagging servers, process pauses that the
// session survives, and the faults shaped around the session: disconnects
// just under and just over the session timeout (with a leader failover
// meanwhile), outages of the whole ensemble, faults tied to reads and
// notifications. Left out: pauses past the session timeout and instant
// expiries (Rates.Pause, Rates.Expire), which break every lock whose
// resource does not fence stale tokens, however careful its holder (that
// is what fencing is for); add them with Rates and Workload.Fenced. Even
// without them an unfenced holder can, rarely, act after its session
// expired although its last check passed: its server cut off from the
// leader goes on answering its pings (for syncLimit ticks) while the
// leader's timer for the session runs out, or a short pause or a delayed
// reply hides the silence, and a disconnect then keeps the client from
// hearing of it in time. That is ZooKeeper's, not the lock's: fence the
// resource (Workload.Fenced) to rule it out.
//
// With them the experiment is scenarios.SessionPaced (a 2s session timeout,
// the work paced to span several, faults over 20s), unless the Options say
// otherwise: the session's mistakes show only when the work goes on across
// a session timeout.
var DefaultRates = fault.SessionShaped()

// Lock checks a user's exclusive lock: one holder at a time (as its uses
// of a shared resource show), no waiting on a free lock, no herd.
func Lock(t testing.TB, newLock func(conn client.Conn, path string) recipes.Locker, opt Options) {
	t.Helper()
	Check(t, "lock", recipes.Implementation{Locker: newLock}, opt)
}

// Counter checks a user's shared counter: every add applied once, lost
// replies included (the counter check: a porcupine model whose state is
// the value; an add that returned an error may or may not have taken
// effect). newCounter gets the client's name, unique among the writers.
func Counter(t testing.TB, newCounter func(conn client.Conn, path, name string) recipes.Counter, opt Options) {
	t.Helper()
	Check(t, "counter", recipes.Implementation{Counter: newCounter}, opt)
}

// Semaphore checks a user's counting semaphore, given its constructor (the
// semaphore's node, and how many may hold at once: Options.Workload.Size,
// default 2): at most that many holders at a time (as their uses of a
// shared resource show), no waiting while a lease is free, no herd. Its
// checks judge the lease nodes under recipes.SemaphoreLeases(path); a
// semaphore that keeps its leases elsewhere drops "herd" from the Checks.
func Semaphore(t testing.TB, newSemaphore func(conn client.Conn, path string, max int) recipes.Semaphore, opt Options) {
	t.Helper()
	Check(t, "semaphore", recipes.Implementation{Semaphore: newSemaphore}, opt)
}

// Check runs kind's workload on impl and fails t on a violation.
func Check(t testing.TB, kind string, impl recipes.Implementation, opt Options) {
	t.Helper()
	spec := specOf(t, kind, impl, opt)
	if *flagSeed != 0 {
		replay(t, spec)
		return
	}
	seeds := opt.Seeds
	if *flagSeeds > 0 {
		seeds = *flagSeeds
	}
	if seeds == 0 {
		seeds = 200
	}
	budget := budgetOf(opt)
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	progress := newProgressLine(os.Stderr, t.Name(), "seeds", seeds)
	res, err := search.Sweep{Spec: spec, Seeds: seeds, StopAtFirst: true, Progress: progress.seen}.Run(ctx)
	progress.done()
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("zksimtest: %v", err)
	}
	if len(res.Failures) == 0 {
		if err != nil {
			t.Logf("zksimtest: %s held on the %d of %d seeds run within the budget of %s (%d simulated operations); "+
				"raise -zksim.budget or Options.Budget to run them all", kind, res.Ran, seeds, budget, res.Ops)
			return
		}
		t.Logf("zksimtest: %s held on %d seeds (%d simulated operations); the runs met: %s", kind, res.Ran, res.Ops, res.Coverage)
		return
	}
	f, _ := res.Worst() // the most serious kind found first: two leaders before a herd
	if len(res.Found) > 1 {
		var found []string
		for _, fd := range res.Found {
			found = append(found, fmt.Sprintf("%s %s (first at seed %d)", fd.Check, fd.Kind, fd.Seed))
		}
		t.Logf("zksimtest: found %s; the most serious is shown", strings.Join(found, ", "))
	}
	o, clients, rounds := show(t, spec, f, !opt.NoShrink)
	fail(t, o, clients, rounds)
}

// budgetOf is the wall-clock budget of a search: -zksim.budget, else
// Options.Budget, else defaultBudget.
func budgetOf(opt Options) time.Duration {
	switch {
	case *flagBudget > 0:
		return *flagBudget
	case opt.Budget > 0:
		return opt.Budget
	}
	return defaultBudget
}

// defaultBudget is the search's wall-clock budget when neither the flag
// nor the Options give one: 2 minutes, so that a slow implementation
// cannot hang a user's `go test`. zksim's own tests turn it off
// (main_test.go): what they assert on (the lowest failing seed, the
// counterexample it shrinks to) must not hang on the machine's speed, and
// is bounded by counts (the seeds, the shrinker's steps) instead.
var defaultBudget = 2 * time.Minute

// show is failure f as the report shows it (search.Show): shrunk when
// asked, with a progress line (a slow implementation shows that shrinking
// runs; search.MaxShrinkRuns bounds it, so it cannot hang the test), then
// replayed with its trace. clients and rounds are the counterexample's.
func show(t testing.TB, spec scenarios.Spec, f search.Failure, shrink bool) (o *scenarios.Outcome, clients, rounds int) {
	progress := newProgressLine(os.Stderr, t.Name(), "shrinking runs", 0)
	shown, err := search.Show(context.Background(), spec, f.Seed, f.Violations, search.ShowOptions{Shrink: shrink,
		Progress: func(runs, failing, _ int) { progress.seen(runs, failing) }})
	progress.done()
	if err != nil {
		t.Fatalf("zksimtest: seed %d: %v", f.Seed, err)
	}
	o = shown.Outcome
	if c := shown.Shrunk; c != nil {
		if !c.Minimal {
			t.Logf("zksimtest: shrinking stopped at its bound of %d runs with %d faults: the counterexample is not minimal",
				search.MaxShrinkRuns, len(c.Schedule))
		}
		return o, c.Clients, c.Rounds
	}
	return o, o.Spec.Clients, o.Spec.Workload.Rounds
}

// specOf is the experiment Check runs: the Options, the -zksim flags over
// them, and the defaults (DefaultRates in SessionPaced) where neither
// names faults. The pace is the Options' alone: a replay's -zksim.faults
// replaces the random faults, not the experiment they struck.
func specOf(t testing.TB, kind string, impl recipes.Implementation, opt Options) scenarios.Spec {
	t.Helper()
	spec := experiment(t, kind, impl, opt)
	spec.Rates = opt.Rates
	if opt.Faults == "" && opt.Rates == nil {
		spec = scenarios.SessionPaced(spec)
	}
	spec = withFlags(t, spec, opt.Faults)
	if spec.Rates == nil && spec.Faults == nil {
		r := DefaultRates
		spec.Rates = &r
	}
	spec.Swarm = (opt.Swarm || *flagSwarm) && spec.Rates != nil
	return spec
}

// experiment is the spec the Options state, its faults aside: the same
// for Check and Explore.
func experiment(t testing.TB, kind string, impl recipes.Implementation, opt Options) scenarios.Spec {
	return scenarios.Spec{Name: t.Name(), Kind: kind, Impl: &impl, Clients: opt.Clients, Workload: opt.Workload,
		Checks: opt.Checks, Ensemble: opt.Ensemble, Horizon: opt.Horizon, Bound: opt.Bound}
}

// withFlags is spec with the faults given (a schedule, or none) and the
// -zksim flags over them.
func withFlags(t testing.TB, spec scenarios.Spec, faults string) scenarios.Spec {
	t.Helper()
	if *flagFaults != "" {
		faults, spec.Rates = *flagFaults, nil
	}
	if faults == "none" {
		faults, spec.Rates = "", nil
		spec.Faults = fault.Schedule{} // no faults, and no random ones
	}
	if faults != "" {
		s, err := fault.ParseSchedule(faults)
		if err != nil {
			t.Fatalf("zksimtest: faults: %v", err)
		}
		spec.Faults = s
	}
	if *flagOptions != "" {
		var err error
		if spec, err = scenarios.WithOptionsLine(spec, *flagOptions); err != nil {
			t.Fatalf("zksimtest: -zksim.options: %v", err)
		}
	}
	if *flagClients > 0 {
		spec.Clients = *flagClients
	}
	if *flagRounds > 0 {
		spec.Workload.Rounds = *flagRounds
	}
	return spec
}

// replay runs seed -zksim.seed of spec alone and fails t if it breaks a
// check.
func replay(t testing.TB, spec scenarios.Spec) {
	t.Helper()
	o, err := scenarios.Replay(spec, *flagSeed)
	if err != nil {
		t.Fatalf("zksimtest: %v", err)
	}
	if o.Failed() {
		fail(t, o, o.Spec.Clients, o.Spec.Workload.Rounds)
	}
}

// fail reports o's violation, its report's files if asked for, and the
// command that replays it.
func fail(t testing.TB, o *scenarios.Outcome, clients, rounds int) {
	t.Helper()
	r := &reports.ViolationReport{Outcome: o, Every: "-zksim.report DIR writes every event of the run to DIR/timeline.txt"}
	if *flagReport != "" {
		if err := r.Write(*flagReport); err != nil {
			t.Errorf("zksimtest: writing the report: %v", err)
		}
	}
	t.Fatalf("%s\nreplay: %s", r, ReplayCommand(packageArg(), t.Name(), o.Seed, clients, rounds, o.Schedule, scenarios.OptionsLine(o.Spec)))
}

// packageArg is the package of the test running, as `go test` names it
// from the module's root ("./store/lock", or "." for the root's own):
// `go test` runs a package's tests in its directory. "." when no go.mod
// is found above it.
func packageArg() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil || rel == "." {
				return "."
			}
			return "./" + filepath.ToSlash(rel)
		}
		if filepath.Dir(dir) == dir {
			return "."
		}
	}
}

// ReplayCommand is the `go test` command, run from the module's root, that
// runs one counterexample of the test named name in package pkg (as `go
// test` names it from there: "./store/lock", or ".") again: its seed,
// clients, rounds and faults, and options (scenarios.OptionsLine: the
// workload's and the ensemble's settings, the horizon, the bound and the
// checks the run had), so that it replays exactly, to the same trace
// hash, even if the test's Options change.
func ReplayCommand(pkg, name string, seed uint64, clients, rounds int, sched fault.Schedule, options string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	faults := search.FaultsLine(sched)
	if faults == "" {
		faults = "none"
	}
	line := fmt.Sprintf("go test %s -run '%s' -zksim.seed=%d -zksim.clients=%d -zksim.rounds=%d -zksim.faults='%s'",
		pkg, strings.Join(parts, "/"), seed, clients, rounds, faults)
	if options != "" {
		line += fmt.Sprintf(" -zksim.options='%s'", options)
	}
	return line
}
