package scenarios

import (
	"fmt"
	"strings"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/trace"
)

// What a consumer was waiting on when an item was lost. The delivery
// checks see the takes that got nothing; the run sees the requests each
// take sent and what the servers answered: a consumer whose every delete
// answers BadVersion, or that waits on a watch no put will fire. lastTake
// answers the violation's question (models.LostItem) with what the
// consumer's last take did.

// lastTake words the requests take's client sent while take was under
// way, each with its answer, and the watch it left.
func lastTake(recs []trace.Record, take models.Operation) string {
	who := trace.ClientActor(take.Client)
	sent := map[int64]int{} // xid → index in steps
	var steps []string
	watches := 0
	for i := range recs {
		r := &recs[i]
		if int64(r.At) < take.Call || int64(r.At) > take.Return {
			continue
		}
		switch {
		case r.Kind == trace.KSend && r.From == who && r.Op != client.OpCloseSession:
			sent[r.Arg] = len(steps)
			steps = append(steps, trace.ShortOp(r.Op, r.Path)+" (no answer)")
			if r.Code == 1 {
				watches++
			}
		case r.Kind == trace.KReply && r.To == who:
			if k, ok := sent[r.Arg]; ok {
				answer := "ok"
				if err := trace.CodeError(r.Code); err != nil {
					answer = strings.TrimPrefix(err.Error(), "zk: ")
				}
				steps[k] = strings.TrimSuffix(steps[k], " (no answer)") + " → " + answer
			}
		}
	}
	if len(steps) == 0 {
		return fmt.Sprintf("its last take, from %s, sent nothing: it waited on what an earlier take left",
			client.FormatTime(take.Call))
	}
	if len(steps) > 8 {
		steps = append(steps[:3], append([]string{fmt.Sprintf("... %d more ...", len(steps)-6)}, steps[len(steps)-3:]...)...)
	}
	s := fmt.Sprintf("its last take, from %s, sent %s", client.FormatTime(take.Call), strings.Join(steps, ", "))
	if watches > 0 {
		s += ", and waited on the watch it set"
	}
	return s
}
