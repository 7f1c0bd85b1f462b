package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/scenarios"
	"github.com/zksim/zksim/serve"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/workload"
)

// serveFlags are zksim serve's options.
type serveFlags struct {
	runs     int
	shrink   bool
	minFails int
	seed     uint64
	tape     string
	faults   string
	checks   string
	out      string
	trace    bool
	json     bool
}

func serveCmd() *cobra.Command {
	var fl serveFlags
	cmd := &cobra.Command{
		Use:   "serve SCENARIO [--seed N] [--runs K [--shrink --min-fails M]] [--faults F] [--checks C] [--tape FILE] [--trace] [--out DIR] [--json] [-- COMMAND ARGS...]",
		Short: "Serve a scenario's simulated ensemble to real ZooKeeper clients, over the wire",
		Long: `serve runs the simulated ensemble of a scenario (a built-in one or a file),
with its faults but not its workload, and serves it to real ZooKeeper clients
over ZooKeeper's own wire protocol: one 127.0.0.1 port per simulated server,
virtual time paced by the clock. The first line it prints is

    connect: 127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3

the connect string for any ZooKeeper client (zkCli.sh, Curator, kazoo,
go-zookeeper). Clients are named c1, c2, ... in the order their first
session connects; the scenario's faults name them so ("at 3s expire c1").

With a COMMAND after --, serve starts it with ZKSIM_CONNECT set to that
string, and ends when it exits; "pause cN" then stops cN's process
(SIGSTOP, then SIGCONT): the one at the client's end of its connection,
found in /proc, with every client it holds, or the command's every
process when none is found. Without one, it serves until interrupted.

--runs K serves it K times, the command run against each fresh ensemble,
and says in how many runs a check broke: real clients do not replay, so a
counterexample is a reproduction rate (the tape kept is the first breaking
run's). It says too in which runs the command failed (the runs go on) and
in how many every fault struck (a run over before its faults struck tried
less than its schedule).

--shrink (with a command and faults) leaves out each fault whose schedule
still breaks a check in --min-fails of --runs runs, and prints the smallest
schedule found and its rate.

--tape FILE writes every frame in and out, with its virtual time, to FILE
(whole, or not at all): zksim replay --tape FILE rebuilds the server side
of the run exactly, without any client.

The run is judged by the checks that need nothing from its clients (--checks:
ownership, the default; leaks) and, when its clients record what they
believed on ZKSIM_EVENTS (the second line printed), by its kind's checks: a
violation is shown with its report, whose files --out writes; --trace
prints the timeline, --json one object.

Exit status: 1 when a check found a violation in a run (or the simulator's
self-checks failed); else the command's, if it failed; else 0; 2 for bad
input; 130 when interrupted, after writing the tape and the summary.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dash := cmd.ArgsLenAtDash()
			if dash > 1 || (dash < 0 && len(args) > 1) {
				return usageError{fmt.Errorf("serve takes one scenario, then -- and the command to run (got %q)", args)}
			}
			var command []string
			if dash == 1 {
				command = args[1:]
				if len(command) == 0 {
					return usageError{errors.New("serve: nothing after --: name the command to run, or leave -- out")}
				}
			}
			return serveScenario(cmd, args[0], command, fl)
		},
	}
	f := cmd.Flags()
	f.Uint64Var(&fl.seed, "seed", 1, "the seed of the simulated ensemble's choices")
	f.IntVar(&fl.runs, "runs", 1, "serve the scenario this many times, the command run against each, and say in how many a check broke")
	f.BoolVar(&fl.shrink, "shrink", false, "leave out each fault whose schedule still breaks a check in --min-fails of --runs runs, and print the smallest")
	f.IntVar(&fl.minFails, "min-fails", 1, "with --shrink: how many of the --runs runs must still break a check")
	f.StringVar(&fl.tape, "tape", "", "write the run's tape (every frame, with its virtual time) to this file")
	f.StringVar(&fl.faults, "faults", "", "replace the scenario's faults (schedule syntax, '; '-separated; none: no faults)")
	f.StringVar(&fl.checks, "checks", "", "the checks that judge the run, comma-separated: ownership (the default), leaks")
	f.BoolVar(&fl.trace, "trace", false, "print the run's timeline (a column per client and server)")
	f.StringVar(&fl.out, "out", "", "write a violation's report files (timeline, space-time diagram, history) into this directory")
	f.BoolVar(&fl.json, "json", false, "print the summary as one JSON object")
	return cmd
}

// serveScenario is zksim serve: the scenario served --runs times (each a
// fresh ensemble of the same seed and schedule, the command run against
// it), each run's summary, and with several runs how many broke a check.
func serveScenario(cmd *cobra.Command, arg string, command []string, fl serveFlags) error {
	sc, opts, err := servedOptions(cmd, arg, fl)
	if err != nil {
		return err
	}
	if fl.shrink {
		if len(command) == 0 || len(opts.Faults) == 0 || fl.minFails > max(fl.runs, 1) {
			return usageError{errors.New("--shrink needs a command after --, a schedule of faults, and --min-fails at most --runs")}
		}
		broke, err := shrinkServed(servedOut{cmd.OutOrStdout(), cmd.ErrOrStderr()}, sc, opts, command, fl)
		if err == nil && broke {
			err = errViolations
		}
		return err
	}
	runs := max(fl.runs, 1)
	var broke, failed []int // the runs a check broke in, and those whose command failed
	var last servedRun
	var lastFailure error
	ran, struckAll := 0, 0 // the runs served, and those in which every fault struck
	for i := 1; i <= runs; i++ {
		if last, err = serveOnce(servedOut{cmd.OutOrStdout(), cmd.ErrOrStderr()}, sc, opts, command, fl, tapeOf(fl.tape, i, runs)); err != nil {
			return err
		}
		ran++
		if last.o != nil && len(last.o.Result.Struck) >= len(opts.Faults) {
			struckAll++
		}
		if last.broke() {
			broke = append(broke, i)
		}
		if last.childErr != nil {
			failed, lastFailure = append(failed, i), last.childErr
		}
		if last.interrupted {
			break
		}
	}
	if runs > 1 {
		keepTape(fl.tape, broke, runs)
		fmt.Fprintf(cmd.OutOrStdout(), "%s: a check broke in %d of %d runs %v%s (real clients do not replay: their threads, "+
			"GC and retries are their own; the servers' side of each run replays from its tape)\n", sc.Name, len(broke), ran, broke,
			runsCaveats(ran, runs, struckAll, len(opts.Faults), failed))
	}
	switch {
	case last.interrupted:
		return interruptedError{errors.New("interrupted")}
	case len(broke) > 0:
		return errViolations
	case lastFailure != nil:
		return childFailed{lastFailure}
	}
	return nil
}

// runsCaveats says what a count of broken runs does not say: runs not
// served (an interrupt), runs whose command failed (a client that hung
// until its own timeout ended it fails so: the runs go on, and a check
// may have broken in them too), and runs that ended before every fault of
// the schedule struck (a hold there tried less than the schedule).
func runsCaveats(ran, runs, struckAll, faults int, failed []int) string {
	var c []string
	if ran < runs {
		c = append(c, fmt.Sprintf("stopped after run %d of %d", ran, runs))
	}
	if len(failed) > 0 {
		c = append(c, fmt.Sprintf("the command failed in runs %v", failed))
	}
	if faults > 0 && struckAll < ran {
		c = append(c, fmt.Sprintf("every fault struck in only %d of %d runs", struckAll, ran))
	}
	if len(c) == 0 {
		return ""
	}
	return "; " + strings.Join(c, "; ")
}

// servedOptions reads the scenario and the flags into what to serve,
// refusing bad input before any work starts.
func servedOptions(cmd *cobra.Command, arg string, fl serveFlags) (*scenarios.Scenario, serve.Options, error) {
	sc, err := scenarios.LoadServedScenario(arg)
	if err != nil {
		return nil, serve.Options{}, usageError{err}
	}
	judging := servedJudging{Workload: sc.Spec.Workload, Bound: sc.Spec.Bound}
	opts := serve.Options{Config: sc.Spec.Ensemble, Faults: sc.Spec.Faults, Name: sc.Name, Kind: sc.Spec.Kind,
		Judging: judging.encode()}
	opts.Config.Seed = fl.seed
	if opts.Checks, err = servedChecks(fl.checks); err != nil {
		return nil, opts, err
	}
	if fl.runs < 1 {
		return nil, opts, usageError{fmt.Errorf("--runs %d: want 1 or more", fl.runs)}
	}
	if fl.out != "" {
		if err := checkOutDir("--out", fl.out); err != nil {
			return nil, opts, err
		}
	}
	if cmd.Flags().Changed("faults") {
		if opts.Faults, err = fault.ParseSchedule(strings.TrimSpace(strings.TrimPrefix(fl.faults, "none"))); err != nil {
			return nil, opts, usageError{fmt.Errorf("--faults: %w", err)}
		}
	} else if sc.Spec.Rates != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "zksim serve: %s's random faults are not served (its schedule is); give a schedule with --faults\n", sc.Name)
	}
	return sc, opts, nil
}

// servedOut is where a served run writes: zksim's lines and the
// command's output (w), and the command's errors (errW).
type servedOut struct{ w, errW io.Writer }

// shared is out made safe for the command's output, which exec copies in
// goroutines of its own unless a writer is a file, and zksim's own lines
// (a pause's report) written meanwhile: each writer that is not a file is
// locked, one lock per writer.
func (out servedOut) shared() servedOut {
	lock := func(w io.Writer) io.Writer {
		if _, ok := w.(*os.File); ok {
			return w
		}
		return &lockedWriter{w: w}
	}
	w := lock(out.w)
	if out.errW == out.w {
		return servedOut{w, w}
	}
	return servedOut{w, lock(out.errW)}
}

// lockedWriter is a writer one goroutine at a time writes to.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// servedRun is how one served run went.
type servedRun struct {
	o           *scenarios.Outcome
	interrupted bool
	childErr    error
}

func (r servedRun) broke() bool {
	return r.o != nil && (r.o.Failed() || len(r.o.Result.Violations) > 0)
}

// serveOnce serves one run: the front end listening, the command (if any)
// run against it, the run judged and its summary printed.
func serveOnce(out servedOut, sc *scenarios.Scenario, opts serve.Options, command []string, fl serveFlags, tape string) (servedRun, error) {
	var child *childProcess
	if len(command) > 0 {
		out = out.shared()
		child = &childProcess{report: out.errW}
		opts.Pause = child.pause
	}
	var err error
	if tape != "" {
		if opts.Tape, err = serve.CreateTape(tape, opts); err != nil {
			return servedRun{}, usageError{err}
		}
	}
	front, err := serve.New(opts)
	if err != nil {
		return servedRun{}, usageError{fmt.Errorf("%s: %w", sc.Name, err)}
	}
	connect, events, err := listen(out.w, front)
	if err != nil {
		return servedRun{}, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var interrupted atomic.Bool
	stopSignals := onSignals(func(os.Signal) { interrupted.Store(true); cancel() })
	defer stopSignals()
	if child != nil {
		if err := startChild(out, child, command, connect, events, fl, cancel); err != nil {
			front.Run(ctx) //nolint:errcheck // nothing was served; the command's error is the one to tell
			return servedRun{}, err
		}
	}
	res, err := front.Run(ctx)
	if child != nil {
		child.stop()
	}
	if err != nil {
		return servedRun{}, err
	}
	o, err := judgeServed(sc, opts, front, res)
	if err != nil {
		return servedRun{}, err
	}
	run := servedRun{o: o, interrupted: interrupted.Load()}
	if child != nil {
		run.childErr = child.err
	}
	return run, printServedRun(out.w, o, fl, tape, child)
}

// listen opens the front end's ports and its events socket, and prints
// the connect string first and the events' address second.
func listen(w io.Writer, front *serve.Front) (connect, events string, err error) {
	addrs, err := front.Listen()
	if err != nil {
		return "", "", runNotMadeError{err}
	}
	if events, err = front.ListenEvents(); err != nil {
		return "", "", runNotMadeError{err}
	}
	connect = strings.Join(addrs, ",")
	fmt.Fprintf(w, "connect: %s\nevents: %s\n", connect, events)
	return connect, events, nil
}

// startChild starts the command; with --json its output goes to standard
// error, so that standard output is the summary's alone.
func startChild(out servedOut, child *childProcess, command []string, connect, events string, fl serveFlags, cancel func()) error {
	childOut := out.w
	if fl.json {
		childOut = out.errW
	}
	if err := child.start(command, connect, events, childOut, out.errW, cancel); err != nil {
		cancel()
		return runNotMadeError{err}
	}
	return nil
}

// judgeServed judges a served run by what its clients recorded and what
// its servers saw.
func judgeServed(sc *scenarios.Scenario, opts serve.Options, front *serve.Front, res sim.Result) (*scenarios.Outcome, error) {
	ops, err := scenarios.RecordedOps(front.RecipeOps(), res.End)
	if err != nil {
		return nil, err
	}
	judging, err := decodeJudging(opts.Judging)
	if err != nil {
		return nil, err
	}
	return scenarios.Served(scenarios.ServedRun{Name: sc.Name, World: front.World(), Result: res, Schedule: opts.Faults,
		Checks: opts.Checks, Kind: opts.Kind, Ops: ops, Workload: judging.Workload, Bound: judging.Bound})
}

// tapeOf is where run i of runs writes its tape: the --tape file itself
// for one run, else beside it, numbered (keepTape keeps one).
func tapeOf(tape string, i, runs int) string {
	if tape == "" || runs == 1 {
		return tape
	}
	return fmt.Sprintf("%s.run%d", tape, i)
}

// keepTape keeps, of several runs' tapes, the first run's that broke a
// check (else the last run's) as the --tape file, and removes the others.
func keepTape(tape string, broke []int, runs int) {
	if tape == "" {
		return
	}
	keep := runs
	if len(broke) > 0 {
		keep = broke[0]
	}
	for i := 1; i <= runs; i++ {
		if i == keep {
			os.Rename(tapeOf(tape, i, runs), tape) //nolint:errcheck // a run cut short wrote none
			continue
		}
		os.Remove(tapeOf(tape, i, runs)) //nolint:errcheck
	}
}

// servedJudging is what of the served scenario the run is judged with
// (scenarios.ServedRun's Workload and Bound), kept on the tape so that
// zksim replay --tape judges the run as serve did.
type servedJudging struct {
	Workload workload.Shape `json:"workload"`
	Bound    time.Duration  `json:"bound,omitempty"`
}

func (j servedJudging) encode() json.RawMessage {
	b, _ := json.Marshal(j) // plain fields: it cannot fail
	return b
}

// decodeJudging reads a tape's judging settings (none on a tape written
// before they were kept).
func decodeJudging(raw json.RawMessage) (servedJudging, error) {
	var j servedJudging
	if len(raw) == 0 {
		return j, nil
	}
	err := json.Unmarshal(raw, &j)
	return j, err
}

// servedChecks reads --checks: none for the defaults (the kind's when the
// clients record their operations, else scenarios.DefaultServedChecks).
func servedChecks(list string) ([]string, error) {
	if list == "" {
		return nil, nil
	}
	var checks []string
	for _, c := range strings.Split(list, ",") {
		c = strings.TrimSpace(c)
		if _, err := models.Lookup(c); err != nil {
			return nil, usageError{fmt.Errorf("--checks: %w", err)}
		}
		checks = append(checks, c)
	}
	return checks, nil
}

// printServedRun prints what a served run came to: the summary, or one
// JSON object (--json), and where its tape is.
func printServedRun(w io.Writer, o *scenarios.Outcome, fl serveFlags, tape string, child *childProcess) error {
	if fl.json {
		v := servedSummary(o, fl.seed)
		if tape != "" {
			v["tape"] = tape
		}
		if child != nil {
			v["command_exit"] = child.exitCode()
		}
		return printJSON(w, v)
	}
	if err := printServedOutcome(w, o, fl.seed, fl.trace, fl.out); err != nil {
		return err
	}
	if tape != "" {
		fmt.Fprintf(w, "tape: %s (zksim replay --tape %s --hash)\n", tape, tape)
	}
	return nil
}

// childFailed carries the command's failure: zksim serve exits with its
// status.
type childFailed struct{ error }

// exitCode is the command's exit status (1 if it died of a signal or did
// not start).
func (c childFailed) exitCode() int {
	var exit *exec.ExitError
	if errors.As(c.error, &exit) && exit.ExitCode() > 0 {
		return exit.ExitCode()
	}
	return 1
}

// childProcess is the command zksim serve runs against the front end.
type childProcess struct {
	cmd    *exec.Cmd
	done   chan struct{}
	err    error
	mu     sync.Mutex
	report io.Writer // what a pause stopped, for the person running it
}

// start starts the command, in a process group of its own (so that an
// interrupt reaches all of it), with ZKSIM_CONNECT and ZKSIM_EVENTS set;
// cancel is called when it exits.
func (c *childProcess) start(command []string, connect, events string, stdout, stderr io.Writer, cancel func()) error {
	c.cmd = exec.Command(command[0], command[1:]...)
	c.cmd.Env = append(os.Environ(), "ZKSIM_CONNECT="+connect, "ZKSIM_EVENTS="+events)
	c.cmd.Stdout, c.cmd.Stderr = stdout, stderr
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.cmd.Start(); err != nil {
		return fmt.Errorf("serve: starting %s: %w", command[0], err)
	}
	c.done = make(chan struct{})
	go func() {
		err := c.cmd.Wait()
		c.mu.Lock()
		c.err = err
		c.mu.Unlock()
		close(c.done)
		cancel()
	}()
	return nil
}

// pause stops client's process for d, as a collection pause stops one
// process: the one at the client's end of its open connections
// (sockowner.go), with every client it holds (a JVM's threads are all
// stopped). When none can be found (the client has no connection open
// just then), every process of the command is stopped, and it says so.
func (c *childProcess) pause(client string, conns []serve.Ends, d time.Duration) {
	if c.cmd == nil || c.cmd.Process == nil {
		return
	}
	root := c.cmd.Process.Pid
	targets, what := socketOwners(conns, root), ""
	for _, pid := range targets {
		what += fmt.Sprintf(", process %d (%s)", pid, processName(pid))
	}
	if len(targets) == 0 {
		targets, what = processTree(root), ", no process found at its end: every process of the command"
	}
	fmt.Fprintf(c.report, "zksim serve: pause %s for %s%s\n", client, d, what)
	signalAll(targets, syscall.SIGSTOP)
	time.AfterFunc(d, func() { signalAll(targets, syscall.SIGCONT) })
}

// signalAll sends sig to each process of pids that still runs.
func signalAll(pids []int, sig syscall.Signal) {
	for _, pid := range pids {
		syscall.Kill(pid, sig) //nolint:errcheck // it may have ended
	}
}

// stop ends the command, if it still runs (zksim serve was interrupted):
// SIGTERM to its group and to every process it started (some leave its
// group: GNU timeout's command does), then SIGKILL after a grace.
func (c *childProcess) stop() {
	if c.cmd == nil || c.cmd.Process == nil {
		return
	}
	select {
	case <-c.done:
		return
	default:
	}
	all := append(processTree(c.cmd.Process.Pid), -c.cmd.Process.Pid)
	signalAll(all, syscall.SIGCONT)
	signalAll(all, syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(3 * time.Second):
		signalAll(all, syscall.SIGKILL)
		<-c.done
	}
}

// exitCode is the command's exit status (-1 if it did not exit).
func (c *childProcess) exitCode() int {
	if c.cmd == nil || c.cmd.ProcessState == nil {
		return -1
	}
	return c.cmd.ProcessState.ExitCode()
}
