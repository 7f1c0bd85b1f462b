package scenarios

import (
	"fmt"
	"strings"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/trace"
)

// Why a process could not enter or leave a double barrier. The check sees
// the error its step returned; the run sees the requests before it: most
// often a create of the process's own node that was applied while its
// reply was lost, so that the retry was told NodeExists of a node the
// process itself had made. ownLostCreate answers the violation's
// question (models.FailedStep) with that.

// ownLostCreate words the last create under dir by step's client, applied
// before step returned, whose reply a fault took ("" if none).
func (f *runFacts) ownLostCreate(dir string, step models.Operation) string {
	who := trace.ClientActor(step.Client)
	said := ""
	for _, r := range f.recs {
		if int64(r.At) > step.Return {
			break
		}
		if r.Kind != trace.KApply || r.Op != client.OpCreate || r.Code != 0 || !strings.HasPrefix(r.Path, dir+"/") {
			continue
		}
		if lost := f.faultAt(r.At, f.name(who), fault.LoseReply, client.OpCreate); lost != "" {
			said = fmt.Sprintf("%s's create of %s was applied at %s and its reply lost (%s): the node it was then told "+
				"exists was its own", f.name(who), r.Path, client.FormatTime(int64(r.At)), lost)
		}
	}
	return said
}
