package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/spf13/cobra"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/sim"
)

func demoCmd() *cobra.Command {
	var seed uint64
	var clients, servers int
	var hold time.Duration
	var faults string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run a small multi-client workload in the simulator and print its timeline",
		Long: `demo runs a few clients that take turns holding a lock, built from
ephemeral sequential znodes and a watch on the next lower node, in the
simulated ensemble, and prints the run's timeline and trace hash. The same
seed always prints the same timeline.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if clients < 1 || clients > 1000 {
				return usageError{fmt.Errorf("--clients: want 1 to 1000, got %d", clients)}
			}
			switch servers {
			case 1, 3, 5, 7:
			default:
				return usageError{fmt.Errorf("--servers: want 1, 3, 5 or 7, got %d", servers)}
			}
			sched, err := sim.ParseSchedule(faults)
			if err != nil {
				return usageError{fmt.Errorf("--faults: %w", err)}
			}
			return runDemo(cmd.OutOrStdout(), seed, servers, clients, hold, sched)
		},
	}
	cmd.Flags().Uint64Var(&seed, "seed", 1, "seed of the run")
	cmd.Flags().IntVar(&clients, "clients", 3, "number of clients")
	cmd.Flags().IntVar(&servers, "servers", 3, "servers in the ensemble: 1, 3, 5 or 7")
	cmd.Flags().DurationVar(&hold, "hold", 5*time.Millisecond, "how long each client holds the lock (virtual time)")
	cmd.Flags().StringVar(&faults, "faults", "", `faults to inject, e.g. "at 6ms crash leader; at 2s restart s3"`)
	return cmd
}

// runDemo is the interim main job: until the recipes and the scenario
// library exist, it runs a small turn-taking workload and shows its trace.
func runDemo(out io.Writer, seed uint64, servers, clients int, hold time.Duration, faults sim.Schedule) error {
	w, err := sim.New(sim.Config{Seed: seed, Servers: servers, KeepTrace: true})
	if err != nil {
		return err
	}
	acl := zk.WorldACL(zk.PermAll)
	var order []string
	for i := 0; i < clients; i++ {
		name := fmt.Sprintf("c%d", i+1)
		w.Spawn(name, func(ctx context.Context, c client.Conn) error {
			if _, err := c.Create(ctx, "/demo", nil, 0, acl); err != nil && err != zk.ErrNodeExists {
				return err
			}
			me, err := c.Create(ctx, "/demo/turn-", []byte(name), zk.FlagEphemeralSequential, acl)
			if err != nil {
				return err
			}
			mine := strings.TrimPrefix(me, "/demo/")
			for {
				kids, _, err := c.Children(ctx, "/demo")
				if err != nil {
					return err
				}
				slices.Sort(kids)
				i := slices.Index(kids, mine)
				if i == 0 {
					break
				}
				ok, _, watch, err := c.ExistsW(ctx, "/demo/"+kids[i-1])
				if err != nil {
					return err
				}
				if ok {
					if _, err := watch.Wait(ctx); err != nil {
						return err
					}
				}
			}
			order = append(order, name)
			if err := c.Sleep(ctx, hold); err != nil {
				return err
			}
			return c.Delete(ctx, me, -1)
		})
	}
	if err := w.Inject(faults); err != nil {
		return usageError{fmt.Errorf("--faults: %w", err)}
	}
	res := w.Run()
	if _, err := w.Trace().WriteTo(out); err != nil {
		return err
	}
	fmt.Fprintf(out, "\nturns taken in order: %s\n", strings.Join(order, ", "))
	fmt.Fprintf(out, "seed %d: %d operations, %d trace records, virtual time %s, trace hash %016x\n",
		seed, res.Ops, res.Records, strings.TrimSpace(res.End.String()), res.Hash)
	if res.Err != nil {
		return res.Err
	}
	if len(order) != clients {
		return fmt.Errorf("only %d of %d clients took their turn", len(order), clients)
	}
	return nil
}
