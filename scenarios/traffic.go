package scenarios

import (
	"strconv"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/trace"
)

// serverActors is where sim's server actors begin (trace.ServerActor(0)):
// actors below it, from 1, are clients.
var serverActors = trace.ServerActor(0)

// serverOf is the 0-based index of a server actor.
func serverOf(a trace.Actor) int { return int(a - serverActors) }

// clientOf is the 0-based index of a client actor: the order the world
// spawned it in, which the workloads use as the history's client number.
func clientOf(a trace.Actor) int { return int(a - trace.ClientActor(0)) }

// Traffic converts the records a run kept (sim.Config.KeepTrace) into the
// traffic the herd metrics count, in the trace's order. At is the record's
// virtual time, nanoseconds since the run's start (client.Epoch), the clock
// the histories' operations use.
//
//   - An applied transaction (KApply) is Applied on the server that applied
//     it, with its zxid, op, path and session. A transaction that failed
//     (a non-zero code: a delete of a missing node, a create of an existing
//     one) is left out: it changed nothing and fired no watch.
//   - A watch event (KNotify) is Notified from the server to the client.
//     Its Zxid is the transaction whose application fired it, as the
//     simulator recorded it; a watch re-registered on reconnect that fired
//     at once (setWatches) has Zxid 0. (Guessing it from an apply recorded
//     just before, at the same instant, took a setWatches event for one of
//     the transaction that server happened to apply then.)
//   - A request (KSend) is Sent from the client to the server, pings left
//     out (the simulator records them as their own kind anyway). The
//     closeSession a client sends as it exits and the setWatches it sends
//     on reconnecting are kept: they are requests, and they name no path.
//
// A multi is recorded under its first operation's path (the simulator's
// trace adds " and N more" to it, which is dropped here), with op "multi".
func Traffic(tr *trace.Trace) []models.Traffic {
	n := 0 // the traffic's size, so that it is allocated once
	for r := range tr.All() {
		switch r.Kind {
		case trace.KApply:
			if r.Code == 0 {
				n++
			}
		case trace.KNotify:
			n++
		case trace.KSend:
			if r.Op != client.OpPing {
				n++
			}
		}
	}
	out := make([]models.Traffic, 0, n)
	for r := range tr.All() {
		switch r.Kind {
		case trace.KApply:
			if r.Code != 0 {
				continue
			}
			out = append(out, models.Traffic{At: int64(r.At), Kind: models.Applied, Server: serverOf(r.From),
				Client: -1, Zxid: r.Zxid, Op: r.Op.String(), Path: tracePath(r.Path), Session: r.Sess})
		case trace.KNotify:
			t := models.Traffic{At: int64(r.At), Kind: models.Notified, Server: serverOf(r.From),
				Client: clientOf(r.To), Path: r.Path, Zxid: r.Zxid,
				Event: strings.TrimPrefix(zk.EventType(r.Arg).String(), "Event")}
			out = append(out, t)
		case trace.KSend:
			if r.Op == client.OpPing {
				continue
			}
			out = append(out, models.Traffic{At: int64(r.At), Kind: models.Sent, Server: serverOf(r.To),
				Client: clientOf(r.From), Op: r.Op.String(), Path: tracePath(r.Path)})
		}
	}
	return out
}

// tracePath is a record's path without the " and N more" the trace adds
// to a multi's first path.
func tracePath(p string) string {
	rest, ok := strings.CutSuffix(p, " more")
	if !ok {
		return p
	}
	i := strings.LastIndex(rest, " and ")
	if i < 0 {
		return p
	}
	if _, err := strconv.Atoi(rest[i+len(" and "):]); err != nil {
		return p
	}
	return rest[:i]
}
