package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/live"
	"github.com/zksim/zksim/scenarios"
	"github.com/zksim/zksim/search"
	"github.com/zksim/zksim/sim"
)

// benchRow is one figure of `zksim bench`: what was measured, the target
// it is held to, and whether it met it.
type benchRow struct {
	Figure string  `json:"figure"`
	Value  float64 `json:"value"`
	Unit   string  `json:"unit"`
	Target string  `json:"target,omitempty"`
	// Met is nil for a figure without a target.
	Met *bool `json:"met,omitempty"`
	// Detail says how it was measured.
	Detail string `json:"detail"`
	shown  string
}

// benchMachine is what the figures were measured on.
type benchMachine struct {
	CPU    string `json:"cpu"`
	Cores  int    `json:"cores"`
	Memory string `json:"memory"`
	Go     string `json:"go"`
	OS     string `json:"os"`
	Date   string `json:"date"`
}

// benchOutput is what `zksim bench --json` prints.
type benchOutput struct {
	Machine benchMachine `json:"machine"`
	Rows    []benchRow   `json:"rows"`
	// First is every teaching variant's time to its first counterexample.
	First []firstCounterexample `json:"first_counterexamples"`
	// Swarm is every teaching variant's blind search, fixed mix and swarm.
	Swarm []swarmResult `json:"swarm"`
}

// crowdResult is what the child process of the crowd figure reports.
type crowdResult struct {
	Clients    int    `json:"clients"`
	Ops        uint64 `json:"ops"`
	SimMs      int64  `json:"sim_ms"`
	CheckMs    int64  `json:"check_ms"`
	Violations int    `json:"violations"`
	PeakRSS    int64  `json:"peak_rss_bytes"`
}

// childEnv marks a zksim process started by another to measure one figure
// on its own (a test binary honours it too; see TestMain).
const childEnv = "ZKSIM_BENCH_CHILD"

// benchFlags are zksim bench's options.
type benchFlags struct {
	asJSON, noLive       bool
	simSeeds, faultSeeds int
	crowd, crowdChild    int
	firstRuns            int
	firstVariants        int
	swarmSeeds           int
	swarmRateSeeds       int
	swarmVariants        int
}

func benchCmd() *cobra.Command {
	var fl benchFlags
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure the simulator against its performance targets and print one table",
		Long: `bench measures, in one run, the figures zksim's performance targets are set
for, and prints them as one table (or one JSON object with --json):

  - simulated client operations per second of simulator time, one core, on
    the built-in lock-contention scenario, the median of --sim-seeds runs
    (target: at least 1,000,000), and the allocations a run makes;
  - the share of each run's time spent checking it (target: at most 1/5);
  - where the simulator's time goes (no targets): the same scenario on one
    server, which models no replication; and the ceiling the scheduler's
    machinery alone sets — the operations per second if every event and
    every client step of the run did no work (an idle event and an idle
    client step timed on this machine, times how many a run takes);
  - the same scenario on a local live ensemble of three servers (Debian's
    zookeeper package, installed when missing) against the simulator: the
    ratio of wall times (target: at least 1,000); --no-live leaves it out;
  - --crowd clients (default 10,000) contending for one lock at once, one
    acquisition each, in a process of its own: wall time and peak memory
    (targets: under 10 s and 1 GiB);
  - seeds per second on every core, of the lock-faults scenario (random
    crashes, lost replies, partitions, pauses) and of the lock under every
    fault kind (the session-shaped ones too) (target: 2,500 a core);
  - the time to the first counterexample of every teaching variant: a
    zksim run --stop-at-first process from its start to its verdict, the
    median of --first-runs processes, plain and with --shrink (target:
    under 100 ms each, plain);
  - swarm testing against the fixed mix: every teaching variant searched
    blind, its scripted faults set aside, under its scenario's random
    rates (every fault kind's when it has none), from seed 1 to its first
    counterexample (up to --swarm-seeds), once at the fixed mix and once
    with each seed drawing its own (zksim run --swarm): the median and
    worst seeds over the variants, how many each finds, and those neither
    finds; and, steadier, how many of --swarm-rate-seeds seeds break each
    variant at either mix, and which mix breaks more variants more often
    (no targets).

Exit status: 0 when everything was measured (a target missed is shown, not
an error), 1 when a run failed its checks or could not be made, 2 for bad
usage.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if fl.crowdChild > 0 {
				return runCrowdChild(cmd.OutOrStdout(), fl.crowdChild)
			}
			if fl.simSeeds < 1 || fl.faultSeeds < 1 || fl.crowd < 1 || fl.firstRuns < 1 {
				return usageError{fmt.Errorf("--sim-seeds, --fault-seeds, --crowd and --first-runs must be at least 1")}
			}
			if fl.swarmSeeds < 1 || fl.swarmRateSeeds < 1 || fl.swarmVariants < 0 {
				return usageError{fmt.Errorf("--swarm-seeds and --swarm-rate-seeds: want at least 1, got %d and %d; "+
					"--swarm-variants: want 0 (every one) or more, got %d", fl.swarmSeeds, fl.swarmRateSeeds, fl.swarmVariants)}
			}
			if fl.firstVariants < 0 {
				return usageError{fmt.Errorf("--first-variants: want 0 (every one) or more, got %d", fl.firstVariants)}
			}
			out, err := runBench(cmd.ErrOrStderr(), fl)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if fl.asJSON {
				return printJSON(w, out)
			}
			printBench(w, out)
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&fl.asJSON, "json", false, "print one JSON object")
	f.BoolVar(&fl.noLive, "no-live", false, "leave out the live ensemble's figure")
	f.IntVar(&fl.simSeeds, "sim-seeds", 40, "runs of lock-contention for the simulator's speed")
	f.IntVar(&fl.faultSeeds, "fault-seeds", 400, "seeds of each faulty scenario for the seeds-per-second figures")
	f.IntVar(&fl.crowd, "crowd", 10000, "clients contending for one lock at once")
	f.IntVar(&fl.firstRuns, "first-runs", 5, "processes per teaching variant for the time to its first counterexample")
	f.IntVar(&fl.firstVariants, "first-variants", 0, "time only the first N teaching variants (0: every one)")
	f.IntVar(&fl.swarmSeeds, "swarm-seeds", 1000, "the most seeds each blind search of a teaching variant runs")
	f.IntVar(&fl.swarmRateSeeds, "swarm-rate-seeds", 500, "the seeds on which each teaching variant's breaks are counted, at either mix")
	f.IntVar(&fl.swarmVariants, "swarm-variants", 0, "search only the first N teaching variants blind (0: every one)")
	f.IntVar(&fl.crowdChild, "crowd-child", 0, "")
	_ = f.MarkHidden("crowd-child")
	return cmd
}

// runBench measures every figure, one after another, saying on log what
// it is measuring.
func runBench(log io.Writer, fl benchFlags) (benchOutput, error) {
	out := benchOutput{Machine: thisMachine()}
	fmt.Fprintf(log, "measuring the simulator: %d runs of lock-contention on one core...\n", fl.simSeeds)
	speed, err := measureSpeed(fl.simSeeds, 3)
	if err != nil {
		return out, err
	}
	out.Rows = append(out.Rows, speedRows(speed, fl.simSeeds)...)
	fmt.Fprintf(log, "measuring where the simulator's time goes: %d runs on one server, and the scheduler's floor...\n", fl.simSeeds)
	rows, err := costRows(speed, fl.simSeeds)
	if err != nil {
		return out, err
	}
	out.Rows = append(out.Rows, rows...)
	if !fl.noLive {
		fmt.Fprintln(log, "measuring the live ensemble: lock-contention on three local servers...")
		r, err := liveRow(log, speed.medianRun())
		if err != nil {
			return out, fmt.Errorf("the live figure (--no-live leaves it out): %w", err)
		}
		out.Rows = append(out.Rows, r)
	}
	fmt.Fprintf(log, "measuring %d clients contending for one lock, in a process of its own...\n", fl.crowd)
	if rows, err = crowdRows(fl.crowd); err != nil {
		return out, err
	}
	out.Rows = append(out.Rows, rows...)
	fmt.Fprintf(log, "measuring seeds per second with faults: %d seeds of lock-faults and of the lock under every fault kind on %d cores...\n",
		fl.faultSeeds, runtime.GOMAXPROCS(0))
	if rows, err = seedRows(fl.faultSeeds); err != nil {
		return out, err
	}
	out.Rows = append(out.Rows, rows...)
	fmt.Fprintf(log, "measuring the time to the first counterexample: every teaching variant, %d processes each, plain and with --shrink...\n", fl.firstRuns)
	if out.First, err = measureFirstCounterexamples(fl.firstRuns, fl.firstVariants); err != nil {
		return out, err
	}
	out.Rows = append(out.Rows, firstRows(out.First, fl.firstRuns)...)
	fmt.Fprintf(log, "searching every teaching variant blind, up to %d seeds each, at the fixed mix and with the swarm...\n", fl.swarmSeeds)
	if out.Swarm, err = measureSwarm(fl.swarmSeeds, fl.swarmRateSeeds, fl.swarmVariants); err != nil {
		return out, err
	}
	out.Rows = append(out.Rows, swarmRows(out.Swarm, fl.swarmSeeds)...)
	return out, nil
}

// speedRows are the simulator's speed on lock-contention, its
// allocations, and checking's share of a run.
func speedRows(speed speedResult, n int) []benchRow {
	perRun := speed.medianRun()
	ops, slowest, fastest := speed.rates()
	share := float64(speed.checked) / float64(speed.simulated+speed.checked)
	allocs, bytes := float64(speed.mallocs)/float64(n), float64(speed.allocBytes)/float64(n)
	return []benchRow{
		row("simulated client operations per second, one core", ops, "ops/s",
			fmt.Sprintf("%s ops/s", thousands(ops)), "≥ 1,000,000", ops >= 1e6,
			fmt.Sprintf("lock-contention (10 clients × 100 acquisitions, 3 servers), %d seeds, %d operations each: the median run, %s of simulator time (runs from %s to %s ops/s)",
				n, speed.ops/uint64(n), perRun.Round(10*time.Microsecond), thousands(slowest), thousands(fastest))),
		row("allocations per run of lock-contention", allocs, "allocations",
			fmt.Sprintf("%s (%.1f MB)", thousands(allocs), bytes/1e6), "", false,
			fmt.Sprintf("simulation and checking: %.1f allocations and %s bytes an operation, %.2f allocations an event (means of %d runs)",
				allocs*float64(n)/float64(speed.ops), thousands(bytes*float64(n)/float64(speed.ops)),
				allocs*float64(n)/float64(speed.events), n)),
		row("share of run time spent checking", share, "fraction",
			fmt.Sprintf("%.2f", share), "≤ 0.20", share <= 0.2,
			fmt.Sprintf("lock-contention: mutex, liveness and herd checks, %s a run after %s of simulation (means of %d runs)",
				(speed.checked/time.Duration(n)).Round(10*time.Microsecond),
				(speed.simulated/time.Duration(n)).Round(10*time.Microsecond), n)),
	}
}

// costRows say where the simulator's time goes: replication (the same
// runs on one server), and the scheduler's machinery (its floor).
func costRows(speed speedResult, n int) ([]benchRow, error) {
	single, err := measureSpeed(n, 1)
	if err != nil {
		return nil, err
	}
	ops, _, _ := speed.rates()
	singleOps, _, _ := single.rates()
	floor, err := measureFloor()
	if err != nil {
		return nil, err
	}
	perOp := 1e9 / ops
	eventsPerOp := float64(speed.events) / float64(speed.ops)
	stepsPerOp := float64(speed.clientSteps) / float64(speed.ops)
	floorPerOp := eventsPerOp*floor.eventNs + stepsPerOp*floor.clientStepNs
	ceiling := 1e9 / floorPerOp
	return []benchRow{
		row("the same on one server (no replication)", singleOps, "ops/s",
			fmt.Sprintf("%s ops/s", thousands(singleOps)), "", false,
			fmt.Sprintf("lock-contention on a single server, %d seeds, the median run: replicating every write on three servers costs %.0f%% of a run",
				n, 100*(1-ops/singleOps))),
		row("ceiling if every step did no work, one core", ceiling, "ops/s",
			fmt.Sprintf("%s ops/s", thousands(ceiling)), "", false,
			fmt.Sprintf("lock-contention takes %.1f events and %.2f client steps an operation; an idle event costs %.0f ns, an idle client step %.0f ns: "+
				"%.2f µs of an operation's %.2f µs is the scheduler's machinery",
				eventsPerOp, stepsPerOp, floor.eventNs, floor.clientStepNs, floorPerOp/1000, perOp/1000)),
	}, nil
}

// liveRow is the live ensemble's wall time for lock-contention against
// the simulator's median run.
func liveRow(log io.Writer, perRun time.Duration) (benchRow, error) {
	wall, err := measureLive(log)
	if err != nil {
		return benchRow{}, err
	}
	ratio := wall.Seconds() / perRun.Seconds()
	return row("live ensemble ÷ simulator, wall time of lock-contention", ratio, "×",
		fmt.Sprintf("%s×", thousands(ratio)), "≥ 1,000", ratio >= 1000,
		fmt.Sprintf("live %s (%.0f acquisitions/s), simulator %s", wall.Round(time.Millisecond),
			1000/wall.Seconds(), perRun.Round(10*time.Microsecond))), nil
}

// crowdRows are the crowd's wall time and peak memory.
func crowdRows(crowd int) ([]benchRow, error) {
	cr, wall, err := measureCrowd(crowd)
	if err != nil {
		return nil, err
	}
	return []benchRow{
		row(fmt.Sprintf("%s clients contending for one lock: wall time", thousands(float64(crowd))), wall.Seconds(), "s",
			fmt.Sprintf("%.1f s", wall.Seconds()), "< 10 s", wall < 10*time.Second,
			fmt.Sprintf("one acquisition each, all at once: %d operations; simulation %s, checking %s",
				cr.Ops, time.Duration(cr.SimMs)*time.Millisecond, time.Duration(cr.CheckMs)*time.Millisecond)),
		row(fmt.Sprintf("%s clients contending for one lock: peak memory", thousands(float64(crowd))), float64(cr.PeakRSS), "bytes",
			fmt.Sprintf("%d MiB", cr.PeakRSS>>20), "< 1 GiB", cr.PeakRSS < 1<<30,
			"the process's peak resident set size"),
	}, nil
}

// seedRows are seeds per second on every core, of lock-faults and of the
// lock under every fault kind; the target is 2,500 a core.
func seedRows(n int) ([]benchRow, error) {
	cores := runtime.GOMAXPROCS(0)
	target := 2500 * float64(cores)
	var rows []benchRow
	for _, s := range []struct{ figure, detail string }{
		{"seeds per second with faults", "lock-faults (3 clients × 20 acquisitions; random crashes, lost replies, partitions, isolation, spikes, pauses)"},
		{"seeds per second with every fault kind", "the lock (3 clients × 20 acquisitions, fenced) under " + everyFaultKind()},
	} {
		spec, err := seedSpec(s.figure == "seeds per second with faults")
		if err != nil {
			return nil, err
		}
		rate, err := measureSeeds(spec, n)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row(fmt.Sprintf("%s, %d cores", s.figure, cores), rate, "seeds/s",
			fmt.Sprintf("%s seeds/s", thousands(rate)), "≥ "+thousands(target), rate >= target,
			fmt.Sprintf("%s, %d seeds; %s a core", s.detail, n, thousands(rate/float64(cores)))))
	}
	return rows, nil
}

// firstRows sum up the time to the first counterexample: the slowest
// teaching variant's median, plain and with shrinking (each variant's
// figures are in the table below the rows).
func firstRows(fcs []firstCounterexample, runs int) []benchRow {
	slowest, slowestShrink := fcs[0], fcs[0]
	var plain []float64
	for _, fc := range fcs {
		plain = append(plain, fc.Ms)
		if fc.Ms > slowest.Ms {
			slowest = fc
		}
		if fc.ShrinkMs > slowestShrink.ShrinkMs {
			slowestShrink = fc
		}
	}
	slices.Sort(plain)
	return []benchRow{
		row("time to first counterexample, slowest teaching variant", slowest.Ms, "ms",
			fmt.Sprintf("%.0f ms (%s)", slowest.Ms, slowest.Scenario), "< 100 ms each", slowest.Ms < 100,
			fmt.Sprintf("%d teaching variants, each the median of %d processes of zksim run --stop-at-first, start to verdict; the median variant %.0f ms",
				len(fcs), runs, plain[len(plain)/2])),
		row("the same with shrinking", slowestShrink.ShrinkMs, "ms",
			fmt.Sprintf("%.0f ms (%s)", slowestShrink.ShrinkMs, slowestShrink.Scenario), "", false,
			"zksim run --stop-at-first --shrink: found, shrunk by rapid to a minimal counterexample, replayed"),
	}
}

// row makes a figure; one without a target (target "") has no verdict.
func row(figure string, value float64, unit, shown, target string, met bool, detail string) benchRow {
	r := benchRow{Figure: figure, Value: value, Unit: unit, Target: target, Detail: detail, shown: shown}
	if target != "" {
		r.Met = &met
	}
	return r
}

// speedResult adds up runs of lock-contention, and keeps each run's
// simulator time and operations.
type speedResult struct {
	ops, events, clientSteps uint64
	simulated, checked       time.Duration
	runs                     []speedRun
	// mallocs and allocBytes add up the heap allocations of the runs
	// (simulation and checking), as the runtime counts them.
	mallocs, allocBytes uint64
}

type speedRun struct {
	ops       uint64
	simulated time.Duration
}

// rates are the median run's operations per second of simulator time, and
// the slowest and fastest run's: on a shared machine a run now and then
// loses the core for a while, which moves a median less than a total.
func (r speedResult) rates() (median, slowest, fastest float64) {
	rates := make([]float64, len(r.runs))
	for i, run := range r.runs {
		rates[i] = float64(run.ops) / run.simulated.Seconds()
	}
	slices.Sort(rates)
	return rates[len(rates)/2], rates[0], rates[len(rates)-1]
}

// medianRun is the median run's simulator time.
func (r speedResult) medianRun() time.Duration {
	times := make([]time.Duration, len(r.runs))
	for i, run := range r.runs {
		times[i] = run.simulated
	}
	slices.Sort(times)
	return times[len(times)/2]
}

// measureSpeed runs lock-contention on seeds 1..n, with the given number of
// servers, one after another on this goroutine, and adds up their
// operations, their scheduler's steps and their time in the simulator and
// in checking. Every run must pass its checks.
func measureSpeed(n, servers int) (speedResult, error) {
	sc, err := scenarios.LoadScenario("lock-contention")
	if err != nil {
		return speedResult{}, err
	}
	spec := sc.Spec
	spec.Ensemble.Servers = servers
	if _, err := scenarios.Run(spec, 0, scenarios.Options{}); err != nil { // warm up
		return speedResult{}, err
	}
	runtime.GC()
	var r speedResult
	var before, after runtime.MemStats
	for seed := uint64(1); seed <= uint64(n); seed++ {
		runtime.ReadMemStats(&before)
		o, err := scenarios.Run(spec, seed, scenarios.Options{})
		if err != nil {
			return r, fmt.Errorf("lock-contention (%d servers) seed %d: %w", servers, seed, err)
		}
		runtime.ReadMemStats(&after)
		r.mallocs += after.Mallocs - before.Mallocs
		r.allocBytes += after.TotalAlloc - before.TotalAlloc
		if o.Failed() {
			return r, fmt.Errorf("lock-contention (%d servers) seed %d failed its checks: %v", servers, seed, o.Violations)
		}
		r.runs = append(r.runs, speedRun{ops: o.Result.Ops, simulated: o.Simulated})
		r.ops += o.Result.Ops
		r.events += o.Result.Events
		r.clientSteps += o.Result.ClientSteps
		r.simulated += o.Simulated
		r.checked += o.Checked
	}
	return r, nil
}

// floorResult is what the scheduler's machinery costs on this machine, in
// nanoseconds: an event, and a client step, that do no work.
type floorResult struct {
	eventNs, clientStepNs float64
}

// measureFloor times sim.IdleEvents and sim.IdleClientSteps, five times
// each, and keeps the fastest of each (a floor: what the machinery costs
// when nothing else takes the core). A client step is timed with the event
// that wakes it; the event's cost is taken off.
func measureFloor() (floorResult, error) {
	const n, tries = 1_000_000, 5
	events, steps := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	for range tries {
		began := time.Now()
		if _, err := sim.IdleEvents(n); err != nil {
			return floorResult{}, err
		}
		events = min(events, time.Since(began))
		began = time.Now()
		if _, err := sim.IdleClientSteps(n); err != nil {
			return floorResult{}, err
		}
		steps = min(steps, time.Since(began))
	}
	return floorResult{eventNs: float64(events) / n, clientStepNs: float64(max(steps-events, 0)) / n}, nil
}

// measureLive runs lock-contention once on a local ensemble of three
// servers and returns the run's wall time (sessions established to the
// last client's return; the ensemble's start is not counted).
func measureLive(log io.Writer) (time.Duration, error) {
	sc, err := scenarios.LoadScenario("lock-contention")
	if err != nil {
		return 0, err
	}
	e, err := live.StartEnsemble(3, live.EnsembleOptions{Log: log})
	if err != nil {
		return 0, err
	}
	defer e.Stop()
	o, err := scenarios.RunLive(sc.Spec, 1, scenarios.LiveOptions{Servers: e.ConnectString(), Ensemble: e})
	if err != nil {
		return 0, err
	}
	if o.TimedOut || len(o.Violations) > 0 {
		return 0, fmt.Errorf("lock-contention live: timed out %v, violations %v", o.TimedOut, o.Violations)
	}
	return o.Wall, nil
}

// measureCrowd runs the crowd in a child zksim process, so that its peak
// memory is its own, and returns what it reported and its wall time.
func measureCrowd(clients int) (crowdResult, time.Duration, error) {
	exe, err := os.Executable()
	if err != nil {
		return crowdResult{}, 0, err
	}
	var stdout, stderr bytes.Buffer
	c := exec.Command(exe, "bench", "--crowd-child", strconv.Itoa(clients))
	c.Env = append(os.Environ(), childEnv+"=1")
	c.Stdout, c.Stderr = &stdout, &stderr
	began := time.Now()
	err = c.Run()
	wall := time.Since(began)
	if err != nil {
		return crowdResult{}, 0, fmt.Errorf("the crowd of %d clients: %v: %s", clients, err, strings.TrimSpace(stderr.String()))
	}
	var r crowdResult
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		return r, 0, fmt.Errorf("the crowd of %d clients answered %q: %w", clients, stdout.String(), err)
	}
	if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.PeakRSS = ru.Maxrss * 1024 // kilobytes on Linux
	}
	if r.Violations > 0 {
		return r, wall, fmt.Errorf("the crowd of %d clients failed its checks (%d violations)", clients, r.Violations)
	}
	return r, wall, nil
}

// runCrowdChild is the child's side of measureCrowd: one run, reported as
// JSON on w.
func runCrowdChild(w io.Writer, clients int) error {
	sc, err := scenarios.LoadScenario("lock-contention")
	if err != nil {
		return err
	}
	o, err := scenarios.Run(sc.Spec.Crowded(clients), 1, scenarios.Options{})
	if err != nil {
		return err
	}
	return json.NewEncoder(w).Encode(crowdResult{Clients: clients, Ops: o.Result.Ops, SimMs: o.Simulated.Milliseconds(),
		CheckMs: o.Checked.Milliseconds(), Violations: len(o.Violations)})
}

// seedSpec is the spec of a seeds-per-second figure: lock-faults, or
// lock-faults with every fault kind's rate (fault.EveryFault) instead of its
// own.
func seedSpec(lockFaults bool) (scenarios.Spec, error) {
	sc, err := scenarios.LoadScenario("lock-faults")
	if err != nil {
		return scenarios.Spec{}, err
	}
	spec := sc.Spec
	if !lockFaults {
		every := fault.EveryFault()
		spec.Rates = &every
	}
	return spec, nil
}

// everyFaultKind names what fault.EveryFault strikes with.
func everyFaultKind() string {
	return "fault.EveryFault (crashes, leader crashes, partitions, isolation, pauses long and short, spikes, " +
		"lost replies and requests, disconnects, outages, expiries, lagging servers, faults on reads and notifications)"
}

// measureSeeds runs n seeds of spec on every core and returns seeds per
// second of wall time. Every run must pass its checks.
func measureSeeds(spec scenarios.Spec, n int) (float64, error) {
	began := time.Now()
	res, err := search.Sweep{Spec: spec, Seeds: n}.Run(context.Background())
	if err != nil {
		return 0, err
	}
	wall := time.Since(began)
	if len(res.Failures) > 0 {
		f := res.Failures[0]
		return 0, fmt.Errorf("%s seed %d failed its checks: %v (faults: %s)", spec.Kind, f.Seed, f.Violations, f.Schedule)
	}
	return float64(res.Ran) / wall.Seconds(), nil
}

// printBench prints the table: the machine, then a row per figure.
func printBench(w io.Writer, o benchOutput) {
	m := o.Machine
	fmt.Fprintf(w, "zksim bench: %s, %d cores, %s; %s, %s; %s\n\n", m.CPU, m.Cores, m.Memory, m.Go, m.OS, m.Date)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FIGURE\tMEASURED\tTARGET\tMET")
	for _, r := range o.Rows {
		met := "-"
		if r.Met != nil {
			met = "no"
			if *r.Met {
				met = "yes"
			}
		}
		target := r.Target
		if target == "" {
			target = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Figure, r.shown, target, met)
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, r := range o.Rows {
		fmt.Fprintf(w, "  %s: %s\n", r.Figure, r.Detail)
	}
	printFirst(w, o.First)
	printSwarm(w, o.Swarm)
}

// printFirst is the table of each teaching variant's time to its first
// counterexample.
func printFirst(w io.Writer, first []firstCounterexample) {
	if len(first) == 0 {
		return
	}
	fmt.Fprintln(w, "\nTime to the first counterexample (medians, process start to verdict):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TEACHING VARIANT\tFOUND\tPLAIN\tSHRUNK\tSHRUNK TO")
	for _, fc := range first {
		fmt.Fprintf(tw, "%s\tseed %d (%d seeds run)\t%.0f ms\t%.0f ms\t%d clients, faults: %s\n", fc.Scenario, fc.Seed, fc.SeedsRun,
			fc.Ms, fc.ShrinkMs, fc.ShrunkClients, orNone(fc.ShrunkFaults))
	}
	tw.Flush()
}

// thousands renders v rounded, with thousands separated by commas (and one
// decimal below 10).
func thousands(v float64) string {
	if v < 10 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	s := strconv.FormatInt(int64(v+0.5), 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// thisMachine describes the machine the figures are measured on.
func thisMachine() benchMachine {
	m := benchMachine{CPU: "unknown CPU", Cores: runtime.NumCPU(), Memory: "unknown memory",
		Go: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH, Date: time.Now().UTC().Format("2006-01-02")}
	if v := procField("/proc/cpuinfo", "model name"); v != "" {
		m.CPU = v
	}
	if v := procField("/proc/meminfo", "MemTotal"); v != "" {
		if kb, err := strconv.ParseInt(strings.Fields(v)[0], 10, 64); err == nil {
			m.Memory = fmt.Sprintf("%d GiB", (kb+1<<19)>>20)
		}
	}
	return m
}

// procField is the value of the first "key: value" line of a /proc file.
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
