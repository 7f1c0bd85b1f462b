package sim

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zksim/zksim/client"
)

// FaultKind is what a fault does.
type FaultKind uint8

// The fault kinds. Each prints, and parses, as its name followed by its
// targets and durations (see Fault.String).
const (
	Crash       FaultKind = iota + 1 // crash s2 | crash leader | crash applier
	Restart                          // restart s2
	Partition                        // partition s1 s3 | partition c1 s2: cut both directions
	Isolate                          // isolate s1: cut a server from every server and client
	Heal                             // heal s1 s3 | heal: reopen links (all when none named)
	Pause                            // pause c1 12s | pause s2 12s | pause leader 12s: stop a client process, or a server
	Spike                            // spike 50ms for 2s: extra latency on every link
	LoseReply                        // lose-reply: the reply to the triggering request (or the notification) is lost and its connection drops
	Disconnect                       // disconnect c1 for 12s: cut a client process from every server
	Expire                           // expire c1: the leader expires the client's sessions now, as if they timed out
	Lag                              // lag s2 for 3s: a server applies nothing for a while, and serves reads from what it had
	LoseRequest                      // lose-request: the triggering request is lost with its connection, never applied
	Delay                            // delay 2s: the triggering reply or notification leaves late, and all behind it
	OneWay                           // one-way s1 s3 | one-way c1 s2: cut one direction: what the first sends the second is held
)

var faultNames = map[FaultKind]string{
	Crash: "crash", Restart: "restart", Partition: "partition", Isolate: "isolate",
	Heal: "heal", Pause: "pause", Spike: "spike", LoseReply: "lose-reply",
	Disconnect: "disconnect", Expire: "expire", Lag: "lag", LoseRequest: "lose-request", Delay: "delay",
	OneWay: "one-way",
}

// FaultKindNames are the fault kinds' names, sorted.
func FaultKindNames() []string {
	names := make([]string, 0, len(faultNames))
	for _, n := range faultNames {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Target names a server or a client, or a server by its role at the time
// the fault strikes.
type Target struct {
	Kind  TargetKind
	Index int // 0-based, for servers and clients
}

// TargetKind says what a Target names.
type TargetKind uint8

// The target kinds.
const (
	NoTarget TargetKind = iota
	ServerT             // sN
	ClientT             // cN
	LeaderT             // leader: whichever server leads when the fault strikes
	ApplierT            // applier: the server that just applied the triggering request
)

func (t Target) String() string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}

func (t Target) write(b *strings.Builder) {
	switch t.Kind {
	case ServerT:
		b.WriteByte('s')
		b.WriteString(strconv.Itoa(t.Index + 1))
	case ClientT:
		b.WriteByte('c')
		b.WriteString(strconv.Itoa(t.Index + 1))
	case LeaderT:
		b.WriteString("leader")
	case ApplierT:
		b.WriteString("applier")
	}
}

// Trigger ties a fault to an event of client Client (0-based): its Nth
// request of type Op applied by the server it was sent to, just before
// that server answers it (On: OnApplied, "c1 create#2 applied"); its Nth
// request of type Op arriving at a server, before the server acts on it
// (OnReceived, "c1 delete#1 received"); or the Nth watch notification a
// server is about to send it (OnNotified, "c2 notified#1"); or the Nth
// time it holds a lock or a leadership, as its workload reports (OnHolds,
// "c1 holds#1": World.Holds), so that a fault can strike a holder however
// long the acquisition took. Every session of the client's process counts.
type Trigger struct {
	Client int
	Op     client.Op // none for OnNotified and OnHolds
	Nth    int       // 1-based
	On     TriggerOn
}

// TriggerOn is the moment a Trigger names.
type TriggerOn uint8

// The moments a fault can be tied to.
const (
	OnApplied  TriggerOn = iota // applied, about to be answered
	OnReceived                  // arrived at a server, not yet acted on
	OnNotified                  // a watch notification about to be sent
	OnHolds                     // the workload's client holds a lock or leadership
)

func (t Trigger) String() string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}

func (t Trigger) write(b *strings.Builder) {
	b.WriteByte('c')
	b.WriteString(strconv.Itoa(t.Client + 1))
	b.WriteByte(' ')
	if t.On == OnNotified || t.On == OnHolds {
		if t.On == OnNotified {
			b.WriteString("notified#")
		} else {
			b.WriteString("holds#")
		}
		b.WriteString(strconv.Itoa(t.Nth))
		return
	}
	b.WriteString(t.Op.String())
	b.WriteByte('#')
	b.WriteString(strconv.Itoa(t.Nth))
	if t.On == OnReceived {
		b.WriteString(" received")
	} else {
		b.WriteString(" applied")
	}
}

// Fault is one fault of a schedule: what, to whom, and when (at a virtual
// time, or when a trigger event happens).
type Fault struct {
	At   time.Duration
	When *Trigger
	Kind FaultKind
	A, B Target
	D    time.Duration // pause: how long; spike: the extra latency; delay: how late
	// For is how long a spike or a lag lasts; for a crash, a partition, an
	// isolation or a disconnect, when set, how long until it is undone (the
	// server restarts, the links heal), which a fault tied to an event
	// cannot otherwise say.
	For time.Duration
}

// String prints f in the schedule syntax, which ParseSchedule reads back.
func (f Fault) String() string {
	// Written out without fmt: a run with faults records every one it
	// strikes by this text.
	var b strings.Builder
	b.Grow(48)
	if f.When != nil {
		b.WriteString("when ")
		f.When.write(&b)
		b.WriteString(": ")
	} else {
		b.WriteString("at ")
		b.WriteString(f.At.String())
		b.WriteByte(' ')
	}
	b.WriteString(faultNames[f.Kind])
	for _, t := range []Target{f.A, f.B} {
		if t.Kind != NoTarget {
			b.WriteByte(' ')
			t.write(&b)
		}
	}
	switch f.Kind {
	case Pause, Delay:
		b.WriteByte(' ')
		b.WriteString(f.D.String())
	case Spike:
		b.WriteByte(' ')
		b.WriteString(f.D.String())
		b.WriteString(" for ")
		b.WriteString(f.For.String())
	case Crash, Partition, OneWay, Isolate, Disconnect, Lag:
		if f.For > 0 {
			b.WriteString(" for ")
			b.WriteString(f.For.String())
		}
	}
	return b.String()
}

// Schedule is a list of faults. It prints one fault a line, and
// ParseSchedule reads that text back to an equal schedule, so a schedule
// found by a search replays exactly.
type Schedule []Fault

func (s Schedule) String() string {
	lines := make([]string, len(s))
	for i, f := range s {
		lines[i] = f.String()
	}
	return strings.Join(lines, "\n")
}

// ParseSchedule reads a schedule: one fault a line (or separated by ';'),
// blank lines and lines starting with '#' ignored.
//
//	at 1.5s crash s2
//	at 3s restart s2
//	at 1s crash leader
//	at 2s partition s1 s3
//	at 2s partition c1 s2
//	at 2s isolate s1
//	at 4s heal s1 s3
//	at 5s heal
//	at 100ms pause c1 12s
//	at 1s spike 50ms for 2s
//	when c2 create#1 applied: lose-reply
//	when c2 create#1 applied: crash applier
//	at 2s disconnect c1 for 12s
//	at 3s expire c2
//	at 1s lag s2 for 3s
//	when c1 delete#1 received: lose-request
//	when c2 getChildren#2 applied: expire c2
//	when c2 notified#1: delay 2s
func ParseSchedule(text string) (Schedule, error) {
	var out Schedule
	lineNo := 0
	for _, line := range strings.Split(text, "\n") {
		lineNo++
		for _, part := range strings.Split(line, ";") {
			part = strings.TrimSpace(part)
			if part == "" || strings.HasPrefix(part, "#") {
				continue
			}
			f, err := parseFault(part)
			if err != nil {
				return nil, fmt.Errorf("line %d: %q: %w", lineNo, part, err)
			}
			out = append(out, f)
		}
	}
	return out, nil
}

func parseFault(s string) (Fault, error) {
	f, words, err := parseWhen(strings.Fields(s))
	if err != nil {
		return f, err
	}
	if len(words) == 0 {
		return f, fmt.Errorf("no fault named")
	}
	kind, ok := FaultKind(0), false
	for k, name := range faultNames {
		if name == words[0] {
			kind, ok = k, true
		}
	}
	if !ok {
		return f, fmt.Errorf("unknown fault %q; want one of %s", words[0], strings.Join(sortedFaultNames(), ", "))
	}
	f.Kind = kind
	return f, f.parseArgs(words[0], words[1:])
}

// parseWhen reads a fault's "at TIME" or "when ...:" and returns the
// words that follow.
func parseWhen(words []string) (Fault, []string, error) {
	var f Fault
	switch {
	case len(words) >= 2 && words[0] == "at":
		d, err := time.ParseDuration(words[1])
		if err != nil || d < 0 {
			return f, nil, fmt.Errorf("time %q: want a duration such as 1.5s or 200ms", words[1])
		}
		f.At = d
		words = words[2:]
	case len(words) >= 3 && words[0] == "when" && strings.HasSuffix(words[2], ":") &&
		(strings.HasPrefix(words[2], "notified#") || strings.HasPrefix(words[2], "holds#")):
		on := OnNotified
		if strings.HasPrefix(words[2], "holds#") {
			on = OnHolds
		}
		tr, err := parseTrigger(words[1], strings.TrimSuffix(words[2], ":"), on)
		if err != nil {
			return f, nil, err
		}
		f.When = &tr
		words = words[3:]
	case len(words) >= 4 && words[0] == "when" && (words[3] == "applied:" || words[3] == "received:"):
		on := OnApplied
		if words[3] == "received:" {
			on = OnReceived
		}
		tr, err := parseTrigger(words[1], words[2], on)
		if err != nil {
			return f, nil, err
		}
		f.When = &tr
		words = words[4:]
	default:
		return f, nil, fmt.Errorf(`want "at TIME FAULT", "when cN OP#K applied: FAULT", "when cN OP#K received: FAULT", "when cN notified#K: FAULT" or "when cN holds#K: FAULT"`)
	}
	return f, words, nil
}

// parseArgs reads the targets and durations of a fault of kind name,
// into f.
// faultArgs are the words after a fault's name, being read into f.
type faultArgs struct {
	f    *Fault
	name string
	args []string
}

// target reads args[i] as a target of one of the allowed kinds.
func (a faultArgs) target(i int, allowed ...TargetKind) (Target, error) {
	if i >= len(a.args) {
		return Target{}, fmt.Errorf("%s: missing target", a.name)
	}
	t, err := parseTarget(a.args[i])
	if err != nil {
		return t, err
	}
	if !slices.Contains(allowed, t.Kind) {
		return t, fmt.Errorf("%s: target %s not allowed here", a.name, a.args[i])
	}
	if t.Kind == ApplierT && (a.f.When == nil || a.f.When.On == OnHolds) {
		return t, fmt.Errorf("%s applier: only a fault tied to a request or a notification has an applier", a.name)
	}
	return t, nil
}

// dur reads args[i] as a positive duration.
func (a faultArgs) dur(i int) (time.Duration, error) {
	if i >= len(a.args) {
		return 0, fmt.Errorf("%s: missing duration", a.name)
	}
	d, err := time.ParseDuration(a.args[i])
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s: duration %q: want a positive duration such as 12s", a.name, a.args[i])
	}
	return d, nil
}

func (f *Fault) parseArgs(name string, args []string) error {
	// "crash s1 for 2s", "partition c1 s2 for 3s", "isolate s1 for 3s":
	// undone after a while.
	if n := len(args); (f.Kind == Crash || f.Kind == Partition || f.Kind == OneWay || f.Kind == Isolate || f.Kind == Disconnect || f.Kind == Lag) && n >= 2 && args[n-2] == "for" {
		d, err := faultArgs{f, name, args}.dur(n - 1)
		if err != nil {
			return err
		}
		f.For, args = d, args[:n-2]
	}
	a := faultArgs{f, name, args}
	want, err := a.read()
	if err != nil {
		return err
	}
	if len(args) > want {
		return fmt.Errorf("%s: unexpected %q", name, strings.Join(args[want:], " "))
	}
	return nil
}

// read reads the targets and durations of f's kind, and says how many
// words they took.
func (a faultArgs) read() (want int, err error) {
	f := a.f
	target, dur, args := a.target, a.dur, a.args
	switch f.Kind {
	case Crash:
		want = 1
		f.A, err = target(0, ServerT, LeaderT, ApplierT)
	case Restart, Isolate:
		want = 1
		f.A, err = target(0, ServerT)
	case Partition, OneWay:
		want = 2
		if f.A, err = target(0, ServerT, ClientT); err == nil {
			f.B, err = target(1, ServerT, ClientT)
		}
		if err == nil && f.A.Kind == ClientT && f.B.Kind == ClientT {
			err = fmt.Errorf("%s: clients have no link between them; name a server", faultNames[f.Kind])
		}
	case Heal:
		if len(args) == 0 {
			break
		}
		want = 2
		if f.A, err = target(0, ServerT, ClientT); err == nil {
			f.B, err = target(1, ServerT, ClientT)
		}
	case Pause:
		want = 2
		if f.A, err = target(0, ClientT, ServerT, LeaderT); err == nil {
			f.D, err = dur(1)
		}
	case Spike:
		want = 3
		if f.D, err = dur(0); err == nil {
			if len(args) < 3 || args[1] != "for" {
				err = fmt.Errorf("spike: want \"spike EXTRA for HOW-LONG\"")
			} else {
				f.For, err = dur(2)
			}
		}
	case LoseReply:
		if f.When == nil || f.When.On == OnReceived || f.When.On == OnHolds {
			err = fmt.Errorf("lose-reply: only a fault tied to a request applied (when cN OP#K applied:) or a notification (when cN notified#K:) has a reply to lose")
		}
	case LoseRequest:
		if f.When == nil || f.When.On != OnReceived {
			err = fmt.Errorf("lose-request: only a fault tied to a request received (when cN OP#K received:) has a request to lose")
		}
	case Delay:
		want = 1
		if f.When == nil || f.When.On == OnReceived || f.When.On == OnHolds {
			err = fmt.Errorf("delay: only a fault tied to a request applied or a notification has a message to delay")
		} else {
			f.D, err = dur(0)
		}
	case Disconnect:
		want = 1
		f.A, err = target(0, ClientT)
	case Expire:
		want = 1
		f.A, err = target(0, ClientT)
	case Lag:
		want = 1
		if f.A, err = target(0, ServerT, LeaderT, ApplierT); err == nil && f.For == 0 {
			err = fmt.Errorf("lag: want \"lag sN for HOW-LONG\"")
		}
	}
	return want, err
}

func sortedFaultNames() []string {
	var names []string
	for _, n := range faultNames {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func parseTarget(s string) (Target, error) {
	switch s {
	case "leader":
		return Target{Kind: LeaderT}, nil
	case "applier":
		return Target{Kind: ApplierT}, nil
	}
	if len(s) >= 2 && (s[0] == 's' || s[0] == 'c') {
		n, err := strconv.Atoi(s[1:])
		if err == nil && n >= 1 {
			kind := ServerT
			if s[0] == 'c' {
				kind = ClientT
			}
			return Target{Kind: kind, Index: n - 1}, nil
		}
	}
	return Target{}, fmt.Errorf("target %q: want sN, cN, leader or applier", s)
}

func parseTrigger(who, what string, on TriggerOn) (Trigger, error) {
	t, err := parseTarget(who)
	if err != nil || t.Kind != ClientT {
		return Trigger{}, fmt.Errorf("trigger %q: want a client, cN", who)
	}
	name, nth, ok := strings.Cut(what, "#")
	n, err := strconv.Atoi(nth)
	if !ok || err != nil || n < 1 {
		return Trigger{}, fmt.Errorf("trigger %q: want OP#K, such as create#1, or notified#K", what)
	}
	if on == OnNotified || on == OnHolds {
		return Trigger{Client: t.Index, Nth: n, On: on}, nil
	}
	if op, ok := client.OpNamed(name); ok && op != client.OpPing && op != client.OpCreateSession && op != client.OpSetWatches {
		return Trigger{Client: t.Index, Op: op, Nth: n, On: on}, nil
	}
	return Trigger{}, fmt.Errorf("trigger %q: unknown request type %q", what, name)
}

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
	// (default 10s, the simulator's).
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

// draw is RandomSchedule's source of choices.
type draw struct {
	src              Source
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
func RandomSchedule(src Source, r Rates, horizon time.Duration, servers, clients int) Schedule {
	return RandomScheduleFor(src, r, horizon, servers, clients, nil)
}

// RandomScheduleFor is RandomSchedule with the faults tied to requests and
// notifications drawn from rep, what the workload's clients do (nil: drawn
// blind).
func RandomScheduleFor(src Source, r Rates, horizon time.Duration, servers, clients int, rep *Repertoire) Schedule {
	d := draw{src: src, servers: servers, clients: clients, timeout: r.SessionTimeout, rep: rep}
	if d.timeout <= 0 {
		d.timeout = 10 * time.Second
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
