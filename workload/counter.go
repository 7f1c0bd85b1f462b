package workload

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/recipes"
)

// The shared counter workload. Every client, named cN, makes Rounds
// increments of one counter, all clients starting together so that they
// contend: in round k it adds 1 when k is odd, 10·N when k is even (c1
// adds 10, c2 20, ...), so that the values the adds make tell a lost
// increment from one applied twice, and whose it was. Think after each
// add it reads the counter (Get), and Think after that it makes the next.
// A counter does not block: nothing waits, and the kind has no liveness
// check.
//
// The counter starts at 0: before anyone adds, c1 deletes its node, left
// by an earlier run on the same ensemble (a live one outlives its runs),
// and the others wait for that (runner memory, polled every millisecond),
// so that the counter check can hold the values to the increments made.
//
// Recorded (Path = the counter's node): Add (Data the delta; OK with
// OutData the value the add made, or Unknown, with the error, when Add
// returned one: it may have been applied or not; after an error a caller
// must expect under faults the client goes on without adding again, as a
// retry would be another increment, and after any other it fails), Count
// (OutData the value Get returned; a Get that returned an error is Failed,
// with the error: it read nothing; after an error a caller must expect
// the client reads again, as a new Count, and after any other it fails).

// counterPath is the counter's node.
const counterPath = "/zksim/counter"

func init() {
	registerKind(&Kind{
		name: "counter", situations: []situation{addsContended, countsOfOthers},
		doc:     "shared counter (recipes.Counter); every client adds 1 and 10·N in turn, reading the value after each",
		clients: 4, minClients: 1,
		recipe: recipes.Implementation{Counter: func(c client.Conn, p, name string) recipes.Counter {
			return recipes.NewCounter(c, p, name)
		}},
		defaults: func(w *Shape, clients int) {
			orDefault(&w.Rounds, 4)
			orDefault(&w.Think, 10*time.Millisecond)
		},
		checks: func(p Plan) []string { return []string{"counter", "ownership"} },
		spawn:  spawnCounter,
	})
}

// counterDelta is what client i adds in round k (from 1).
func counterDelta(i, k int) int64 {
	if k%2 == 1 {
		return 1
	}
	return int64(10 * (i + 1))
}

func spawnCounter(r *runner) {
	wl := r.plan.Shape
	reset := false // c1 has deleted an earlier run's counter
	for i := 0; i < r.plan.Clients; i++ {
		r.spawn(i, func(ctx context.Context, conn client.Conn) error {
			if i == 0 {
				if err := counterReset(ctx, conn); err != nil {
					return err
				}
				reset = true
			}
			for !reset {
				if err := pause(ctx, conn, time.Millisecond); err != nil {
					return err
				}
			}
			c := r.impl.Counter(conn, counterPath, fmt.Sprintf("c%d", i+1))
			for k := 1; r.roundGoes(k - 1); k++ {
				delta := counterDelta(i, k)
				op := r.rec.begin(conn, i, models.Add, counterPath)
				r.rec.op(op).Data = strconv.FormatInt(delta, 10)
				v, err := c.Add(ctx, delta)
				switch {
				case err == nil:
					r.rec.end(conn, op, models.OK).OutData = strconv.FormatInt(v, 10)
				case expectedFault(err):
					r.rec.unknown(conn, op, err) // the client goes on: adding again would be another increment
				default:
					r.rec.unknown(conn, op, err)
					return fmt.Errorf("add %d: %w", delta, err)
				}
				if err := pause(ctx, conn, wl.Think); err != nil {
					return err
				}
				if err := counterCount(ctx, r, conn, c, i); err != nil {
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

// counterReset deletes the counter's node if it is there, through
// connection losses and session expiry.
func counterReset(ctx context.Context, conn client.Conn) error {
	for {
		err := conn.Delete(ctx, counterPath, -1)
		switch {
		case err == nil, isNoNode(err):
			return nil
		case expectedFault(err) && ctx.Err() == nil:
			continue
		}
		return fmt.Errorf("reset the counter: %w", err)
	}
}

// counterCount reads the counter for client i, recording what it read.
func counterCount(ctx context.Context, r *runner, conn client.Conn, c recipes.Counter, i int) error {
	for {
		op := r.rec.begin(conn, i, models.Count, counterPath)
		v, err := c.Get(ctx)
		switch {
		case err == nil:
			r.rec.end(conn, op, models.OK).OutData = strconv.FormatInt(v, 10)
			return nil
		case expectedFault(err):
			r.rec.fail(conn, op, err) // it read nothing; the client reads again
			if ctx.Err() != nil {
				return nil
			}
		default:
			r.rec.fail(conn, op, err)
			return fmt.Errorf("get: %w", err)
		}
	}
}

// The counter's situations.
var (
	// addsContended counts the adds that returned OK while another
	// client's add that returned OK was in flight: the version conflicts
	// the loop is for.
	addsContended = situation{"adds that overlapped another client's add", func(ops []models.Operation) int {
		adds := countersOKAdds(ops)
		return countOps(adds, func(a models.Operation) bool {
			for _, b := range adds {
				if b.Client != a.Client && b.Call < a.Return && a.Call < b.Return {
					return true
				}
			}
			return false
		})
	}}
	// countsOfOthers counts the reads that saw another client's increment
	// since the reader's own last add.
	countsOfOthers = situation{"reads that saw another client's increment since the reader's own", func(ops []models.Operation) int {
		last := map[int]string{}
		n := 0
		for _, op := range ops {
			switch {
			case op.Result != models.OK:
			case op.Kind == models.Add:
				last[op.Client] = op.OutData
			case op.Kind == models.Count && last[op.Client] != "" && op.OutData != last[op.Client]:
				n++
			}
		}
		return n
	}}
)

// countersOKAdds is the adds of ops that returned OK.
func countersOKAdds(ops []models.Operation) []models.Operation {
	var out []models.Operation
	for _, op := range ops {
		if op.Kind == models.Add && op.Result == models.OK {
			out = append(out, op)
		}
	}
	return out
}
