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

// begin records the call of an operation and returns its handle. A call
// made once the run is over (a live client calling again after an error
// that came too late to record) is not recorded: the history ends with
// the run, the call before it pending.
func (r *recording) begin(conn client.Conn, c int, k models.OpKind, path string) int {
	if r.ended() {
		return afterEnd
	}
	r.ops = append(r.ops, models.Operation{Client: c, Kind: k, Path: path, Result: models.Pending, Call: now(conn)})
	return len(r.ops) - 1
}

// afterEnd is the handle of an operation begun once the run was over.
const afterEnd = -1

// op is the operation begun as i, to fill in (one begun after the end
// goes nowhere).
func (r *recording) op(i int) *models.Operation {
	if i == afterEnd {
		return &models.Operation{}
	}
	return &r.ops[i]
}

// end records the return of operation i with its result. An operation of
// unknown outcome may take effect at any time after its call: its Return
// is the end of time, for the linearizability checks.
func (r *recording) end(conn client.Conn, i int, res models.Result) *models.Operation {
	if r.ended() || i == afterEnd {
		return &models.Operation{} // stays pending; the caller's details go nowhere
	}
	op := &r.ops[i]
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

// unknown records the return of operation i with the error err, after
// which its outcome is unknown: a write whose connection was lost in
// flight may have been applied, or not, and the history says both that
// the call returned err and that its effect is in doubt.
func (r *recording) unknown(conn client.Conn, i int, err error) {
	if op := r.end(conn, i, models.Unknown); op != nil {
		op.Error = err.Error()
	}
}

// drop forgets operation i: a call the workload itself gave up (its own
// deadline struck), which the user's code never saw fail, or one the
// workload made its client abandon (a process it stops for good). An error
// the implementation returned is never dropped: fail or unknown records it.
func (r *recording) drop(i int) {
	if !r.ended() && i != afterEnd {
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
