package scenarios

import (
	"fmt"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/trace"
)

// Why a watcher's view of a group did not converge. The membership check
// sees the views a watcher recorded and the members' changes; the run sees
// what happened after the watcher's last view: the faults that struck, the
// sessions the servers expired (a member gone), the watch events sent to
// the watcher (into a connection a fault had cut, say), its session back,
// and whether it then listed the group again. afterView answers the
// violation's question (models.Unconverged) with that.

// afterView words, in time order, what the trace shows after the
// watcher's last view of group (at most six events): the faults that
// struck, the sessions the servers expired, the watch events sent to the
// watcher on the group or below, and the watcher having its session back
// after losing its connection; then, if it was back, whether it listed
// the group again.
func (f *runFacts) afterView(group string, last models.Operation) string {
	watcher := trace.ClientActor(last.Client)
	who := f.name(watcher)
	var parts []string
	add := func(s string) {
		if len(parts) < 6 {
			parts = append(parts, s)
		}
	}
	away, back, listed := false, false, false
	for _, r := range f.recs { // in time order
		at := int64(r.At)
		if at < last.Return {
			continue
		}
		switch {
		case r.Kind == trace.KFault:
			add(fmt.Sprintf("%s (struck at %s)", r.Path, client.FormatTime(at)))
		case r.Kind == trace.KExpire:
			add(fmt.Sprintf("the servers expired %s's session at %s", f.owner[r.Sess], client.FormatTime(at)))
		case r.Kind == trace.KNotify && r.To == watcher && (r.Path == group || strings.HasPrefix(r.Path, group+"/")):
			add(fmt.Sprintf("%s sent %s %s %s at %s", f.name(r.From), who, strings.TrimPrefix(zk.EventType(r.Arg).String(), "Event"),
				r.Path, client.FormatTime(at)))
		case r.Kind == trace.KState && r.From == watcher && zk.State(r.Arg) == zk.StateDisconnected:
			away = true
		case r.Kind == trace.KState && r.From == watcher && zk.State(r.Arg) == zk.StateHasSession && away && !back:
			back = true
			add(fmt.Sprintf("%s had its session back at %s", who, client.FormatTime(at)))
		case r.Kind == trace.KSend && r.From == watcher && back && r.Op == client.OpGetChildren && r.Path == group:
			listed = true
		}
	}
	if len(parts) == 0 {
		return ""
	}
	said := "after that view: " + strings.Join(parts, "; ")
	if back && !listed {
		said += fmt.Sprintf("; %s did not list %s again", who, group)
	}
	return said
}
