package scenarios

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/recipes"
)

// The workload of the double barrier. Every client is a process, named
// "c01", "c02" ... (zero-padded, so that the recipe's lowest process is c1
// up to 99 clients). In each of Rounds rounds, on a fresh barrier node
// ("/zksim/double-barrier/r1", "/zksim/double-barrier/r2" ...: a double
// barrier serves one round), each process enters, computes, and leaves.
// Process i computes for Step × (1 + (i+round) mod clients): they finish
// one after another, and a different one last in each round. The barrier
// waits for Size processes (default: every client).
//
// Failures. In the last round the Failures lowest processes (c1, c2 ...)
// fail halfway through their computation: the workload records Fail, and
// the process stops for good without leaving. It crashes, as a process
// does: it stops running and sends nothing, heartbeats included, so its
// session expires after the session timeout and its node goes with it
// (in the simulator the client pauses for three session timeouts, then
// its body returns; returning at once would close the session, which is
// a clean exit, not a crash). The others must not be blocked by it.
//
// Lost sessions. A process whose session expired while it computed (a
// random pause, a partition) finds its node gone when it leaves: Leave
// says ErrNodeVanished, the others did not wait for it. For the checks
// it failed in that round, at the latest when its computation began (the
// workload cannot know when its session expired): the workload records
// Fail at the instant Enter returned, and no Leave. It takes part in the
// next round.
//
// Recorded: Enter, Leave (OK, or Pending when the run ended first), Fail
// (Data: the process's name). Enter and Leave span their retries after
// errors a caller must expect under faults (an Enter whose session expired
// is made again).

func init() {
	registerKind(&kind{
		name: "double-barrier", doc: "double barrier (recipes.DoubleBarrier); every client enters, computes and leaves, in rounds",
		clients: 5, minClients: 1,
		recipe: Implementation{DoubleBarrier: func(c client.Conn, p, name string, size int) recipes.DoubleBarrier {
			return recipes.NewDoubleBarrier(c, p, name, size)
		}},
		variants: map[string]Implementation{
			"doublebarrier-herd": {DoubleBarrier: func(c client.Conn, p, name string, size int) recipes.DoubleBarrier {
				return recipes.NewHerdDoubleBarrier(c, p, name, size)
			}},
			"doublebarrier-trusts-lowest": {DoubleBarrier: func(c client.Conn, p, name string, size int) recipes.DoubleBarrier {
				return recipes.NewTrustingDoubleBarrier(c, p, name, size)
			}},
			"doublebarrier-counts-ready": {DoubleBarrier: func(c client.Conn, p, name string, size int) recipes.DoubleBarrier {
				return recipes.NewReadyCountingDoubleBarrier(c, p, name, size)
			}},
		},
		defaults: func(w *Workload, clients int) {
			orDefault(&w.Rounds, 3)
			orDefault(&w.Step, 10*time.Millisecond)
			orDefault(&w.Size, clients)
		},
		checks: func(s Spec) []string { return []string{"double-barrier", "liveness", "herd"} },
		spawn:  spawnDoubleBarrier,
		input:  func(in *models.Input, s Spec) { in.Size = s.Workload.Size },
	})
}

// doubleBarrierPath is round's barrier node (round 0-based).
func doubleBarrierPath(round int) string { return fmt.Sprintf("/zksim/double-barrier/r%d", round+1) }

// doubleBarrierName is client i's process name.
func doubleBarrierName(i int) string { return fmt.Sprintf("c%02d", i+1) }

// pauser is a client process that can be stopped, as the simulator's
// clients can: while paused it runs nothing and sends nothing.
type pauser interface{ Pause(d time.Duration) }

// spawnDoubleBarrier starts the processes.
func spawnDoubleBarrier(r *runner) {
	wl := r.spec.Workload
	n := r.spec.Clients
	for i := 0; i < n; i++ {
		r.spawn(i, func(ctx context.Context, conn client.Conn) error {
			name := doubleBarrierName(i)
			for round := 0; round < wl.Rounds; round++ {
				path := doubleBarrierPath(round)
				db := r.impl.DoubleBarrier(conn, path, name, wl.Size)
				if err := doubleBarrierEnter(ctx, conn, r, i, path, db); err != nil {
					return err
				}
				entered := now(conn)
				compute := wl.Step * time.Duration(1+(i+round)%n)
				if round == wl.Rounds-1 && i < wl.Failures {
					if err := pause(ctx, conn, compute/2); err != nil {
						return err
					}
					return doubleBarrierCrash(ctx, conn, r, i, path, name)
				}
				if err := pause(ctx, conn, compute); err != nil {
					return err
				}
				if err := doubleBarrierLeave(ctx, conn, r, i, path, name, entered, db); err != nil {
					return err
				}
				if err := pause(ctx, conn, wl.Think); err != nil {
					return err
				}
			}
			return nil
		})
	}
}

// doubleBarrierEnter records client i's Enter, retrying it after errors
// faults explain (its session expired and its node with it).
func doubleBarrierEnter(ctx context.Context, conn client.Conn, r *runner, i int, path string, db recipes.DoubleBarrier) error {
	op := r.rec.begin(conn, i, models.Enter, path)
	for {
		err := db.Enter(ctx)
		if err == nil {
			r.rec.end(conn, op, models.OK)
			return nil
		}
		if !expectedFault(err) {
			return fmt.Errorf("enter %s: %w", path, err)
		}
	}
}

// doubleBarrierLeave records client i's Leave. If its node vanished (its
// session expired since it entered) it records Fail at entered instead:
// the others did not wait for it.
func doubleBarrierLeave(ctx context.Context, conn client.Conn, r *runner, i int, path, name string, entered int64,
	db recipes.DoubleBarrier) error {
	op := r.rec.begin(conn, i, models.Leave, path)
	for {
		err := db.Leave(ctx)
		switch {
		case err == nil:
			r.rec.end(conn, op, models.OK)
			return nil
		case errors.Is(err, recipes.ErrNodeVanished):
			r.rec.drop(op)
			fail := r.rec.begin(conn, i, models.Fail, path)
			r.rec.end(conn, fail, models.OK)
			f := r.rec.op(fail)
			f.Data, f.Call, f.Return = name, entered, entered
			return nil
		case !expectedFault(err):
			return fmt.Errorf("leave %s: %w", path, err)
		}
	}
}

// doubleBarrierCrash is client i's process failing for good in the round
// at path: it records Fail, then stops, without leaving and without
// closing its session (see the workload's comment).
func doubleBarrierCrash(ctx context.Context, conn client.Conn, r *runner, i int, path, name string) error {
	op := r.rec.begin(conn, i, models.Fail, path)
	r.rec.end(conn, op, models.OK).Data = name
	p, ok := conn.(pauser)
	if !ok {
		return nil // cannot stop the process: return, closing the session
	}
	timeout := r.spec.Ensemble.SessionTimeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	p.Pause(3 * timeout)
	return conn.Sleep(ctx, 3*timeout)
}
