package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/zksim/zksim/live"
	"github.com/zksim/zksim/scenarios"
)

// liveFlags are zksim live's options.
type liveFlags struct {
	servers string
	seed    uint64
	timeout time.Duration
	asJSON  bool
}

func liveCmd() *cobra.Command {
	var fl liveFlags
	cmd := &cobra.Command{
		Use:   "live SCENARIO [--servers host:port,...]",
		Short: "Run a scenario on a live ZooKeeper ensemble (a local one unless --servers is given)",
		Long: `live runs a scenario (built-in or a file) once against a real ZooKeeper
ensemble, with the same workload and checks as in the simulator: on the
servers given, or on a local ensemble it starts on 127.0.0.1 from Debian's
zookeeper package (installed when missing, if it can be) and stops again,
also when interrupted. Live faults: crash and restart of local servers and
of the leader, client and server process pauses, disconnects, a session's
expiry (through a second connection with its id and password), lost and
delayed replies, requests and notifications, partitions, isolation, latency
spikes and a lagging follower on a local ensemble (its links between
servers go through proxies); the rest (a lagging leader or applier, the
applier's crash) are skipped when random and refused when scheduled. The workload goes
on until every fault has struck and the ensemble has had a session timeout
to recover, within --timeout. A run is weak (exit 1), not a pass, when a
fault the scenario names never struck, or none of its random faults did.

Exit status: 0 when the outcome is the scenario's expect: (no expect: means
every check must hold), 1 when it is not, 2 for bad input (a fault the
live world cannot inject among them, refused before any server starts),
130 when interrupted.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLiveScenario(cmd, args[0], fl)
		},
	}
	f := cmd.Flags()
	f.StringVar(&fl.servers, "servers", "", "the ensemble's client addresses, comma-separated (default: start a local one)")
	f.Uint64Var(&fl.seed, "seed", 0, "the seed that draws the scenario's random faults and places its clients, as in the simulator (default: the first of the scenario's seeds with which the simulator reaches its expected verdict; for one expected to hold under random faults, the first whose faults all strike in the simulator)")
	f.DurationVar(&fl.timeout, "timeout", 0, "bound the run (default: the liveness bound plus a minute)")
	f.BoolVar(&fl.asJSON, "json", false, "print one JSON object")
	return cmd
}

// runLiveScenario is zksim live on the scenario arg names: it checks the
// flags and the scenario's faults before any server starts, runs the
// scenario on the servers given or on a local ensemble it starts and
// stops, prints the outcome and ends with its exit status.
func runLiveScenario(cmd *cobra.Command, arg string, fl liveFlags) error {
	sc, err := resolveLive(cmd, arg, fl)
	if err != nil {
		return err
	}
	interrupt := make(chan struct{})
	opt := scenarios.LiveOptions{Timeout: fl.timeout, Progress: cmd.ErrOrStderr(), Interrupt: interrupt}
	var once sync.Once
	handoff := func(s os.Signal) {
		once.Do(func() {
			fmt.Fprintf(cmd.ErrOrStderr(), "%s: ending the run; what it did is judged and printed (again to stop at once)\n", s)
			close(interrupt)
		})
	}
	if fl.servers != "" {
		opt.Servers = strings.Split(fl.servers, ",")
		if err := live.Reachable(context.Background(), opt.Servers, 5*time.Second); err != nil {
			return runNotMadeError{fmt.Errorf("the run could not be made: %w", err)}
		}
		defer onSignals(handoff)()
	} else {
		e, stop, err := startLocalEnsemble(cmd, sc.Spec, handoff)
		if err != nil {
			return runNotMadeError{fmt.Errorf("the run could not be made: %w", err)}
		}
		defer stop()
		opt.Servers, opt.Ensemble = e.ConnectString(), e
	}
	seed := fl.seed
	if seed == 0 {
		var simulated *scenarios.Outcome
		seed, simulated = scenarios.LiveSeed(sc)
		fmt.Fprintf(cmd.ErrOrStderr(), "seed %d: in the simulator, %s\n", seed, simVerdict(simulated))
	}
	o, err := scenarios.RunLive(sc.Spec, seed, opt)
	if err != nil {
		return err
	}
	as, weak := o.Against(sc.Expect)
	as = as && !o.Interrupted
	if fl.asJSON {
		err = finish(printJSON(cmd.OutOrStdout(), liveOutput(sc, opt.Servers, o, as, weak)), !as)
	} else {
		printLive(cmd.OutOrStdout(), sc, opt.Servers, o, as, weak)
		err = finish(nil, !as)
	}
	if o.Interrupted {
		return errInterrupted
	}
	return err
}

// resolveLive loads the scenario arg names and refuses, as a usage error,
// the flags that name no run and the faults the live world cannot inject
// (on the servers given, or on a local ensemble): all before any server
// starts.
func resolveLive(cmd *cobra.Command, arg string, fl liveFlags) (*scenarios.Scenario, error) {
	sc, err := scenarios.LoadScenario(arg)
	if err != nil {
		return nil, usageError{err}
	}
	if cmd.Flags().Changed("seed") && fl.seed == 0 {
		return nil, usageError{fmt.Errorf("--seed: seeds are numbered from 1, got 0")}
	}
	if cmd.Flags().Changed("timeout") && fl.timeout <= 0 {
		return nil, usageError{fmt.Errorf("--timeout: want a duration above zero, got %s", fl.timeout)}
	}
	if err := scenarios.CheckLiveScenario(sc, fl.servers == ""); err != nil {
		return nil, usageError{err}
	}
	return sc, nil
}

// startLocalEnsemble starts the local ensemble a scenario runs on live:
// as many servers as its ensemble has (3 when it says not), with its
// ZooKeeper settings, and its links between servers proxied when its
// faults act on them. stop stops it again (localEnsemble).
func startLocalEnsemble(cmd *cobra.Command, spec scenarios.Spec, handoff func(os.Signal)) (*live.Ensemble, func(), error) {
	cfg := spec.Ensemble
	size := cfg.Servers
	if size == 0 {
		size = 3
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "starting a local ensemble of %d servers...\n", size)
	return localEnsemble(cmd, size, handoff, live.EnsembleOptions{ExtendedTypes: cfg.ExtendedTypes,
		ContainerCheckInterval: cfg.ContainerCheckInterval, ProxyPeers: scenarios.NeedsProxiedLinks(spec)})
}

// liveOutput is what `zksim live --json` prints: the run on servers,
// whether it was as the scenario expects (as), its violations and the
// faults it injected, skipped or never struck.
func liveOutput(sc *scenarios.Scenario, servers []string, o *scenarios.LiveOutcome, as bool, weak string) map[string]any {
	vs := violationsOf(o.Seed, o.Schedule.Texts(), "", o.Violations)
	if vs == nil {
		vs = []runViolation{}
	}
	injected := o.Injected
	if injected == nil {
		injected = []live.StruckFault{}
	}
	return map[string]any{"scenario": sc.Name, "seed": o.Seed, "servers": servers, "expected": sc.Expect.String(),
		"as_expected": as, "violations": vs, "ops": len(o.Input.Ops), "wall_ms": o.Wall.Milliseconds(),
		"timed_out": o.TimedOut, "quiesced": o.Quiesced, "skipped_faults": o.Skipped, "injected_faults": injected,
		"never_struck_faults": o.NeverStruck.Texts(), "unreached_triggers": append([]string{}, o.Unreached...), "weak": weak,
		"placement":   scenarios.PlacementLines(o.Placement),
		"interrupted": o.Interrupted, "stopped_clients": append([]string{}, o.Stopped...), "coverage": o.Coverage,
		"not_judged_live": append([]string{}, o.NotJudged...)}
}

// printLive prints a live run on servers for a reader: its operations and
// time, the faults injected, never struck and skipped, the violations,
// and whether it was as the scenario expects (as).
func printLive(w io.Writer, sc *scenarios.Scenario, servers []string, o *scenarios.LiveOutcome, as bool, weak string) {
	fmt.Fprintf(w, "%s live on %s: %d operations in %s", sc.Name, strings.Join(servers, ","), len(o.Input.Ops),
		o.Wall.Round(time.Millisecond))
	if o.TimedOut {
		fmt.Fprint(w, " (stopped at its time bound)")
	}
	if o.Interrupted {
		fmt.Fprint(w, " (interrupted: the clients stopped, what finished is judged)")
	}
	if o.Quiesced {
		fmt.Fprint(w, " (ended when nothing more could happen: no fault to come, and no operation"+
			" returned for longer than the liveness bound; the waits still blocked are judged as they stand)")
	}
	fmt.Fprintln(w)
	if len(o.Placement) > 0 {
		fmt.Fprintf(w, "  clients try the servers in the simulator's order for seed %d: %s\n", o.Seed,
			strings.Join(scenarios.PlacementLines(o.Placement), ", "))
	}
	for _, f := range o.Injected {
		fmt.Fprintf(w, "  injected at %s (%s): %s\n", f.At.Round(time.Millisecond), f.Wall.Format("15:04:05.000"), f.Text)
	}
	for _, f := range o.NeverStruck {
		fmt.Fprintf(w, "  never struck (the run ended first, or its trigger never came): %s\n", f)
	}
	for _, u := range o.Unreached {
		fmt.Fprintf(w, "  never reached live: %s\n", u)
	}
	for _, f := range o.Skipped {
		fmt.Fprintf(w, "  skipped (not injectable live): %s\n", f)
	}
	if len(o.NotJudged) > 0 {
		fmt.Fprintf(w, "  not judged live (the simulator judges it): %s\n", strings.Join(o.NotJudged, ", "))
	}
	if len(o.Stopped) > 0 {
		fmt.Fprintf(w, "  stopped at work as the run ended: %s\n", strings.Join(o.Stopped, ", "))
	}
	fmt.Fprintf(w, "coverage: %s\n", o.Coverage)
	if len(o.Violations) == 0 {
		fmt.Fprintln(w, "every check held")
	}
	for _, v := range o.Violations {
		fmt.Fprintf(w, "  %s\n", v)
	}
	verdict := "as expected"
	switch {
	case o.Interrupted:
		verdict = "not decided (interrupted)"
	case weak != "":
		verdict = "NOT as expected: weak, " + weak + " (a pass is worth the faults it met)"
	case !as:
		verdict = "NOT as expected"
	}
	fmt.Fprintf(w, "expected: %s: %s\n", sc.Expect, verdict)
}

// simVerdict says in a few words what the simulator concluded of a run.
func simVerdict(o *scenarios.Outcome) string {
	if o == nil {
		return "the scenario does not run"
	}
	if len(o.Violations) == 0 {
		return "every check held"
	}
	v := o.Violations[0]
	return fmt.Sprintf("%s violation (%s)", v.Kind, v.Check)
}

// finish ends a command: an error, or status 1 when the outcome was not
// the scenario's expectation.
func finish(err error, notAsExpected bool) error {
	if err != nil {
		return err
	}
	if notAsExpected {
		return errNotAsExpected
	}
	return nil
}

// interruptible makes an interrupt (SIGINT, SIGTERM) of a command that
// cannot stop half-way run cleanup (a local ensemble's stop, the scratch
// of a report not yet written), print what cleanup says is left, and exit
// 130; the returned function ends that.
func interruptible(cmd *cobra.Command, cleanup func() (left string)) func() {
	sig := make(chan os.Signal, 1)
	stop := notifyInterrupts(sig)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sig:
			fmt.Fprintf(cmd.ErrOrStderr(), "%s: interrupted; %s\n", s, cleanup())
			os.Exit(130)
		case <-done:
		}
	}()
	return func() {
		stop()
		close(done)
	}
}

// onSignals calls handoff on the first SIGINT or SIGTERM, and exits 130 on
// a second; what it returns stops listening.
func onSignals(handoff func(os.Signal)) func() {
	sig := make(chan os.Signal, 2)
	stop := notifyInterrupts(sig)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sig:
			handoff(s)
		case <-done:
			return
		}
		select {
		case <-sig:
			os.Exit(130)
		case <-done:
		}
	}()
	return func() {
		stop()
		close(done)
	}
}

// localEnsemble starts a local ensemble of size servers for a command, in
// a directory of its own. When the command is interrupted (SIGINT,
// SIGTERM), also while the ensemble starts, it stops the servers (while
// starting, they end with this process, by their parent-death signal),
// removes their directory and exits 130: no server or directory outlives
// the command. With handoff, a signal once the ensemble is up goes to
// handoff instead (the command ends its run and reports it, then stops the
// ensemble), and a second one stops it at once. stop does the same when
// the command is done.
func localEnsemble(cmd *cobra.Command, size int, handoff func(os.Signal), opt live.EnsembleOptions) (*live.Ensemble, func(), error) {
	scratch, err := os.MkdirTemp("", "zksim-ensemble-run-")
	if err != nil {
		return nil, nil, err
	}
	opt.Dir, opt.Log = scratch, cmd.ErrOrStderr()
	sig := make(chan os.Signal, 1)
	unsubscribe := notifyInterrupts(sig)
	type started struct {
		e   *live.Ensemble
		err error
	}
	done := make(chan started, 1)
	go func() {
		e, err := live.StartEnsemble(size, opt)
		done <- started{e, err}
	}()
	var e *live.Ensemble
	select {
	case r := <-done:
		if r.err != nil {
			unsubscribe()
			os.RemoveAll(scratch)
			return nil, nil, r.err
		}
		e = r.e
	case s := <-sig:
		fmt.Fprintf(cmd.ErrOrStderr(), "%s while the local ensemble starts: its servers end with this process\n", s)
		os.RemoveAll(scratch)
		os.Exit(130)
	}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			unsubscribe()
			e.Stop()
			os.RemoveAll(scratch)
		})
	}
	go func() {
		s := <-sig
		if handoff != nil { // the command ends its run and reports it; a second signal stops at once
			handoff(s)
			s = <-sig
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "%s: stopping the local ensemble\n", s)
		stop()
		os.Exit(130)
	}()
	return e, stop, nil
}
