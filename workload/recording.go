package workload

import (
	"math"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/models"
)

// recording is the history a workload writes as its clients run: an
// operation is begun when its call is made and ended when it returns, so
// one still waiting when the run ends is known, and recorded as pending.
// Clients run one at a time, so it needs no lock.
type recording struct {
	ops []models.Operation
	// world says when the run is over (calls that return after it keep
	// their operations pending) and is told of every operation that
	// returned OK.
	world World
}

func (r *recording) ended() bool { return r.world.Over() }

// now is conn's virtual time, in the history's clock (ns since the start).
func now(conn client.Conn) int64 { return int64(conn.Now().Sub(client.Epoch)) }

// begin records the call of an operation and returns its handle.
func (r *recording) begin(conn client.Conn, c int, k models.OpKind, path string) int {
	r.ops = append(r.ops, models.Operation{Client: c, Kind: k, Path: path, Result: models.Pending, Call: now(conn)})
	return len(r.ops) - 1
}

// op is the operation begun as i, to fill in.
func (r *recording) op(i int) *models.Operation { return &r.ops[i] }

// end records the return of operation i with its result. An operation of
// unknown outcome may take effect at any time after its call: its Return
// is the end of time, for the linearizability checks.
func (r *recording) end(conn client.Conn, i int, res models.Result) *models.Operation {
	op := &r.ops[i]
	if r.ended() {
		return &models.Operation{} // stays pending; the caller's details go nowhere
	}
	op.Result, op.Return = res, now(conn)
	if res == models.Unknown {
		op.Ended, op.Return = op.Return, math.MaxInt64
	}
	if res == models.OK {
		r.world.Progressed()
	}
	return op
}

// fail records the return of operation i with the error err: the call
// failed, and the history says so, as the user's code was told.
func (r *recording) fail(conn client.Conn, i int, err error) {
	if op := r.end(conn, i, models.Failed); op != nil {
		op.Error = err.Error()
	}
}

// drop forgets operation i (a call that failed and did nothing).
func (r *recording) drop(i int) {
	if !r.ended() {
		r.ops[i].Kind = ""
	}
}

// instant records an operation that happened at one instant.
func (r *recording) instant(conn client.Conn, op models.Operation) {
	if r.ended() {
		return
	}
	op.Call = now(conn)
	op.Return = op.Call
	r.ops = append(r.ops, op)
	r.world.Progressed()
}

// history is the recorded operations, the pending ones ending at end. It
// is called once, when the run is over: the operations are compacted where
// they lie rather than copied.
func (r *recording) history(end int64) []models.Operation {
	out := r.ops[:0]
	for _, op := range r.ops {
		if op.Kind == "" {
			continue
		}
		if op.Result == models.Pending {
			op.Return = end
		}
		out = append(out, op)
	}
	r.ops = nil
	return out
}
