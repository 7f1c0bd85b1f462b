package fault

import (
	"cmp"
	"slices"
	"time"

	"github.com/zksim/zksim/client"
)

// Rates are how often each kind of fault strikes, per second of virtual
// time, for RandomSchedule. The session-shaped faults (Disconnect, Outage,
// Expire, Triggered) are drawn around SessionTimeout.
type Rates struct {
	Crash       float64 // a server crashes, and restarts 1–10s later
	LeaderCrash float64 // the leader crashes, and restarts 1–10s later
	Partition   float64 // two servers, or a client and a server, are cut apart, healed 1–10s later
	Isolate     float64 // a server is cut from everyone, healed 1–10s later
	Pause       float64 // a client process pauses for 0.1–20s
	Spike       float64 // every link slows by 10–100ms for 0.5–3s
	LoseReply   float64 // a client's write is applied and its reply lost

	// Disconnect: a client is cut from every server for just under or
	// just over its session timeout (0.6–0.95 or 1.05–2 timeouts), with a
	// leader failover in the middle one time in three.
	Disconnect float64
	// Outage: every server crashes at once and restarts 1.2–2 session
	// timeouts later (the servers' session timers restart with them).
	Outage float64
	// Expire: the servers expire a client's sessions at once, as if they
	// had timed out; harsher than ZooKeeper, whose leader expires only a
	// session it has not heard of for a timeout (the client would have
	// noticed the silence first): it breaks every unfenced lock.
	Expire float64
	// ShortPause: a client process pauses for 0.1s to 0.6 session
	// timeouts, which its session survives.
	ShortPause float64
	// Lag: a server applies nothing for 0.5–5s and serves reads from what
	// it had.
	Lag float64
	// LoseRequest: a client's write is lost before any server applies it.
	LoseRequest float64
	// Triggered: a fault tied to one of a client's reads or to a watch
	// notification sent to it: the reply or notification lost, the client
	// disconnected for 1.05–2 session timeouts (its session expires while
	// it is away), or the message delayed 0.1–3s.
	Triggered float64
	// OneWay: what one server sends another is held, the other way going
	// on, healed 1–10s later. Not in DefaultRates nor EveryFault, so that
	// their seeds draw what they drew before it existed.
	OneWay float64

	// SessionTimeout is what the session-shaped faults are drawn around
	// (default client.DefaultSessionTimeout, what the sessions ask for).
	SessionTimeout time.Duration
}

// EveryFault strikes with every kind of random fault RandomSchedule
// draws, each often enough that a few hundred seeds of a short run meet
// them all: server crashes and leader crashes, partitions and isolation,
// process pauses long (past the session timeout) and short, latency
// spikes, lost replies and lost requests, disconnects around the session
// timeout, outages, expiries, lagging servers, and faults tied to reads
// and notifications. Every correct recipe holds under it (make soak), the
// locks and elections with a fenced resource.
func EveryFault() Rates {
	return Rates{Crash: 0.2, LeaderCrash: 0.2, Partition: 0.3, Isolate: 0.1, Pause: 0.2, ShortPause: 0.2, Spike: 0.2,
		LoseReply: 2, Disconnect: 0.1, Outage: 0.02, Expire: 0.05, Lag: 0.1, LoseRequest: 1, Triggered: 1}
}

// SessionShaped are the rates of the faults a session must survive:
// crashes, leader crashes, partitions, isolation, latency spikes, lost
// replies and lost requests, lagging servers, process pauses that the
// session survives, and the faults shaped around the session: disconnects
// just under and just over the session timeout (with a leader failover
// meanwhile), outages of the whole ensemble, faults tied to reads and
// notifications. Left out: pauses past the session timeout and instant
// expiries (Pause, Expire), which break every lock whose resource does not
// fence stale tokens, however careful its holder. They are the faults
// zksimtest checks a user's implementation under by default
// (zksimtest.DefaultRates).
func SessionShaped() Rates {
	return Rates{Crash: 0.1, LeaderCrash: 0.1, Partition: 0.2, Isolate: 0.05, Spike: 0.1, LoseReply: 1,
		ShortPause: 0.2, Disconnect: 0.2, Outage: 0.02, Lag: 0.2, LoseRequest: 0.5, Triggered: 1}
}

// Chooser is where a random schedule takes its choices from: Choose
// returns a value in [0, n), n at least 1. A world's seeded source of
// choices is one (sim.Source), so that a schedule drawn for a run is part
// of what its seed decides.
type Chooser interface {
	Choose(n int) int
}

// draw is RandomSchedule's source of choices.
type draw struct {
	src              Chooser
	servers, clients int
	timeout          time.Duration
	rep              *Repertoire
}

// Repertoire is what a workload's clients do, as a run without faults
// shows it: the requests each sends, by operation, and the watch
// notifications each receives. A random fault tied to a request or a
// notification is drawn from it, so that it names one the client makes:
// drawn blind, most would name a request the client never sends (a
// barrier's waiter deletes nothing) and never strike.
type Repertoire struct {
	Sends    []map[client.Op]int // by client
	Notified []int               // by client
}

// trigger draws a fault's trigger on one of ops (on), or on a notification
// when ops is nil: from the repertoire when there is one and it has such
// an event, else any client's, any of ops, one of its first five.
func (d draw) trigger(ops []client.Op, on TriggerOn) Trigger {
	if d.rep != nil {
		type event struct {
			client int
			op     client.Op
			n      int
		}
		var evs []event
		for c := range min(d.clients, len(d.rep.Sends), len(d.rep.Notified)) {
			if ops == nil && d.rep.Notified[c] > 0 {
				evs = append(evs, event{c, 0, d.rep.Notified[c]})
			}
			for _, op := range ops {
				if n := d.rep.Sends[c][op]; n > 0 {
					evs = append(evs, event{c, op, n})
				}
			}
		}
		if len(evs) > 0 {
			e := evs[d.src.Choose(len(evs))]
			return Trigger{Client: e.client, Op: e.op, On: on, Nth: 1 + d.src.Choose(min(e.n, 10))}
		}
	}
	tr := Trigger{Client: d.src.Choose(d.clients), On: on, Nth: 1 + d.src.Choose(5)}
	if ops != nil {
		tr.Op = ops[d.src.Choose(len(ops))]
	}
	return tr
}

func (d draw) chance(rate float64) bool {
	return rate > 0 && float64(d.src.Choose(10000)) < rate*1000
}

func (d draw) between(lo, hi time.Duration) time.Duration {
	steps := int((hi - lo) / (10 * time.Millisecond))
	return lo + time.Duration(d.src.Choose(steps+1))*10*time.Millisecond
}

func (d draw) server() Target { return Target{Kind: ServerT, Index: d.src.Choose(d.servers)} }
func (d draw) client() Target { return Target{Kind: ClientT, Index: d.src.Choose(d.clients)} }

// timeouts draws between lo and hi session timeouts.
func (d draw) timeouts(lo, hi float64) time.Duration {
	return d.between(time.Duration(lo*float64(d.timeout)), time.Duration(hi*float64(d.timeout)))
}

// RandomSchedule draws a schedule of faults over the first horizon of a run
// from src, at the given rates: in each tenth of a second, each kind strikes
// with probability rate/10. The result is an explicit schedule: it prints,
// and replays without src. A kind whose rate is zero draws nothing from
// src, so adding a kind leaves the schedules of the others as they were.
func RandomSchedule(src Chooser, r Rates, horizon time.Duration, servers, clients int) Schedule {
	return RandomScheduleFor(src, r, horizon, servers, clients, nil)
}

// RandomScheduleFor is RandomSchedule with the faults tied to requests and
// notifications drawn from rep, what the workload's clients do (nil: drawn
// blind).
func RandomScheduleFor(src Chooser, r Rates, horizon time.Duration, servers, clients int, rep *Repertoire) Schedule {
	d := draw{src: src, servers: servers, clients: clients, timeout: r.SessionTimeout, rep: rep}
	if d.timeout <= 0 {
		d.timeout = client.DefaultSessionTimeout
	}
	var out Schedule
	for at := time.Duration(0); at < horizon; at += 100 * time.Millisecond {
		out = append(out, d.classic(r, at)...)
		out = append(out, d.sessionShaped(r, at)...)
	}
	// Faults at a time in time order, then those tied to events.
	slices.SortStableFunc(out, func(a, b Fault) int {
		switch {
		case (a.When == nil) != (b.When == nil):
			if a.When == nil {
				return -1
			}
			return 1
		case a.When != nil:
			return 0
		}
		return cmp.Compare(a.At, b.At)
	})
	return distinct(out)
}

// distinct drops from s, keeping the first of each, a fault that repeats
// another and a second fault tied to the same trigger: a trigger fires
// once (a client's request, its notification), and two faults on it
// would be one struck twice, or two at odds (a lost reply and a delay of
// the same reply). Everything is drawn first, so that a schedule without
// such a repeat is the one it always was.
func distinct(s Schedule) Schedule {
	seen := map[string]bool{}
	out := s[:0]
	for _, f := range s {
		key := f.String()
		if f.When != nil {
			key = f.When.String()
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, f)
	}
	return out
}

// randomWrites are the requests a random lost reply or lost request is
// tied to.
var randomWrites = []client.Op{client.OpCreate, client.OpDelete, client.OpSetData}

// classic draws, for the tenth of a second at at, the faults of the
// first kinds: crashes, partitions, isolation, pauses, spikes, lost replies.
func (d draw) classic(r Rates, at time.Duration) Schedule {
	var out Schedule
	// Each fault undoes itself (for D): dropping it drops its undoing, so
	// shrinking a schedule never leaves a server down or a link cut for
	// good that the original brought back.
	if d.chance(r.Crash) {
		out = append(out, Fault{At: at, Kind: Crash, A: d.server(), For: d.between(time.Second, 10*time.Second)})
	}
	if d.chance(r.LeaderCrash) {
		out = append(out, Fault{At: at, Kind: Crash, A: Target{Kind: LeaderT}, For: d.between(time.Second, 10*time.Second)})
	}
	if d.chance(r.Partition) && d.servers > 1 {
		a := d.server()
		var b Target
		if d.clients > 0 && d.src.Choose(2) == 0 {
			b = d.client()
		} else {
			b = Target{Kind: ServerT, Index: (a.Index + 1 + d.src.Choose(d.servers-1)) % d.servers}
		}
		out = append(out, Fault{At: at, Kind: Partition, A: a, B: b, For: d.between(time.Second, 10*time.Second)})
	}
	if d.chance(r.Isolate) {
		out = append(out, Fault{At: at, Kind: Isolate, A: d.server(), For: d.between(time.Second, 10*time.Second)})
	}
	if d.chance(r.Pause) && d.clients > 0 {
		out = append(out, Fault{At: at, Kind: Pause, A: d.client(), D: d.between(100*time.Millisecond, 20*time.Second)})
	}
	if d.chance(r.Spike) {
		out = append(out, Fault{At: at, Kind: Spike, D: d.between(10*time.Millisecond, 100*time.Millisecond),
			For: d.between(500*time.Millisecond, 3*time.Second)})
	}
	if d.chance(r.LoseReply) && d.clients > 0 {
		tr := d.trigger(randomWrites, OnApplied)
		out = append(out, Fault{When: &tr, Kind: LoseReply})
	}
	if d.chance(r.OneWay) && d.servers > 1 {
		a := d.server()
		b := Target{Kind: ServerT, Index: (a.Index + 1 + d.src.Choose(d.servers-1)) % d.servers}
		out = append(out, Fault{At: at, Kind: OneWay, A: a, B: b, For: d.between(time.Second, 10*time.Second)})
	}
	return out
}

// sessionShaped draws, for the tenth of a second at at, the faults shaped
// around the session timeout and the triggers on reads and notifications.
func (d draw) sessionShaped(r Rates, at time.Duration) Schedule {
	var out Schedule
	if d.chance(r.Disconnect) && d.clients > 0 {
		long := d.timeouts(0.6, 0.95)
		if d.src.Choose(2) == 1 {
			long = d.timeouts(1.05, 2)
		}
		out = append(out, Fault{At: at, Kind: Disconnect, A: d.client(), For: long})
		if d.src.Choose(3) == 0 {
			out = append(out, Fault{At: at + long/2, Kind: Crash, A: Target{Kind: LeaderT}, For: d.between(time.Second, 3*time.Second)})
		}
	}
	if d.chance(r.Outage) {
		long := d.timeouts(1.2, 2)
		for i := range d.servers {
			out = append(out, Fault{At: at, Kind: Crash, A: Target{Kind: ServerT, Index: i}, For: long})
		}
	}
	if d.chance(r.Expire) && d.clients > 0 {
		out = append(out, Fault{At: at, Kind: Expire, A: d.client()})
	}
	if d.chance(r.ShortPause) && d.clients > 0 {
		out = append(out, Fault{At: at, Kind: Pause, A: d.client(), D: d.between(100*time.Millisecond, time.Duration(0.6*float64(d.timeout)))})
	}
	if d.chance(r.Lag) {
		out = append(out, Fault{At: at, Kind: Lag, A: d.server(), For: d.between(500*time.Millisecond, 5*time.Second)})
	}
	if d.chance(r.LoseRequest) && d.clients > 0 {
		tr := d.trigger(randomWrites, OnReceived)
		out = append(out, Fault{When: &tr, Kind: LoseRequest})
	}
	if d.chance(r.Triggered) && d.clients > 0 {
		out = append(out, d.triggered())
	}
	return out
}

// randomReads are the requests a random triggered fault is tied to.
var randomReads = []client.Op{client.OpGetChildren, client.OpExists, client.OpGetData}

// triggered draws a fault tied to a client's read or to a notification.
func (d draw) triggered() Fault {
	var tr Trigger
	if d.src.Choose(3) > 0 {
		tr = d.trigger(randomReads, OnApplied)
	} else {
		tr = d.trigger(nil, OnNotified)
	}
	c := tr.Client
	f := Fault{When: &tr}
	switch d.src.Choose(3) {
	case 0:
		f.Kind = LoseReply
	case 1:
		f.Kind, f.A, f.For = Disconnect, Target{Kind: ClientT, Index: c}, d.timeouts(1.05, 2)
	default:
		f.Kind, f.D = Delay, d.between(100*time.Millisecond, 3*time.Second)
	}
	return f
}
