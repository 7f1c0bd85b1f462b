package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/reports"
	"github.com/zksim/zksim/scenarios"
	"github.com/zksim/zksim/search"
)

// runViolation is one violation in run's JSON output.
type runViolation struct {
	Seed      uint64               `json:"seed"`
	Check     string               `json:"check"`
	Kind      models.ViolationKind `json:"kind"`
	Object    string               `json:"object,omitempty"`
	Message   string               `json:"message"`
	Schedule  []string             `json:"schedule"` // each fault as the schedule syntax writes it
	TraceHash string               `json:"trace_hash"`
}

// runShrunk is the shrunk counterexample in run's JSON output.
type runShrunk struct {
	Seed       uint64         `json:"seed"`
	Clients    int            `json:"clients"`
	Rounds     int            `json:"rounds"`
	Schedule   []string       `json:"schedule"` // each fault as the schedule syntax writes it
	TraceHash  string         `json:"trace_hash"`
	Violations []runViolation `json:"violations"`
	Tries      int            `json:"tries"`
	// Minimal says the shrinking ran to its end (search.Counterexample's
	// Minimal); otherwise this is the smallest found when it was cut short.
	Minimal bool `json:"minimal"`
	// Replay is the command that runs the counterexample again.
	Replay string `json:"replay"`
	// Interrupted says an interrupt stopped the shrinking: this is the
	// smallest counterexample found by then.
	Interrupted bool `json:"interrupted,omitempty"`
}

// runOutput is what `zksim run --json` prints.
type runOutput struct {
	Scenario string `json:"scenario"`
	Expected string `json:"expected"`
	// Expect and Require are the scenario's expectation and required
	// situations, for zksim merge to judge the shards' union.
	Expect     scenarios.Expectation `json:"expect"`
	Require    []string              `json:"require,omitempty"`
	Got        string                `json:"got"`
	AsExpected bool                  `json:"as_expected"`
	// Variant and Lesson are the teaching variant the scenario runs and
	// what it teaches (what goes wrong, and how the recipe avoids it).
	Variant string `json:"variant,omitempty"`
	Lesson  string `json:"lesson,omitempty"`
	First   uint64 `json:"first_seed"`
	Seeds   int    `json:"seeds"`
	// Ran is how many of the seeds ran: fewer than Seeds when Interrupted
	// or StoppedAtFirst (--stop-at-first, and a violation found).
	Ran            int    `json:"ran"`
	Interrupted    bool   `json:"interrupted,omitempty"`
	StoppedAtFirst bool   `json:"stopped_at_first,omitempty"`
	Shard          string `json:"shard,omitempty"`
	// Violations are those of the lowest Kept failing seeds; FailingSeeds
	// counts them all, and Found is every check and kind of violation
	// found, which the verdict is judged on.
	Violations   []runViolation `json:"violations"`
	FailingSeeds int            `json:"failing_seeds"`
	Kept         int            `json:"kept"`
	Found        []search.Found `json:"found"`
	Ops          uint64         `json:"ops"`
	WallMs       int64          `json:"wall_ms"`
	// SimMs and CheckMs add up the runs' time in the simulator and in
	// checking over every worker; CheckShare is checking's part of the
	// two, and OpsPerSec the simulated operations per second of
	// simulator time (per core).
	SimMs      int64      `json:"sim_ms"`
	CheckMs    int64      `json:"check_ms"`
	CheckShare float64    `json:"check_share"`
	OpsPerSec  float64    `json:"ops_per_sec"`
	Shrunk     *runShrunk `json:"shrunk,omitempty"`
	Report     []string   `json:"report,omitempty"`
	// Coverage is what the runs exercised (scenarios.Coverage), added up;
	// Weak, the situations the scenario requires that no run reached.
	Coverage scenarios.Coverage `json:"coverage"`
	Weak     []string           `json:"weak,omitempty"`

	arg string // the scenario as the command line named it
}

// runFlags are zksim run's options.
type runFlags struct {
	seeds, workers int
	seed, first    uint64
	shard          string
	shrink, asJSON bool
	stopAtFirst    bool
	swarm          bool
	checkLimit     time.Duration
	keep           int
	all            bool
	out            string
}

func runCmd() *cobra.Command {
	var fl runFlags
	cmd := &cobra.Command{
		Use:   "run SCENARIO",
		Short: "Run a scenario on many seeds in the simulator and check every run",
		Long: `run runs a scenario (a built-in one, see zksim list, or a scenario file) on a
range of seeds, in parallel on every core, and checks each run against the
scenario's checks and its expected verdict. It prints each violation with
its seed, check, kind, fault schedule and trace hash;
--shrink makes the first one as small as rapid can, and --out writes its
report (timeline, history, porcupine's visualization). --shard I/N runs the
I-th of N equal parts of the seed range, so machines or CI jobs can split it
(zksim merge combines their JSON); in a Kubernetes Indexed Job --shard can be
left out: the shard is JOB_COMPLETION_INDEX+1 of ZKSIM_SHARDS.

Exit status: 0 when the outcome is the scenario's expect: (no expect: means
every run must hold), 1 when it is not (a violation not expected, an
expected one not found or found by another check), 2 for bad input, 130
when interrupted.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runScenario(cmd, args[0], fl)
		},
	}
	f := cmd.Flags()
	f.IntVar(&fl.seeds, "seeds", 0, "how many seeds to run (default: the scenario's, or 100)")
	f.Uint64Var(&fl.first, "first", 1, "the first seed of the range")
	f.Uint64Var(&fl.seed, "seed", 0, "run this one seed")
	f.IntVar(&fl.workers, "workers", 0, "runs in parallel (default: every core)")
	f.StringVar(&fl.shard, "shard", "", "run only part I of N of the seed range (I/N, 1-based)")
	f.BoolVar(&fl.shrink, "shrink", false, "shrink the first violation to a minimal counterexample")
	f.DurationVar(&fl.checkLimit, "check-limit", time.Minute,
		"how long porcupine may search one object's history before the run is called undecided (0: no limit)")
	f.BoolVar(&fl.swarm, "swarm", false, "each seed draws its own mix of the scenario's random fault rates: which kinds are on, how often each strikes (swarm testing)")
	f.BoolVar(&fl.stopAtFirst, "stop-at-first", false, "stop at the first safety or liveness violation, or of the kind the scenario expects (the lowest failing seed among those run); a herd alone does not stop it")
	f.IntVar(&fl.keep, "keep", search.DefaultKeep, "report the violations of the lowest N failing seeds (the others are counted)")
	f.BoolVar(&fl.all, "all", false, "show every event in the violation's timeline, not only the operations involved")
	f.BoolVar(&fl.asJSON, "json", false, "print one JSON object")
	f.StringVar(&fl.out, "out", "", "write the first violation's report into this directory")
	cmd.MarkFlagsMutuallyExclusive("seed", "seeds")
	cmd.MarkFlagsMutuallyExclusive("seed", "shard")
	return cmd
}

// runScenario is zksim run on the scenario arg names: it resolves the
// seeds to run, runs and judges them, reports the first violation when
// asked (--shrink, --out), prints the outcome and ends with its exit
// status.
func runScenario(cmd *cobra.Command, arg string, fl runFlags) error {
	sc, sweep, err := resolveRun(cmd, arg, fl)
	if err != nil {
		return err
	}
	start := time.Now()
	v, interrupted, err := judgeSeeds(cmd.ErrOrStderr(), sc, sweep, !fl.asJSON)
	if err != nil {
		return err
	}
	arg = commandArg(arg, fl.swarm)
	o := runOutputOf(arg, v, sweep, interrupted)
	var report *reports.ViolationReport
	if worst, ok := v.Result.Worst(); ok && (fl.shrink || fl.out != "") && !interrupted {
		// An interrupt stops the shrinking, which keeps the smallest
		// counterexample so far; the report is written whole all the same.
		ctx, stop := interruptContext()
		opts := firstReportOptions{arg: arg, shrink: fl.shrink, out: fl.out, all: fl.all, limit: fl.checkLimit}
		report, err = firstReport(ctx, &o, sc.Spec, worst, opts)
		stop()
		if err != nil {
			return err
		}
	}
	o.WallMs = time.Since(start).Milliseconds()
	if fl.asJSON {
		if err := printJSON(cmd.OutOrStdout(), o); err != nil {
			return err
		}
	} else {
		printRun(cmd.OutOrStdout(), o, report)
	}
	return runExit(o)
}

// commandArg is the scenario as the commands a run prints name it: with
// --swarm when the run drew each seed's own mix, so that the replay or
// run they print draws the same one.
func commandArg(arg string, swarm bool) string {
	if swarm {
		return arg + " --swarm"
	}
	return arg
}

// resolveRun loads the scenario arg names and the seeds the flags ask
// for: the range (--seeds, else the scenario's number, else 100, from
// --first), its shard (--shard, or an Indexed Job's environment), or the
// one --seed. Bad input is a usage error, refused before any run.
func resolveRun(cmd *cobra.Command, arg string, fl runFlags) (*scenarios.Scenario, search.Sweep, error) {
	sc, err := scenarios.LoadScenario(arg)
	if err != nil {
		return nil, search.Sweep{}, usageError{err}
	}
	changed := cmd.Flags().Changed
	sh, err := lookupShard(fl.shard)
	if err != nil && !changed("seed") {
		return nil, search.Sweep{}, usageError{err}
	}
	seeds := fl.seeds
	if !changed("seeds") {
		seeds = max(sc.Seeds, 1)
		if sc.Seeds == 0 {
			seeds = 100
		}
	}
	if seeds < 1 {
		return nil, search.Sweep{}, usageError{fmt.Errorf("--seeds: want at least 1, got %d", seeds)}
	}
	if fl.keep < 1 {
		return nil, search.Sweep{}, usageError{fmt.Errorf("--keep: want at least 1, got %d", fl.keep)}
	}
	if fl.checkLimit < 0 {
		return nil, search.Sweep{}, usageError{fmt.Errorf("--check-limit: want a duration of 0 (no limit) or more, got %s", fl.checkLimit)}
	}
	if fl.swarm {
		if err := swarmOn(&sc.Spec, arg); err != nil {
			return nil, search.Sweep{}, err
		}
	}
	if fl.all && fl.out == "" && !fl.shrink {
		return nil, search.Sweep{}, usageError{fmt.Errorf("--all: it widens the timeline of the first violation's report, " +
			"which --out or --shrink makes; give one of them")}
	}
	if err := checkRunFlags(cmd, fl.seed, fl.first, fl.workers); err != nil {
		return nil, search.Sweep{}, err
	}
	if fl.out != "" {
		if err := checkOutDir("--out", fl.out); err != nil {
			return nil, search.Sweep{}, err
		}
	}
	first := fl.first
	if changed("seed") {
		first, seeds, sh = fl.seed, 1, search.Shard{}
	}
	if first+uint64(seeds)-1 < first {
		return nil, search.Sweep{}, usageError{fmt.Errorf("--first %d --seeds %d: the range runs past the last seed, %d",
			first, seeds, uint64(1<<64-1))}
	}
	if sh.N > seeds {
		return nil, search.Sweep{}, usageError{fmt.Errorf("--shard %d/%d of %d seeds: more shards than seeds, some would run none",
			sh.I, sh.N, seeds)}
	}
	return sc, search.Sweep{First: first, Seeds: seeds, Shard: sh,
		Workers: fl.workers, StopAtFirst: fl.stopAtFirst, CheckLimit: fl.checkLimit, Keep: fl.keep}, nil
}

// judgeSeeds runs the search and judges it against the scenario's
// expectation, with a progress bar on log when it is a terminal and
// showBar is set. An interrupt (SIGINT, SIGTERM) stops the search: the
// verdict is then that of the seeds that ran, and interrupted is set.
// Once the search is over, a second interrupt ends the process.
func judgeSeeds(log io.Writer, sc *scenarios.Scenario, sweep search.Sweep, showBar bool) (v *search.Verdict, interrupted bool, err error) {
	_, count := sweep.Shard.Range(sweep.First, sweep.Seeds)
	bar := newProgress(log, count, sc.Name, showBar)
	sweep.Progress = bar.set
	ctx, stop := interruptContext()
	defer stop()
	v, err = search.Judge(ctx, sc, sweep)
	bar.done()
	interrupted = errors.Is(err, context.Canceled)
	if err != nil && !interrupted {
		return nil, false, err
	}
	return v, interrupted, nil
}

// runOutputOf assembles run's output from the verdict of the search: all
// but the first violation's report and the wall time, which come later.
func runOutputOf(arg string, v *search.Verdict, sweep search.Sweep, interrupted bool) runOutput {
	sc, res := v.Scenario, v.Result
	o := runOutput{arg: arg, Coverage: res.Coverage, Weak: v.Weak, Scenario: sc.Name, Expect: sc.Expect, Require: sc.Require, Expected: sc.Expect.String(), Got: v.Got(), AsExpected: v.Matches && !interrupted,
		First: res.First, Seeds: res.Seeds, Ran: res.Ran, Interrupted: interrupted,
		StoppedAtFirst: sweep.StopAtFirst && len(res.Failures) > 0 && res.Ran < res.Seeds, Ops: res.Ops, Violations: []runViolation{},
		FailingSeeds: res.Failed, Kept: cmp.Or(sweep.Keep, search.DefaultKeep), Found: res.Found,
		SimMs: res.Simulated.Milliseconds(), CheckMs: res.Checked.Milliseconds()}
	if o.Found == nil {
		o.Found = []search.Found{}
	}
	if v, ok := recipes.VariantNamed(sc.Spec.Variant); ok {
		o.Variant, o.Lesson = v.Name, v.Lesson
	}
	if total := res.Simulated + res.Checked; total > 0 {
		o.CheckShare = float64(res.Checked) / float64(total)
	}
	if res.Simulated > 0 {
		o.OpsPerSec = float64(res.Ops) / res.Simulated.Seconds()
	}
	if sweep.Shard.N > 0 {
		o.Shard = sweep.Shard.String()
	}
	for _, f := range res.Failures {
		o.Violations = append(o.Violations, violationsOf(f.Seed, f.Schedule, f.TraceHash, f.Violations)...)
	}
	return o
}

// runExit is run's exit status once its outcome is printed: 130 when
// interrupted, 1 when the outcome is not the scenario's expectation.
func runExit(o runOutput) error {
	switch {
	case o.Interrupted, o.Shrunk != nil && o.Shrunk.Interrupted:
		return errInterrupted
	case !o.AsExpected:
		return errNotAsExpected
	}
	return nil
}

// checkRunFlags refuses the seed flags' values that name no run: seeds
// are numbered from 1; --workers runs at least one at a time.
func checkRunFlags(cmd *cobra.Command, seed, first uint64, workers int) error {
	f := cmd.Flags()
	switch {
	case f.Changed("seed") && seed == 0:
		return usageError{fmt.Errorf("--seed: seeds are numbered from 1, got 0")}
	case f.Changed("first") && first == 0:
		return usageError{fmt.Errorf("--first: seeds are numbered from 1, got 0")}
	case f.Changed("workers") && workers < 1:
		return usageError{fmt.Errorf("--workers: want at least 1, got %d", workers)}
	}
	return nil
}

// errViolations is the error a run that found violations ends with: exit
// status 1, its details already printed.
var errViolations = silentError{fmt.Errorf("violations found")}

// errNotAsExpected ends a run whose outcome is not the scenario's
// expectation: exit status 1, the verdict already printed.
var errNotAsExpected = silentError{fmt.Errorf("not as expected")}

// silentError ends the command with status 1 without another message.
type silentError struct{ error }

func violationsOf(seed uint64, schedule []string, hash string, vs []models.Violation) []runViolation {
	var out []runViolation
	for _, v := range vs {
		out = append(out, runViolation{Seed: seed, Check: v.Check, Kind: v.Kind, Object: v.Object, Message: v.Message,
			Schedule: schedule, TraceHash: hash})
	}
	return out
}

func printRun(w io.Writer, o runOutput, report *reports.ViolationReport) {
	fmt.Fprintf(w, "%s: %d seeds from %d", o.Scenario, o.Seeds, o.First)
	if o.Shard != "" {
		fmt.Fprintf(w, " (shard %s)", o.Shard)
	}
	if o.Interrupted {
		fmt.Fprintf(w, ", interrupted after %d", o.Ran)
	}
	if o.StoppedAtFirst {
		fmt.Fprintf(w, ", stopped at the first violation after %d", o.Ran)
	}
	fmt.Fprintf(w, ", %d simulated operations in %dms (%.0f%% of the runs' time checking): ", o.Ops, o.WallMs, 100*o.CheckShare)
	verdict := "as expected"
	switch {
	case o.Interrupted:
		verdict = "not decided (interrupted)"
	case len(o.Weak) > 0:
		verdict = "NOT as expected: weak, a required situation never reached"
	case !o.AsExpected:
		verdict = "NOT as expected"
	}
	if o.Lesson != "" {
		defer fmt.Fprintf(w, "lesson (%s): %s\n", o.Variant, o.Lesson)
	}
	defer fmt.Fprintf(w, "expected: %s: %s\n", o.Expected, verdict)
	defer fmt.Fprintf(w, "coverage: %s\n", o.Coverage)
	if len(o.Weak) > 0 {
		defer fmt.Fprintf(w, "weak: no run reached %s, which the scenario requires\n", strings.Join(o.Weak, ", "))
	}
	if len(o.Violations) == 0 {
		fmt.Fprintln(w, "every run held")
		return
	}
	fmt.Fprintf(w, "%d violations", len(o.Violations))
	if o.FailingSeeds > o.Kept {
		fmt.Fprintf(w, " in the lowest %d of %d failing seeds (the others counted, not kept)", o.Kept, o.FailingSeeds)
	}
	fmt.Fprintln(w)
	for i, v := range o.Violations {
		if i == 10 {
			fmt.Fprintf(w, "  ... and %d more (--json lists them all)\n", len(o.Violations)-10)
			break
		}
		fmt.Fprintf(w, "  seed %d: %s (%s): %s\n", v.Seed, v.Check, v.Kind, v.Message)
		if _, err := models.LookupModel(v.Check); err == nil && v.Kind == models.Undecided { // porcupine ran out of its limit
			fmt.Fprintf(w, "    its history: zksim run %s --seed %d --out DIR saves it (with the same limit); "+
				"zksim check DIR/history.json --model %s decides it without one\n", o.arg, v.Seed, v.Check)
		}
		if o.Interrupted {
			fmt.Fprintf(w, "    replay: zksim replay %s --seed %d\n", o.arg, v.Seed)
		}
	}
	if o.Shrunk != nil {
		how := "shrunk"
		switch {
		case o.Shrunk.Interrupted:
			how = "shrinking interrupted: not minimal, the smallest so far, found"
		case !o.Shrunk.Minimal:
			how = fmt.Sprintf("shrinking stopped at its bound of %d runs: not minimal, the smallest so far, found", search.MaxShrinkRuns)
		}
		fmt.Fprintf(w, "%s in %d runs to seed %d, %d clients, %d rounds, faults: %s\nreplay: %s\n",
			how, o.Shrunk.Tries, o.Shrunk.Seed, o.Shrunk.Clients, o.Shrunk.Rounds, orNone(strings.Join(o.Shrunk.Schedule, "; ")), o.Shrunk.Replay)
	}
	if report != nil {
		fmt.Fprint(w, report.String())
	}
}

// firstReportOptions say what zksim run does with its first violation.
type firstReportOptions struct {
	arg         string // the scenario as the command line named it
	shrink, all bool
	out         string
	limit       time.Duration // the checks' time limit (--check-limit)
}

// firstReport shrinks the first failure when asked (not an undecided one:
// shrinking keeps a run whose check fails, and an undecided check has not
// failed) and replays it for its report, written to opts.out when set.
// The replay keeps the run's check limit: a history that porcupine could
// not decide is saved, not searched again without end.
func firstReport(ctx context.Context, o *runOutput, spec scenarios.Spec, f search.Failure, opts firstReportOptions) (*reports.ViolationReport, error) {
	shown, err := search.Show(ctx, spec, f.Seed, f.Violations, search.ShowOptions{Shrink: opts.shrink, CheckLimit: opts.limit})
	if err != nil {
		return nil, err
	}
	if c := shown.Shrunk; c != nil {
		o.Shrunk = &runShrunk{Seed: c.Seed, Clients: c.Clients, Rounds: c.Rounds, Schedule: c.Schedule.Texts(),
			TraceHash: c.TraceHash, Tries: c.Tries, Minimal: c.Minimal,
			Violations: violationsOf(c.Seed, c.Schedule.Texts(), c.TraceHash, c.Violations),
			Replay: fmt.Sprintf("zksim replay %s --seed %d --clients %d --rounds %d --faults '%s'",
				opts.arg, c.Seed, c.Clients, c.Rounds, orNone(c.Faults())),
			Interrupted: ctx.Err() != nil}
	}
	oc := shown.Outcome
	report := &reports.ViolationReport{Outcome: oc, All: opts.all}
	if opts.out != "" {
		// An interrupt while it writes comes after every run: the command
		// ends as it would have a moment later.
		if _, err := writeViolationReport(report, opts.out); err != nil {
			return nil, err
		}
		o.Report = report.Files
	}
	return report, nil
}

// orNone is a schedule as a flag takes it: "none" for no faults.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// swarmOn has spec draw each seed's own mix of its random fault rates
// (--swarm), refused when it has none.
func swarmOn(spec *scenarios.Spec, arg string) error {
	if spec.Rates == nil {
		return usageError{fmt.Errorf("--swarm: it draws each seed's own mix of the scenario's random fault rates, "+
			"and %s has none (the built-in *-faults scenarios have them; a scenario file gives them with rates:)", arg)}
	}
	spec.Swarm = true
	return nil
}
