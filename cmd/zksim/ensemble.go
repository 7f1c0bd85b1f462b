package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/zksim/zksim/live"
)

func ensembleCmd() *cobra.Command {
	var (
		size        int
		name, state string
	)
	cmd := &cobra.Command{
		Use:   "ensemble start|stop|status",
		Short: "A local ZooKeeper ensemble on 127.0.0.1 (Debian's zookeeper package)",
		Long: `ensemble start starts a local ensemble of --size servers (1, 3 or 5) on free
loopback ports, from Debian's zookeeper package (installed when missing, if
it can be), waits until every server answers srvr, prints the connect
string, and runs until interrupted (SIGINT, SIGTERM) or until ensemble stop:
then it stops its servers and removes their directories. ensemble status asks
each server its mode. Each ensemble (--name, default "default") is recorded
in a file of its own under the user's cache directory; a record whose
processes are gone (its start command, or every server) is reported as stale
by status; start cleans up one whose start command is gone, and stop any,
signalling only processes it can identify as the ensemble's own.`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"start", "stop", "status"},
		RunE: func(cmd *cobra.Command, args []string) error {
			if state == "" {
				state = defaultStateFile(name)
			}
			switch args[0] {
			case "start":
				return ensembleStart(cmd, size, state)
			case "stop":
				return ensembleStop(cmd, state)
			case "status":
				return ensembleStatus(cmd, state)
			}
			return usageError{fmt.Errorf("ensemble %s: want start, stop or status", args[0])}
		},
	}
	cmd.Flags().IntVar(&size, "size", 3, "servers in the ensemble: 1, 3 or 5")
	cmd.Flags().StringVar(&name, "name", "default", "the ensemble's name, for its record")
	cmd.Flags().StringVar(&state, "state", "", "the ensemble's record (default: NAME.json under the user's cache directory)")
	return cmd
}

// ensembleStart starts an ensemble and runs until interrupted or stopped.
// Interrupted while starting, it leaves nothing behind: the servers die
// with it (their parent-death signal) and their directory is removed.
func ensembleStart(cmd *cobra.Command, size int, state string) error {
	switch size {
	case 1, 3, 5:
	default:
		return usageError{fmt.Errorf("--size %d: want 1, 3 or 5", size)}
	}
	if err := reserveState(state, procOf(os.Getpid(), "ensemble")); err != nil {
		return usageError{err}
	}
	scratch, err := os.MkdirTemp("", "zksim-ensemble-run-")
	if err != nil {
		os.Remove(state)
		return err
	}
	cleanup := func() {
		os.RemoveAll(scratch)
		os.Remove(state)
	}
	sig := make(chan os.Signal, 1)
	defer notifyInterrupts(sig)()
	type started struct {
		e   *live.Ensemble
		err error
	}
	done := make(chan started, 1)
	go func() {
		e, err := live.StartEnsemble(size, live.EnsembleOptions{Log: cmd.ErrOrStderr(), Dir: scratch})
		done <- started{e, err}
	}()
	var e *live.Ensemble
	select {
	case r := <-done:
		if r.err != nil {
			cleanup()
			return r.err
		}
		e = r.e
	case s := <-sig:
		cleanup()
		fmt.Fprintf(cmd.ErrOrStderr(), "%s while starting: the servers end with this process; nothing is left behind\n", s)
		return errInterrupted
	}
	st := ensembleState{Owner: procOf(os.Getpid(), "ensemble"), Dir: scratch, Servers: e.ConnectString()}
	for _, s := range e.Servers {
		st.Procs = append(st.Procs, procOf(s.PID(), filepath.Join(s.Dir, "zoo.cfg")))
	}
	if err := writeState(state, st); err != nil {
		e.Stop()
		cleanup()
		return err
	}
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "ensemble of %d up: %s (leader s%d); zksim ensemble stop, or interrupt, to stop it\n",
		size, strings.Join(st.Servers, ","), e.Leader()+1)
	<-sig
	err = e.Stop()
	cleanup()
	fmt.Fprintln(w, "ensemble stopped")
	return err
}

// ensembleStop asks the start command to stop its ensemble, or cleans up
// a stale one.
func ensembleStop(cmd *cobra.Command, state string) error {
	st, err := readState(state)
	if err != nil {
		return usageError{err}
	}
	w := cmd.OutOrStdout()
	if !st.running() {
		st.clean(state)
		fmt.Fprintf(w, "the ensemble recorded in %s had stopped (its start command, pid %d, is gone): cleaned up\n", state, st.Owner.PID)
		return nil
	}
	if err := syscall.Kill(st.Owner.PID, syscall.SIGTERM); err != nil {
		return err
	}
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if _, err := os.Stat(state); errors.Is(err, os.ErrNotExist) {
			fmt.Fprintln(w, "ensemble stopped")
			return nil
		}
	}
	return fmt.Errorf("the ensemble (pid %d) did not stop within 15s", st.Owner.PID)
}

// ensembleStatus says what each server is doing; a stale record (its
// start command gone, or every server) is reported as such (exit 1).
func ensembleStatus(cmd *cobra.Command, state string) error {
	st, err := readState(state)
	if err != nil {
		return usageError{err}
	}
	w := cmd.OutOrStdout()
	if !st.running() {
		fmt.Fprintf(w, "stale: the ensemble recorded in %s is gone (its start command, pid %d, is not running); "+
			"zksim ensemble stop cleans it up\n", state, st.Owner.PID)
		return errViolations
	}
	if !slices.ContainsFunc(st.Procs, proc.alive) {
		fmt.Fprintf(w, "stale: every server of the ensemble recorded in %s is gone, though its start command (pid %d) "+
			"still runs; zksim ensemble stop ends it and cleans up\n", state, st.Owner.PID)
		return errViolations
	}
	for i, addr := range st.Servers {
		mode := "not running"
		if st.Procs[i].alive() {
			if mode = live.Mode(addr); mode == "" {
				mode = "not serving"
			}
		}
		fmt.Fprintf(w, "s%d %s pid %d: %s\n", i+1, addr, st.Procs[i].PID, mode)
	}
	return nil
}
