package scenarios

import (
	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/models"
)

// recording is the history of clients made by hand in a test, written as
// a workload writes its own: each call begun, then ended with its result.
type recording struct{ ops []models.Operation }

func (r *recording) begin(conn client.Conn, c int, k models.OpKind, path string) int {
	t := int64(conn.Now().Sub(client.Epoch))
	r.ops = append(r.ops, models.Operation{Client: c, Kind: k, Path: path, Result: models.Pending, Call: t})
	return len(r.ops) - 1
}

func (r *recording) end(conn client.Conn, i int, res models.Result) *models.Operation {
	op := &r.ops[i]
	op.Result, op.Return = res, int64(conn.Now().Sub(client.Epoch))
	return op
}

// history is the operations, those still pending ending at end.
func (r *recording) history(end int64) []models.Operation {
	for i := range r.ops {
		if r.ops[i].Result == models.Pending {
			r.ops[i].Return = end
		}
	}
	return r.ops
}
