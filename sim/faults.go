package sim

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// FaultKind is what a fault does.
type FaultKind uint8

// The fault kinds. Each prints, and parses, as its name followed by its
// targets and durations (see Fault.String).
const (
	Crash     FaultKind = iota + 1 // crash s2 | crash leader | crash applier
	Restart                        // restart s2
	Partition                      // partition s1 s3 | partition c1 s2: cut both directions
	Isolate                        // isolate s1: cut a server from every server and client
	Heal                           // heal s1 s3 | heal: reopen links (all when none named)
	Pause                          // pause c1 12s: stop a client process
	Spike                          // spike 50ms for 2s: extra latency on every link
	LoseReply                      // lose-reply: the reply to the triggering request is lost and its connection drops
)

var faultNames = map[FaultKind]string{
	Crash: "crash", Restart: "restart", Partition: "partition", Isolate: "isolate",
	Heal: "heal", Pause: "pause", Spike: "spike", LoseReply: "lose-reply",
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

// Trigger ties a fault to an event: the Nth request of type Op by client
// Client (0-based) having been applied by the server it was sent to, just
// before that server answers it.
type Trigger struct {
	Client int
	Op     Op
	Nth    int // 1-based
}

func (t Trigger) String() string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}

func (t Trigger) write(b *strings.Builder) {
	b.WriteByte('c')
	b.WriteString(strconv.Itoa(t.Client + 1))
	b.WriteByte(' ')
	b.WriteString(t.Op.String())
	b.WriteByte('#')
	b.WriteString(strconv.Itoa(t.Nth))
	b.WriteString(" applied")
}

// Fault is one fault of a schedule: what, to whom, and when (at a virtual
// time, or when a trigger event happens).
type Fault struct {
	At   time.Duration
	When *Trigger
	Kind FaultKind
	A, B Target
	D    time.Duration // pause: how long; spike: the extra latency
	// For is how long a spike lasts; for a crash, a partition or an
	// isolation, when set, how long until it is undone (the server
	// restarts, the links heal), which a fault tied to an event cannot
	// otherwise say.
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
	case Pause:
		b.WriteByte(' ')
		b.WriteString(f.D.String())
	case Spike:
		b.WriteByte(' ')
		b.WriteString(f.D.String())
		b.WriteString(" for ")
		b.WriteString(f.For.String())
	case Crash, Partition, Isolate:
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
	var f Fault
	words := strings.Fields(s)
	switch {
	case len(words) >= 2 && words[0] == "at":
		d, err := time.ParseDuration(words[1])
		if err != nil || d < 0 {
			return f, fmt.Errorf("time %q: want a duration such as 1.5s or 200ms", words[1])
		}
		f.At = d
		words = words[2:]
	case len(words) >= 4 && words[0] == "when" && strings.HasSuffix(words[3], ":") && words[3] == "applied:":
		tr, err := parseTrigger(words[1], words[2])
		if err != nil {
			return f, err
		}
		f.When = &tr
		words = words[4:]
	default:
		return f, fmt.Errorf(`want "at TIME FAULT" or "when cN OP#K applied: FAULT"`)
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
	args := words[1:]
	target := func(i int, allowed ...TargetKind) (Target, error) {
		if i >= len(args) {
			return Target{}, fmt.Errorf("%s: missing target", words[0])
		}
		t, err := parseTarget(args[i])
		if err != nil {
			return t, err
		}
		if !slices.Contains(allowed, t.Kind) {
			return t, fmt.Errorf("%s: target %s not allowed here", words[0], args[i])
		}
		if t.Kind == ApplierT && f.When == nil {
			return t, fmt.Errorf("%s applier: only a fault tied to an event has an applier", words[0])
		}
		return t, nil
	}
	dur := func(i int) (time.Duration, error) {
		if i >= len(args) {
			return 0, fmt.Errorf("%s: missing duration", words[0])
		}
		d, err := time.ParseDuration(args[i])
		if err != nil || d <= 0 {
			return 0, fmt.Errorf("%s: duration %q: want a positive duration such as 12s", words[0], args[i])
		}
		return d, nil
	}
	// "crash s1 for 2s", "partition c1 s2 for 3s", "isolate s1 for 3s":
	// undone after a while.
	if n := len(args); (kind == Crash || kind == Partition || kind == Isolate) && n >= 2 && args[n-2] == "for" {
		d, err := dur(n - 1)
		if err != nil {
			return f, err
		}
		f.For, args = d, args[:n-2]
	}
	want := 0
	var err error
	switch kind {
	case Crash:
		want = 1
		f.A, err = target(0, ServerT, LeaderT, ApplierT)
	case Restart, Isolate:
		want = 1
		f.A, err = target(0, ServerT)
	case Partition:
		want = 2
		if f.A, err = target(0, ServerT, ClientT); err == nil {
			f.B, err = target(1, ServerT, ClientT)
		}
		if err == nil && f.A.Kind == ClientT && f.B.Kind == ClientT {
			err = fmt.Errorf("partition: clients have no link between them; name a server")
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
		if f.A, err = target(0, ClientT); err == nil {
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
		if f.When == nil {
			err = fmt.Errorf("lose-reply: only a fault tied to an event (when ... applied:) has a reply to lose")
		}
	}
	if err != nil {
		return f, err
	}
	if len(args) > want {
		return f, fmt.Errorf("%s: unexpected %q", words[0], strings.Join(args[want:], " "))
	}
	return f, nil
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

func parseTrigger(who, what string) (Trigger, error) {
	t, err := parseTarget(who)
	if err != nil || t.Kind != ClientT {
		return Trigger{}, fmt.Errorf("trigger %q: want a client, cN", who)
	}
	name, nth, ok := strings.Cut(what, "#")
	n, err := strconv.Atoi(nth)
	if !ok || err != nil || n < 1 {
		return Trigger{}, fmt.Errorf("trigger %q: want OP#K, such as create#1", what)
	}
	for op, opName := range opNames {
		if opName == name && op != OpPing && op != OpCreateSession && op != OpSetWatches {
			return Trigger{Client: t.Index, Op: op, Nth: n}, nil
		}
	}
	return Trigger{}, fmt.Errorf("trigger %q: unknown request type %q", what, name)
}

// faultPlan holds a run's faults that wait for their trigger, and counts
// the events they wait for.
type faultPlan struct {
	w       *World
	pending []Fault
	counts  map[Trigger]int // (client, op) → how many applied so far (Nth unused)
}

// Inject adds the faults of sched to the run: faults at a time are
// scheduled, faults tied to an event wait for it. It checks that every
// target exists: call it after spawning the clients.
func (w *World) Inject(sched Schedule) error {
	for _, f := range sched {
		for _, t := range []Target{f.A, f.B} {
			switch {
			case t.Kind == ServerT && t.Index >= len(w.servers):
				return fmt.Errorf("fault %q: no server %s in an ensemble of %d", f, t, len(w.servers))
			case t.Kind == ClientT && t.Index >= len(w.clients):
				return fmt.Errorf("fault %q: no client %s among %d", f, t, len(w.clients))
			}
		}
		if f.When != nil && f.When.Client >= len(w.clients) {
			return fmt.Errorf("fault %q: no client c%d among %d", f, f.When.Client+1, len(w.clients))
		}
	}
	for _, f := range sched {
		if f.When != nil {
			if w.faults == nil {
				w.faults = &faultPlan{w: w, counts: map[Trigger]int{}}
			}
			w.faults.pending = append(w.faults.pending, f)
			continue
		}
		w.s.at(Time(f.At), func() { w.strike(f, nil, nil) })
	}
	return nil
}

// onReply is called as server s is about to answer req; it counts the
// event, strikes the faults it triggers, and reports whether the answer was
// taken over (lost with its connection, or never sent by a crashed server).
func (p *faultPlan) onReply(s *server, req *request) bool {
	c := req.cn.client
	key := Trigger{Client: c.idx, Op: req.op}
	p.counts[key]++
	n := p.counts[key]
	taken := false
	kept := p.pending[:0]
	for _, f := range p.pending {
		if t := f.When; t.Client == c.idx && t.Op == req.op && t.Nth == n {
			if p.w.strike(f, s, req) {
				taken = true
			}
			continue
		}
		kept = append(kept, f)
	}
	p.pending = kept
	return taken
}

// strike carries out f now. For a fault tied to an event, s is the server
// that applied the triggering request req; strike reports whether req's
// answer is taken over.
func (w *World) strike(f Fault, s *server, req *request) bool {
	w.s.record(Record{Kind: KFault, From: WorldActor, Path: f.String()})
	server := func(t Target) *server {
		switch t.Kind {
		case ServerT:
			return w.servers[t.Index]
		case ApplierT:
			return s
		case LeaderT:
			for _, x := range w.servers {
				if x.role == roleLeading {
					return x
				}
			}
		}
		return nil
	}
	switch f.Kind {
	case Crash:
		target := server(f.A)
		if target == nil {
			w.s.record(Record{Kind: KNote, From: WorldActor, Path: "no leader to crash"})
			return false
		}
		if f.For > 0 {
			w.s.at(w.s.now+Time(f.For), func() { w.restart(target) })
		}
		if target == s {
			// Crash right after applying, before answering: the crash is
			// carried out as the next event of this instant, once the
			// server has finished the transaction it is applying. It
			// answers nothing more meanwhile: the connection of the
			// request whose answer it never sends closes now (a later
			// answer on it would overtake the lost one).
			if req != nil {
				s.closeConn(req.cn)
			}
			w.s.at(w.s.now, func() { w.crash(target) })
			return true
		}
		w.crash(target)
	case Restart:
		w.restart(server(f.A))
	case Partition:
		w.setCut(f.A, f.B, true)
		if f.For > 0 {
			w.s.at(w.s.now+Time(f.For), func() { w.strike(Fault{Kind: Heal, A: f.A, B: f.B}, nil, nil) })
		}
	case Isolate:
		x := w.servers[f.A.Index]
		for _, o := range w.servers {
			if o != x {
				w.setCut(f.A, Target{Kind: ServerT, Index: o.idx}, true)
			}
		}
		for _, c := range w.clients {
			w.setCut(f.A, Target{Kind: ClientT, Index: c.idx}, true)
		}
		if f.For > 0 {
			w.s.at(w.s.now+Time(f.For), func() {
				w.s.record(Record{Kind: KFault, From: WorldActor, Path: "heal " + f.A.String() + " (isolation over)"})
				for _, o := range w.servers {
					if o != x {
						w.setCut(f.A, Target{Kind: ServerT, Index: o.idx}, false)
					}
				}
				for _, c := range w.clients {
					w.setCut(f.A, Target{Kind: ClientT, Index: c.idx}, false)
				}
				w.electionAt = 0
				w.needElection()
			})
		}
	case Heal:
		if f.A.Kind == NoTarget {
			w.healAll()
		} else {
			w.setCut(f.A, f.B, false)
		}
		w.electionAt = 0
		w.needElection()
	case Pause:
		w.clients[f.A.Index].Pause(f.D)
	case Spike:
		until := w.s.now + Time(f.For)
		w.eachLink(func(l *link) { l.spike, l.spikeUntil = Time(f.D), until })
	case LoseReply:
		if req != nil && s != nil {
			s.closeConn(req.cn)
			return true
		}
	}
	return false
}

// setCut cuts (or heals) both directions between a and b.
func (w *World) setCut(a, b Target, cut bool) {
	if a.Kind == ClientT {
		a, b = b, a
	}
	var ls []*link
	switch {
	case a.Kind == ServerT && b.Kind == ServerT:
		ls = []*link{w.peers[a.Index][b.Index], w.peers[b.Index][a.Index]}
	case a.Kind == ServerT && b.Kind == ClientT:
		lp := &w.clients[b.Index].links[a.Index]
		ls = []*link{&lp.up, &lp.down}
	}
	for _, l := range ls {
		if cut {
			l.cut = true
		} else {
			w.heal(l)
		}
	}
}

func (w *World) healAll() {
	w.eachLink(func(l *link) { w.heal(l) })
}

// eachLink visits every link, servers' first, in a fixed order.
func (w *World) eachLink(fn func(*link)) {
	for _, row := range w.peers {
		for _, l := range row {
			fn(l)
		}
	}
	for _, c := range w.clients {
		for i := range c.links {
			fn(&c.links[i].up)
			fn(&c.links[i].down)
		}
	}
}

// Rates are how often each kind of fault strikes, per second of virtual
// time, for RandomSchedule.
type Rates struct {
	Crash       float64 // a server crashes, and restarts 1–10s later
	LeaderCrash float64 // the leader crashes, and restarts 1–10s later
	Partition   float64 // two servers, or a client and a server, are cut apart, healed 1–10s later
	Isolate     float64 // a server is cut from everyone, healed 1–10s later
	Pause       float64 // a client process pauses for 0.1–20s
	Spike       float64 // every link slows by 10–100ms for 0.5–3s
	LoseReply   float64 // a client's write is applied and its reply lost
}

// RandomSchedule draws a schedule of faults over the first horizon of a run
// from src, at the given rates: in each tenth of a second, each kind strikes
// with probability rate/10. The result is an explicit schedule: it prints,
// and replays without src.
func RandomSchedule(src Source, r Rates, horizon time.Duration, servers, clients int) Schedule {
	var out Schedule
	chance := func(rate float64) bool {
		return rate > 0 && float64(src.Choose(10000)) < rate*1000
	}
	between := func(lo, hi time.Duration) time.Duration {
		steps := int((hi - lo) / (10 * time.Millisecond))
		return lo + time.Duration(src.Choose(steps+1))*10*time.Millisecond
	}
	server := func() Target { return Target{Kind: ServerT, Index: src.Choose(servers)} }
	client := func() Target { return Target{Kind: ClientT, Index: src.Choose(clients)} }
	writes := []Op{OpCreate, OpDelete, OpSetData}
	for at := time.Duration(0); at < horizon; at += 100 * time.Millisecond {
		if chance(r.Crash) {
			s := server()
			out = append(out, Fault{At: at, Kind: Crash, A: s},
				Fault{At: at + between(time.Second, 10*time.Second), Kind: Restart, A: s})
		}
		if chance(r.LeaderCrash) {
			out = append(out, Fault{At: at, Kind: Crash, A: Target{Kind: LeaderT}})
			// Which server led is known only when it strikes: restart all
			// later (restarting a running server does nothing).
			back := at + between(time.Second, 10*time.Second)
			for i := 0; i < servers; i++ {
				out = append(out, Fault{At: back, Kind: Restart, A: Target{Kind: ServerT, Index: i}})
			}
		}
		if chance(r.Partition) && servers > 1 {
			a := server()
			var b Target
			if clients > 0 && src.Choose(2) == 0 {
				b = client()
			} else {
				b = Target{Kind: ServerT, Index: (a.Index + 1 + src.Choose(servers-1)) % servers}
			}
			out = append(out, Fault{At: at, Kind: Partition, A: a, B: b},
				Fault{At: at + between(time.Second, 10*time.Second), Kind: Heal, A: a, B: b})
		}
		if chance(r.Isolate) {
			s := server()
			out = append(out, Fault{At: at, Kind: Isolate, A: s},
				Fault{At: at + between(time.Second, 10*time.Second), Kind: Heal})
		}
		if chance(r.Pause) && clients > 0 {
			out = append(out, Fault{At: at, Kind: Pause, A: client(), D: between(100*time.Millisecond, 20*time.Second)})
		}
		if chance(r.Spike) {
			out = append(out, Fault{At: at, Kind: Spike, D: between(10*time.Millisecond, 100*time.Millisecond),
				For: between(500*time.Millisecond, 3*time.Second)})
		}
		if chance(r.LoseReply) && clients > 0 {
			tr := Trigger{Client: src.Choose(clients), Op: writes[src.Choose(len(writes))], Nth: 1 + src.Choose(5)}
			out = append(out, Fault{When: &tr, Kind: LoseReply})
		}
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
