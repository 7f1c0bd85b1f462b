package fault

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zksim/zksim/client"
)

// Kind is what a fault does.
type Kind uint8

// The fault kinds. Each prints, and parses, as its name followed by its
// targets and durations (see Fault.String).
const (
	Crash       Kind = iota + 1 // crash s2 | crash leader | crash applier
	Restart                     // restart s2
	Partition                   // partition s1 s3 | partition c1 s2: cut both directions
	Isolate                     // isolate s1: cut a server from every server and client
	Heal                        // heal s1 s3 | heal: reopen links (all when none named)
	Pause                       // pause c1 12s | pause s2 12s | pause leader 12s: stop a client process, or a server
	Spike                       // spike 50ms for 2s: extra latency on every link
	LoseReply                   // lose-reply: the reply to the triggering request (or the notification) is lost and its connection drops
	Disconnect                  // disconnect c1 for 12s: cut a client process from every server
	Expire                      // expire c1: the leader expires the client's sessions now, as if they timed out
	Lag                         // lag s2 for 3s: a server applies nothing for a while, and serves reads from what it had
	LoseRequest                 // lose-request: the triggering request is lost with its connection, never applied
	Delay                       // delay 2s: the triggering reply or notification leaves late, and all behind it
	OneWay                      // one-way s1 s3 | one-way c1 s2: cut one direction: what the first sends the second is held
)

var faultNames = map[Kind]string{
	Crash: "crash", Restart: "restart", Partition: "partition", Isolate: "isolate",
	Heal: "heal", Pause: "pause", Spike: "spike", LoseReply: "lose-reply",
	Disconnect: "disconnect", Expire: "expire", Lag: "lag", LoseRequest: "lose-request", Delay: "delay",
	OneWay: "one-way",
}

// Kinds are every fault kind, in their order.
func Kinds() []Kind {
	kinds := make([]Kind, 0, len(faultNames))
	for k := Crash; k <= OneWay; k++ {
		kinds = append(kinds, k)
	}
	return kinds
}

// String is the kind's name, as a schedule prints it ("lose-reply").
func (k Kind) String() string { return faultNames[k] }

// KindNames are the fault kinds' names, sorted.
func KindNames() []string {
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
// (OnReceived, "c1 delete#1 received"); its Nth request of type Op that
// the server applied and is about to answer with an error, counting only
// those (OnFailed, "c1 delete#1 failed": a delete that lost a race for its
// node, say, whatever its place among the client's deletes); or the Nth
// watch notification a
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
	OnFailed                    // applied, about to be answered with an error
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
	switch t.On {
	case OnReceived:
		b.WriteString(" received")
	case OnFailed:
		b.WriteString(" failed")
	default:
		b.WriteString(" applied")
	}
}

// Fault is one fault of a schedule: what, to whom, and when (at a virtual
// time, or when a trigger event happens).
type Fault struct {
	At   time.Duration
	When *Trigger
	Kind Kind
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

// Equal reports whether f and g are the same fault: the same kind,
// targets, times and trigger (a Fault holds its trigger by pointer).
func (f Fault) Equal(g Fault) bool {
	if (f.When == nil) != (g.When == nil) || f.When != nil && *f.When != *g.When {
		return false
	}
	f.When, g.When = nil, nil
	return f == g
}

// Names reports whether f names t as one of its targets (a partition's
// either side, a crash's server, a heal's link): a fault on the leader or
// the applier names neither, since which server that was is the run's.
func (f Fault) Names(t Target) bool {
	return t.Kind != NoTarget && (f.A == t || f.B == t)
}

// TiedTo reports whether f is tied to client's requests of type op ("when
// c1 create#2 applied:", or received).
func (f Fault) TiedTo(client int, op client.Op) bool {
	return f.When != nil && f.When.Client == client && f.When.Op == op &&
		(f.When.On == OnApplied || f.When.On == OnReceived || f.When.On == OnFailed)
}

// Schedule is a list of faults. It prints one fault a line, and
// ParseSchedule reads that text back to an equal schedule, so a schedule
// found by a search replays exactly.
type Schedule []Fault

// Texts are the faults' texts, one each (an empty list for none).
func (s Schedule) Texts() []string {
	out := make([]string, 0, len(s)) // none is an empty list, in JSON too
	for _, f := range s {
		out = append(out, f.String())
	}
	return out
}

func (s Schedule) String() string {
	lines := make([]string, len(s))
	for i, f := range s {
		lines[i] = f.String()
	}
	return strings.Join(lines, "\n")
}
