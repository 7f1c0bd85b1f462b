package trace

import (
	"fmt"
	"io"
	"iter"
	"strings"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
)

// Actor names who did something in a trace record: the world itself, a
// client, or a server.
type Actor uint32

const (
	// WorldActor is the simulator itself (faults, the end of a run).
	WorldActor Actor = 0
	// serverBase separates server actors from client actors.
	serverBase Actor = 1 << 20
)

// ClientActor is the actor of client i (0-based).
func ClientActor(i int) Actor { return Actor(1 + i) }

// ServerActor is the actor of server i (0-based).
func ServerActor(i int) Actor { return serverBase + Actor(i) }

// Target is the actor as a fault names it: a server sN or a client cN
// (NoTarget for the world).
func (a Actor) Target() fault.Target {
	switch {
	case a == WorldActor:
		return fault.Target{}
	case a >= serverBase:
		return fault.Target{Kind: fault.ServerT, Index: int(a - serverBase)}
	}
	return fault.Target{Kind: fault.ClientT, Index: int(a) - 1}
}

// Kind is what a trace record says happened.
type Kind uint8

// The record kinds. Each renders as one line; see Record.Format.
const (
	KSpawn   Kind = iota + 1 // a client process starts
	KExit                    // a client process returns (Code: 0, or 1 on error)
	KSend                    // client sends a request (Op, Path, Arg=xid, Code=1 when it leaves a watch)
	KApply                   // server applies a transaction (Op, Path, Zxid, Sess)
	KReply                   // server replies to a request (Op, Path, Code, Arg=xid, Zxid)
	KNotify                  // server sends a watch event (Arg=event type, Path, Zxid: the transaction that fired it, 0 for setWatches)
	KState                   // client session state changes (Arg=zk.State, Sess)
	KExpire                  // server expires a session (Sess)
	KPause                   // client process pauses (Arg=duration ns)
	KResume                  // client process resumes
	KPing                    // client sends a heartbeat
	KTimeout                 // client declares the connection lost
	KNote                    // free text (Path holds the text)
	KRole                    // a server's role changes (Arg=Role, Path=why)
	KPropose                 // the leader orders a write (Op, Path, Zxid, Sess)
	KFault                   // a fault strikes (Path: its text; Arg: its place in Trace.Faults, 1-based)
)

// Record is one event of a run. It is kept compact and rendered to text only
// when a trace is printed; the running hash covers every field. The fields
// go from the widest to the narrowest, which packs a record in 64 bytes
// rather than 72 (a kept trace holds tens of thousands).
type Record struct {
	At   Time
	Path string
	Zxid int64
	Sess int64
	Arg  int64
	From Actor
	To   Actor
	Code int32
	Kind Kind
	Op   client.Op
	// Task is, for a client's send or note, which of its process's tasks
	// made it: 0 for the first (the workload's body) or none, k for the
	// k-th it started (Trace.TaskName).
	Task uint16
}

// Trace accumulates a run's records into a running hash, and keeps them when
// asked to (for printing a timeline).
type Trace struct {
	hash  uint64
	count uint64
	keep  bool
	// chunks hold the kept records in blocks of fixed size, so that
	// keeping one never copies those before it (a run keeps tens of
	// thousands); recs is them end to end, made when asked for.
	chunks [][]Record
	kept   int
	recs   []Record
	names  []string // client names by index
	// tasks are, by client index, the names of the tasks its process
	// started ("c4/event-thread"), the k-th at k-1.
	tasks [][]string
	// faults are the faults struck, in order, each a KFault record's
	// (Fault): a fault is read by its fields, never back from its text.
	faults []fault.Fault
	// changes are, when keepChanges, what each applied transaction
	// changed in the data tree, by zxid (changes.go).
	changes     map[int64][]NodeChange
	keepChanges bool
}

// traceChunk is the most records in a block of a kept trace;
// firstTraceChunk the number in its first.
const (
	traceChunk      = 4096
	firstTraceChunk = 128
)

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// New is an empty trace, which keeps its records (for printing a
// timeline) if keep.
func New(keep bool) *Trace { return &Trace{hash: fnvOffset, keep: keep} }

func (t *Trace) mix(v uint64) {
	t.hash = (t.hash ^ v) * fnvPrime
}

func (t *Trace) mixString(s string) {
	t.mix(uint64(len(s)))
	for len(s) >= 8 {
		t.mix(uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56)
		s = s[8:]
	}
	var w uint64
	for i := 0; i < len(s); i++ {
		w |= uint64(s[i]) << (8 * i)
	}
	t.mix(w)
}

// Add hashes r and keeps it if the trace keeps records. The world calls it
// for every record of every run.
func (t *Trace) Add(r Record) {
	t.count++
	t.mix(uint64(r.At))
	t.mix(uint64(r.Kind) | uint64(r.Op)<<8 | uint64(r.Task)<<16 | uint64(uint32(r.Code))<<32)
	t.mix(uint64(r.From) | uint64(r.To)<<32)
	t.mixString(r.Path)
	t.mix(uint64(r.Zxid))
	t.mix(uint64(r.Sess))
	arg := r.Arg
	if r.Kind == KFault {
		arg = 0 // the fault's place in Faults: its text, in Path, is hashed
	}
	t.mix(uint64(arg))
	if t.keep {
		if n := len(t.chunks); n == 0 || len(t.chunks[n-1]) == cap(t.chunks[n-1]) {
			// The first blocks are small and double (a short run keeps a few
			// hundred records, and a block is zeroed when made); then
			// traceChunk each.
			size := firstTraceChunk
			if n > 0 {
				size = min(2*cap(t.chunks[n-1]), traceChunk)
			}
			t.chunks = append(t.chunks, make([]Record, 0, size))
		}
		last := &t.chunks[len(t.chunks)-1]
		*last = append(*last, r)
		t.kept++
	}
}

// AddFault adds a KFault record of f, its text text, striking at at: the
// text is what the trace prints (f's schedule form, or what ended with a
// heal), and f is what Fault gives back for the record.
func (t *Trace) AddFault(at Time, f fault.Fault, text string) {
	t.faults = append(t.faults, f)
	t.Add(Record{At: at, Kind: KFault, From: WorldActor, Path: text, Arg: int64(len(t.faults))})
}

// Fault is the fault a KFault record tells of; false for another record.
func (t *Trace) Fault(r *Record) (fault.Fault, bool) {
	if r.Kind != KFault || r.Arg < 1 || int(r.Arg) > len(t.faults) {
		return fault.Fault{}, false
	}
	return t.faults[r.Arg-1], true
}

// Choice hashes one decision drawn from the run's source of choices: v
// of n.
func (t *Trace) Choice(n, v int) {
	t.mix(0xc4 ^ uint64(n)<<8)
	t.mix(uint64(v))
}

// Hash is the running hash of every record and every choice so far.
func (t *Trace) Hash() uint64 { return t.hash }

// Len is the number of records so far, kept or not.
func (t *Trace) Len() uint64 { return t.count }

// Kept is how many records the trace kept (0 unless the run kept its
// trace): a cheap test for Records, which lays them end to end.
func (t *Trace) Kept() int { return t.kept }

// All yields the kept records in order, without laying them end to end.
func (t *Trace) All() iter.Seq[*Record] {
	return func(yield func(*Record) bool) {
		for _, c := range t.chunks {
			for i := range c {
				if !yield(&c[i]) {
					return
				}
			}
		}
	}
}

// Records are the kept records (none unless the run kept its trace).
func (t *Trace) Records() []Record {
	if len(t.recs) != t.kept {
		t.recs = make([]Record, 0, t.kept)
		for _, c := range t.chunks {
			t.recs = append(t.recs, c...)
		}
	}
	return t.recs
}

// serverNames are the names of the first servers, written out once.
var serverNames = [...]string{"s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9"}

// TaskName names the k-th task client actor a's process started
// ("c4/event-thread"); k 0 is the process itself ("c4").
func (t *Trace) TaskName(a Actor, k uint16) string {
	if i := int(a) - 1; k > 0 && a != WorldActor && a < serverBase && i < len(t.tasks) && int(k) <= len(t.tasks[i]) {
		return t.tasks[i][k-1]
	}
	return t.ActorName(a)
}

// AddTask notes that client actor a's process started a task named name,
// and returns its number (Record.Task).
func (t *Trace) AddTask(a Actor, name string) uint16 {
	i := int(a) - 1
	for len(t.tasks) <= i {
		t.tasks = append(t.tasks, nil)
	}
	t.tasks[i] = append(t.tasks[i], name)
	return uint16(len(t.tasks[i]))
}

// AddClient names the next client: the first added is client actor 1's
// (ClientActor(0)), and so on.
func (t *Trace) AddClient(name string) { t.names = append(t.names, name) }

// ActorName renders an actor as the trace prints it: c1 is the first client
// by its given name, s1 the first server.
func (t *Trace) ActorName(a Actor) string {
	switch {
	case a == WorldActor:
		return "world"
	case a >= serverBase:
		if i := int(a - serverBase); i < len(serverNames) {
			return serverNames[i] // a client names its server on every change of state
		}
		return fmt.Sprintf("s%d", int(a-serverBase)+1)
	default:
		i := int(a) - 1
		if i < len(t.names) && t.names[i] != "" {
			return t.names[i]
		}
		return fmt.Sprintf("c%d", i+1)
	}
}

// WriteTo prints the kept records, one line each.
func (t *Trace) WriteTo(w io.Writer) (int64, error) {
	var n int64
	recs := t.Records()
	for i := range recs {
		k, err := io.WriteString(w, t.Format(&recs[i])+"\n")
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// Format renders one record as a line: virtual time, actor, what happened.
func (t *Trace) Format(r *Record) string {
	var b strings.Builder
	b.WriteString(r.At.String())
	b.WriteString("  ")
	who := t.ActorName(r.From)
	if r.To != WorldActor && r.Kind != KApply && r.Kind != KExpire && r.Kind != KRole {
		who += " → " + t.ActorName(r.To)
	}
	fmt.Fprintf(&b, "%-14s ", who)
	b.WriteString(t.Action(r))
	return b.String()
}

// Action renders what a record says happened, without its time and
// actors (a timeline puts those in its rows and columns).
func (t *Trace) Action(r *Record) string {
	var b strings.Builder
	switch r.Kind {
	case KSpawn:
		b.WriteString("start")
	case KExit:
		if r.Code != 0 {
			fmt.Fprintf(&b, "exit with error: %s", r.Path)
		} else {
			b.WriteString("exit")
		}
	case KSend:
		fmt.Fprintf(&b, "%s  #%d", opPath(r.Op, r.Path), r.Arg)
	case KApply:
		fmt.Fprintf(&b, "apply zxid=%#x %s", r.Zxid, opPath(r.Op, r.Path))
		if r.Code != 0 {
			fmt.Fprintf(&b, ": %s", codeText(r.Code))
		}
		fmt.Fprintf(&b, "  (session %#x)", r.Sess)
	case KReply:
		fmt.Fprintf(&b, "reply %s: %s  #%d", opPath(r.Op, r.Path), codeText(r.Code), r.Arg)
	case KNotify:
		fmt.Fprintf(&b, "notify %s %s", eventTypeName(r.Arg), r.Path)
	case KState:
		fmt.Fprintf(&b, "session %#x %s", r.Sess, stateName(r.Arg))
	case KExpire:
		fmt.Fprintf(&b, "expire session %#x", r.Sess)
	case KPause:
		fmt.Fprintf(&b, "process paused for %s", Time(r.Arg).Std())
	case KResume:
		b.WriteString("process resumed")
	case KPing:
		b.WriteString("ping")
	case KTimeout:
		fmt.Fprintf(&b, "no answer for %s: connection lost", Time(r.Arg).Std())
	case KNote:
		b.WriteString(r.Path)
	case KRole:
		fmt.Fprintf(&b, "%s: %s", Role(r.Arg), r.Path)
	case KPropose:
		fmt.Fprintf(&b, "propose zxid=%#x %s  (session %#x)", r.Zxid, opPath(r.Op, r.Path), r.Sess)
	case KFault:
		fmt.Fprintf(&b, "fault: %s", r.Path)
	default:
		fmt.Fprintf(&b, "record kind %d", r.Kind)
	}
	if r.Task > 0 && r.Kind == KSend {
		fmt.Fprintf(&b, "  (%s)", t.TaskName(r.From, r.Task))
	}
	return b.String()
}

func opPath(op client.Op, path string) string {
	if path == "" {
		return op.String()
	}
	return op.String() + " " + path
}
