package workload

import (
	"context"
	"fmt"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/recipes"
)

// The workload of the barrier. Client c1 is the coordinator: in each of
// Rounds rounds it raises a fresh barrier ("/zksim/barrier/r1",
// "/zksim/barrier/r2" ...), holds it up for Step, lowers it, and waits
// Think before the next round. Every other client waits at each round's
// barrier once it is up: it learns that the coordinator raised it from
// the runner (clients run one at a time, so they can share what they
// know), as processes told by other means would, and only then calls
// Wait. So every Pass must come after the round's Lower was called: a
// waiter that walks through a raised barrier (a stale read, a missed
// watch) shows.
//
// Recorded: Raise (Set), Lower (Remove), Pass (Wait returned; Pending when
// it still waits at the end), one for each call, OK when it returned nil.
// A call that returned an error a caller must expect under faults is
// Failed, with the error, and made again, as a new operation (the checks
// take the calls of one step as one, from its first call:
// models.withRetries). After any other error the client fails, its call
// recorded with the error: a Set or a Remove of unknown outcome (its
// create or delete may have been applied), a Wait Failed (it passed
// nothing).

func init() {
	registerKind(&Kind{
		name: "barrier", situations: []situation{passesWaited}, doc: "barrier (recipes.Barrier); c1 raises and lowers it, the others wait at it",
		clients: 4, minClients: 2,
		recipe: recipes.Implementation{Barrier: func(c client.Conn, p string) recipes.Barrier { return recipes.NewBarrier(c, p) }},
		defaults: func(w *Shape, clients int) {
			orDefault(&w.Rounds, 3)
			orDefault(&w.Step, 50*time.Millisecond)
		},
		checks: func(p Plan) []string { return []string{"barrier", "ownership", "liveness"} },
		spawn:  spawnBarrier,
	})
}

// barrierPoll is how often a waiter looks whether the coordinator has
// raised the round's barrier.
const barrierPoll = time.Millisecond

// barrierPath is round's barrier node (round 0-based).
func barrierPath(round int) string { return fmt.Sprintf("/zksim/barrier/r%d", round+1) }

// spawnBarrier starts the coordinator and the waiters.
func spawnBarrier(r *runner) {
	wl := r.plan.Shape
	raised := map[int]bool{} // raised[round]: the coordinator's Set returned
	r.spawn(0, func(ctx context.Context, conn client.Conn) error {
		for round := 0; r.roundGoes(round); round++ {
			path := barrierPath(round)
			b := r.impl.Barrier(conn, path)
			if err := barrierStep(ctx, conn, r, 0, models.Raise, path, b.Set); err != nil {
				return err
			}
			raised[round] = true
			if err := pause(ctx, conn, wl.Step); err != nil {
				return err
			}
			if err := barrierStep(ctx, conn, r, 0, models.Lower, path, b.Remove); err != nil {
				return err
			}
			if err := pause(ctx, conn, wl.Think); err != nil {
				return err
			}
		}
		return nil
	})
	for i := 1; i < r.plan.Clients; i++ {
		r.spawn(i, func(ctx context.Context, conn client.Conn) error {
			for round := 0; r.roundGoes(round); round++ {
				for !raised[round] {
					if err := conn.Sleep(ctx, barrierPoll); err != nil {
						return err
					}
				}
				path := barrierPath(round)
				b := r.impl.Barrier(conn, path)
				if err := barrierStep(ctx, conn, r, i, models.Pass, path, b.Wait); err != nil {
					return err
				}
			}
			return nil
		})
	}
}

// barrierStep is client i's step of kind k on the barrier at path: it
// calls call, recording each call as an operation, until one returns nil
// or an error no fault explains (see the workload's doc).
func barrierStep(ctx context.Context, conn client.Conn, r *runner, i int, k models.OpKind, path string,
	call func(context.Context) error) error {
	for {
		op := r.rec.begin(conn, i, k, path)
		err := call(ctx)
		switch {
		case err == nil:
			r.rec.end(conn, op, models.OK)
			return nil
		case expectedFault(err):
			r.rec.fail(conn, op, err) // and calls again
			continue
		case k == models.Pass:
			r.rec.fail(conn, op, err) // it passed nothing
		default:
			r.rec.unknown(conn, op, err) // its write may have been applied
		}
		return fmt.Errorf("%s %s: %w", k, path, err)
	}
}
