package scenarios

import (
	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/trace"
)

// ErrStopped is what Run returns for a run its Options.Stop abandoned.
var ErrStopped = sim.ErrStopped

// ClientEvent is something a client of a simulated run was told, from the
// run's trace: the answer to one of its requests, or a watch notification.
// They are the events a fault can be tied to ("when c2 create#3 applied",
// "when c1 notified#2"), as exploration enumerates them.
type ClientEvent struct {
	// At is when the client was told, in the history's clock (ns since
	// the start).
	At int64
	// Client is the client told (0 for c1).
	Client int
	// Notified says it was a notification; otherwise an answer to Op.
	Notified bool
	Op       client.Op
}

// ClientEvents are the answers and notifications the run's clients were
// sent, in the order they were sent (nil for a live run, or one that
// kept no trace).
func (o *Outcome) ClientEvents() []ClientEvent {
	if o.Simulation == nil || o.World == nil {
		return nil
	}
	var out []ClientEvent
	for _, r := range o.World.Trace().Records() {
		if r.To == trace.WorldActor || r.To >= trace.ServerActor(0) {
			continue // not to a client
		}
		switch r.Kind {
		case trace.KReply:
			out = append(out, ClientEvent{At: int64(r.At), Client: int(r.To) - 1, Op: r.Op})
		case trace.KNotify:
			out = append(out, ClientEvent{At: int64(r.At), Client: int(r.To) - 1, Notified: true})
		}
	}
	return out
}
