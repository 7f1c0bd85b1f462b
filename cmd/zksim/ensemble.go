package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/zksim/zksim/live"
)

// ensembleState is what `zksim ensemble start` records for stop and
// status: its own PID, its servers' addresses and PIDs.
type ensembleState struct {
	PID     int      `json:"pid"`
	Dir     string   `json:"dir"`
	Servers []string `json:"servers"`
	PIDs    []int    `json:"server_pids"`
}

func ensembleCmd() *cobra.Command {
	var (
		size  int
		state string
	)
	cmd := &cobra.Command{
		Use:   "ensemble start|stop|status",
		Short: "A local ZooKeeper ensemble on 127.0.0.1 (Debian's zookeeper package)",
		Long: `ensemble start starts a local ensemble of --size servers (1, 3 or 5) on free
loopback ports, from Debian's zookeeper package (installed when missing, if
it can be), waits until every server answers srvr, prints the connect
string, and runs until interrupted (SIGINT, SIGTERM) or until ensemble stop:
then it stops its servers. ensemble status asks each server its mode.`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"start", "stop", "status"},
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			switch args[0] {
			case "start":
				if _, err := readState(state); err == nil {
					return usageError{fmt.Errorf("an ensemble is already recorded in %s: zksim ensemble stop first", state)}
				}
				e, err := live.StartEnsemble(size, live.EnsembleOptions{Log: cmd.ErrOrStderr()})
				if err != nil {
					return err
				}
				st := ensembleState{PID: os.Getpid(), Dir: e.Dir, Servers: e.ConnectString()}
				for _, s := range e.Servers {
					st.PIDs = append(st.PIDs, s.PID())
				}
				data, _ := json.MarshalIndent(st, "", "  ")
				if err := os.WriteFile(state, data, 0o644); err != nil {
					e.Stop()
					return err
				}
				fmt.Fprintf(w, "ensemble of %d up: %s (leader s%d); zksim ensemble stop, or interrupt, to stop it\n",
					size, strings.Join(st.Servers, ","), e.Leader()+1)
				sig := make(chan os.Signal, 1)
				signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
				<-sig
				err = e.Stop()
				os.Remove(state)
				fmt.Fprintln(w, "ensemble stopped")
				return err
			case "stop":
				st, err := readState(state)
				if err != nil {
					return usageError{err}
				}
				if p, err := os.FindProcess(st.PID); err == nil {
					_ = p.Signal(syscall.SIGTERM)
				}
				for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
					if _, err := os.Stat(state); errors.Is(err, os.ErrNotExist) {
						fmt.Fprintln(w, "ensemble stopped")
						return nil
					}
				}
				return fmt.Errorf("the ensemble (pid %d) did not stop within 15s", st.PID)
			case "status":
				st, err := readState(state)
				if err != nil {
					return usageError{err}
				}
				for i, addr := range st.Servers {
					mode := live.Mode(addr)
					if mode == "" {
						mode = "not serving"
					}
					fmt.Fprintf(w, "s%d %s pid %d: %s\n", i+1, addr, st.PIDs[i], mode)
				}
				return nil
			}
			return usageError{fmt.Errorf("ensemble %s: want start, stop or status", args[0])}
		},
	}
	cmd.Flags().IntVar(&size, "size", 3, "servers in the ensemble: 1, 3 or 5")
	cmd.Flags().StringVar(&state, "state", filepath.Join(os.TempDir(), "zksim-ensemble.json"), "where the running ensemble is recorded")
	return cmd
}

func readState(path string) (*ensembleState, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("no local ensemble recorded (%s): zksim ensemble start first", path)
	}
	var st ensembleState
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &st, nil
}
