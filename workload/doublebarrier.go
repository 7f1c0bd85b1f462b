package workload

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

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
// a clean exit, not a crash). The others must not be blocked by it. (If
// the process had lost its session before, paused by a fault, the Fail is
// placed as for a lost session, below; it syncs first to find out.)
//
// Lost sessions. A process whose session expires while it is in the
// barrier (a random pause, a partition) loses its node, and the others go
// on without it, as they would without a failed process: its Enter or
// Leave says ErrNodeVanished (or its Leave does, after an Enter that
// returned OK on a notification that reached it after its session had
// expired). Such a process stops for good too: the workload records Fail
// and the process returns. The workload cannot know when the session
// expired, only that the node went some time after it was created, so the
// Fail is placed at the earliest instant it may have: the call of the
// process's Enter. The later rounds then wait for a process that will
// never come (Size counts it): the run ends deadlocked, with Enters that
// the checks see blocked by the failure (a live run ends too, once nothing
// has happened for the liveness bound: liveQuiet). A session lost that
// way is rare in the simulator, where the workload's rounds are over
// before most faults; live, where the rounds go on until the faults have
// struck, it is common. The workload keeps the contract that a Fail is a
// process stopped for good.
//
// Recorded: Enter and Leave, one for each call (OK, or Pending when the
// run ended first); a call that returned an error is Failed, with the
// error: ErrNodeVanished, after which the process stops for good (a Fail,
// as above); another error a caller must expect under faults, after which
// it calls again, as a new operation (the checks take the calls of one
// Enter, or one Leave, as one, from its first call: models.withRetries);
// any other error, after which the client fails (the double-barrier check
// sees the process that could not enter or leave). Fail (Data: the
// process's name).

func init() {
	registerKind(&Kind{
		name: "double-barrier", situations: []situation{entersWaited, leavesWaited}, doc: "double barrier (recipes.DoubleBarrier); every client enters, computes and leaves, in rounds",
		clients: 5, minClients: 1,
		recipe: recipes.Implementation{DoubleBarrier: func(c client.Conn, p, name string, size int) recipes.DoubleBarrier {
			return recipes.NewDoubleBarrier(c, p, name, size)
		}},
		defaults: func(w *Shape, clients int) {
			orDefault(&w.Rounds, 3)
			orDefault(&w.Step, 10*time.Millisecond)
			orDefault(&w.Size, clients)
		},
		checks: func(p Plan) []string { return []string{"double-barrier", "ownership", "liveness", "herd"} },
		spawn:  spawnDoubleBarrier,
		input:  func(in *models.Input, p Plan) { in.Size = p.Shape.Size },
	})
}

// doubleBarrierPath is round's barrier node (round 0-based).
func doubleBarrierPath(round int) string { return fmt.Sprintf("/zksim/double-barrier/r%d", round+1) }

// doubleBarrierName is client i's process name.
func doubleBarrierName(i int) string { return fmt.Sprintf("c%02d", i+1) }

// spawnDoubleBarrier starts the processes.
func spawnDoubleBarrier(r *runner) {
	wl := r.plan.Shape
	n := r.plan.Clients
	for i := 0; i < n; i++ {
		r.spawn(i, func(ctx context.Context, conn client.Conn) error {
			name := doubleBarrierName(i)
			for round := 0; r.roundGoes(round); round++ {
				path := doubleBarrierPath(round)
				db := r.impl.DoubleBarrier(conn, path, name, wl.Size)
				enterCall, in, err := doubleBarrierStep(ctx, r, conn, i, models.Enter, path, db.Enter)
				if err != nil {
					return err
				}
				if !in {
					doubleBarrierFail(conn, r, i, path, name, enterCall)
					return nil
				}
				session := conn.SessionID()
				compute := wl.Step * time.Duration(1+(i+round)%n)
				if i < wl.Failures && r.lastRound(round) {
					if err := pause(ctx, conn, compute/2); err != nil {
						return err
					}
					at := now(conn)
					alive, err := doubleBarrierAlive(ctx, conn, path, session)
					if err != nil {
						return err
					}
					if !alive {
						at = enterCall // it had lost its node already (see Lost sessions)
					}
					doubleBarrierFail(conn, r, i, path, name, at)
					return stopForGood(ctx, conn, r.plan)
				}
				if err := pause(ctx, conn, compute); err != nil {
					return err
				}
				_, in, err = doubleBarrierStep(ctx, r, conn, i, models.Leave, path, db.Leave)
				if err != nil {
					return err
				}
				if !in {
					doubleBarrierFail(conn, r, i, path, name, enterCall)
					return nil
				}
				if err := pause(ctx, conn, wl.Think); err != nil {
					return err
				}
			}
			return nil
		})
	}
}

// doubleBarrierStep calls step (Enter or Leave, kind k) for client i
// until it succeeds, or says the process's node vanished (in is false),
// or fails with an error no fault explains (err), recording each call as
// an operation: one that returned an error is Failed, with the error.
// first is the first call's time.
func doubleBarrierStep(ctx context.Context, r *runner, conn client.Conn, i int, k models.OpKind, path string,
	step func(context.Context) error) (first int64, in bool, err error) {
	first = now(conn)
	for {
		op := r.rec.begin(conn, i, k, path)
		err := step(ctx)
		switch {
		case err == nil:
			r.rec.end(conn, op, models.OK)
			return first, true, nil
		case errors.Is(err, recipes.ErrNodeVanished):
			r.rec.fail(conn, op, err) // the process stops for good
			return first, false, nil
		}
		r.rec.fail(conn, op, err)
		if !expectedFault(err) {
			return first, false, fmt.Errorf("%s %s: %w", k, path, err)
		}
		// and calls again
	}
}

// doubleBarrierAlive reports whether session, in which the process
// entered, is still the client's: it syncs first, so that a client paused
// past its session timeout learns of the expiry.
func doubleBarrierAlive(ctx context.Context, conn client.Conn, path string, session int64) (bool, error) {
	for {
		_, err := conn.Sync(ctx, path)
		switch {
		case err == nil, errors.Is(err, zk.ErrNoNode):
			return conn.SessionID() == session, nil
		case !expectedFault(err):
			return false, fmt.Errorf("sync %s: %w", path, err)
		}
	}
}

// doubleBarrierFail records that client i's process stopped for good at
// instant at, in the round at path.
func doubleBarrierFail(conn client.Conn, r *runner, i int, path, name string, at int64) {
	op := r.rec.begin(conn, i, models.Fail, path)
	f := r.rec.end(conn, op, models.OK)
	f.Data, f.Call, f.Return = name, at, at
}
