package reports

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/scenarios"
	"github.com/zksim/zksim/trace"
)

// Step is one event of a counterexample with the state of the world after
// it, for stepping through the counterexample: what each client is doing,
// what each server holds of the objects the violation involves (the
// object's own node, whether it is there, its data and version, and its
// children, with whose each is and their data), how far each server is
// behind the one furthest on (a lagging server's readers read old data),
// and the watches the clients hold.
type Step struct {
	At      string   `json:"at"`
	Event   string   `json:"event"`   // who did what
	Clients []string `json:"clients"` // "c1: HasSession; in acquire /zksim/lock"
	Servers []string `json:"servers"` // "s1: /zksim/lock: lock-0 (c1), lock-1 (c2)", "s2: /zksim/config = \"v2\" (version 2); 1 write behind"
	Watches []string `json:"watches"` // "c2: exists /zksim/lock/lock-0"
	// Violation marks the step where the violation shows: the first at or
	// after its moment, the event the space-time diagram opens on. The
	// step-through opens there, not on the sessions' set-up.
	Violation bool `json:"violation,omitempty"`
}

// Steps are the counterexample's events in the violation's window (the
// timeline's), each with the state after it, the one where the violation
// shows marked. It needs the run's kept trace.
func Steps(o *scenarios.Outcome) ([]Step, error) {
	tr := o.World.Trace()
	recs := tr.Records()
	if len(recs) == 0 {
		return nil, fmt.Errorf("the run kept no trace: replay it with its trace kept")
	}
	from, at := violationWindow(o)
	w := newStepWorld(o, tr)
	action := func(r *trace.Record) string { return w.name(r.From) + ": " + rowText(tr, r) }
	var steps []Step
	var times []int64
	for _, r := range recs {
		w.apply(r)
		if t := int64(r.At); t >= from && t <= at && shown[r.Kind] {
			steps = append(steps, w.step(r, action(&r)))
			times = append(times, t)
		}
	}
	if len(steps) > maxRows {
		steps, times = steps[len(steps)-maxRows:], times[len(times)-maxRows:]
	}
	if len(steps) > 0 {
		moment := violationMoment(o)
		i := slices.IndexFunc(times, func(t int64) bool { return t >= moment })
		if i < 0 {
			i = len(steps) - 1
		}
		steps[i].Violation = true
	}
	return steps, nil
}

// stepWorld is the state the steps show, as the trace changes it.
type stepWorld struct {
	o       *scenarios.Outcome
	tr      *trace.Trace
	name    func(trace.Actor) string
	objects []string                       // the paths the violations are about
	state   map[string]string              // a client's session state
	held    map[string]map[string]stepNode // what a server holds of the objects and their children, by path
	applied map[string]int                 // how many writes each server applied
	owner   map[int64]string               // session → client
	sent    map[string]string              // "client#xid" → the watch a read will leave
	watches map[string][]string            // a client's watches
}

// stepNode is what a server holds of one node the steps follow.
type stepNode struct {
	data    []byte
	version int32
	who     string // the client whose session owns it (an ephemeral) or made it
}

func newStepWorld(o *scenarios.Outcome, tr *trace.Trace) *stepWorld {
	w := &stepWorld{o: o, tr: tr, name: tr.ActorName, state: map[string]string{},
		held: map[string]map[string]stepNode{}, applied: map[string]int{},
		owner: map[int64]string{}, sent: map[string]string{}, watches: map[string][]string{}}
	for _, v := range o.Violations {
		if v.Object != "" && !slices.Contains(w.objects, v.Object) {
			w.objects = append(w.objects, v.Object)
		}
	}
	return w
}

// followed reports whether the steps follow path: an object a violation
// is about, or a child of one.
func (w *stepWorld) followed(path string) bool {
	i := strings.LastIndexByte(path, '/')
	return slices.Contains(w.objects, path) || i > 0 && slices.Contains(w.objects, path[:i])
}

func (w *stepWorld) apply(r trace.Record) {
	who := w.name(r.From)
	switch r.Kind {
	case trace.KState:
		w.state[who] = strings.TrimPrefix(zk.State(r.Arg).String(), "State")
		if r.Sess != 0 {
			w.owner[r.Sess] = who
		}
		if st := zk.State(r.Arg); st == zk.StateExpired || st == zk.StateDisconnected && w.state[who] == "" {
			delete(w.watches, who)
		}
	case trace.KApply:
		w.applyChanges(who, r)
	case trace.KSend:
		if r.Op == client.OpCloseSession {
			delete(w.watches, who) // closing, it drops its watches
		}
		if r.Code == 1 {
			w.sent[fmt.Sprintf("%s#%d", who, r.Arg)] = fmt.Sprintf("%s %s", r.Op, r.Path)
		}
	case trace.KReply:
		to := w.name(r.To)
		key := fmt.Sprintf("%s#%d", to, r.Arg)
		if watch, ok := w.sent[key]; ok {
			delete(w.sent, key)
			if r.Code == 0 || r.Op == client.OpExists && r.Code == trace.CodeNoNode {
				w.watches[to] = append(w.watches[to], watch)
			}
		}
	case trace.KNotify:
		to := w.name(r.To)
		w.watches[to] = slices.DeleteFunc(w.watches[to], func(watch string) bool { return strings.HasSuffix(watch, " "+r.Path) })
	}
}

// applyChanges makes on server's copy the changes the transaction r
// applied made to the nodes the steps follow (the trace keeps them by
// zxid: a multi's, a closed session's ephemeral nodes and a reaped
// container included).
func (w *stepWorld) applyChanges(server string, r trace.Record) {
	if r.Op != client.OpCreateSession && r.Op != client.OpCloseSession {
		w.applied[server]++
	}
	held := w.held[server]
	if held == nil {
		held = map[string]stepNode{}
		w.held[server] = held
	}
	for _, c := range w.tr.Changes(r.Zxid) {
		if !w.followed(c.Path) {
			continue
		}
		switch c.Event {
		case zk.EventNodeCreated:
			sess := c.Owner
			if sess == 0 {
				sess = r.Sess
			}
			held[c.Path] = stepNode{data: c.Data, version: c.Version, who: w.owner[sess]}
		case zk.EventNodeDataChanged:
			n := held[c.Path]
			n.data, n.version = c.Data, c.Version
			held[c.Path] = n
		case zk.EventNodeDeleted:
			delete(held, c.Path)
		}
	}
}

// step is the state after record r.
func (w *stepWorld) step(r trace.Record, event string) Step {
	s := Step{At: client.FormatTime(int64(r.At)), Event: event}
	for i := 0; i < w.o.Spec.Clients; i++ {
		c := fmt.Sprintf("c%d", i+1)
		line := c + ": " + orDash(w.state[c])
		if op := w.doing(i, int64(r.At)); op != "" {
			line += "; in " + op
		}
		s.Clients = append(s.Clients, line)
		for _, watch := range w.watches[c] {
			op, p, _ := strings.Cut(watch, " ")
			s.Watches = append(s.Watches, c+": "+op+" "+shortNode(p))
		}
	}
	servers := w.o.Spec.Ensemble.ServerCount()
	most := 0
	for i := 0; i < servers; i++ {
		most = max(most, w.applied[fmt.Sprintf("s%d", i+1)])
	}
	for i := 0; i < servers; i++ {
		srv := fmt.Sprintf("s%d", i+1)
		line := srv + ": " + w.holds(srv)
		if behind := most - w.applied[srv]; behind > 0 {
			line += fmt.Sprintf("; %d write%s behind", behind, plural(behind))
		}
		s.Servers = append(s.Servers, line)
	}
	return s
}

// holds says what server srv holds of the objects: each object's node
// (missing, or there with its data and version) and its children in
// their sequence's order, each by its short name with whose it is and its
// data.
func (w *stepWorld) holds(srv string) string {
	var parts []string
	for _, obj := range w.objects {
		var names []string
		for p := range w.held[srv] {
			if path.Dir(p) == obj {
				names = append(names, p)
			}
		}
		slices.SortFunc(names, childOrder)
		kids := make([]string, len(names))
		for i, p := range names {
			n := w.held[srv][p]
			kids[i] = strings.TrimPrefix(trace.ShortPath(p), "/") + " (" + orDash(n.who) + ")" + dataText(n.data)
		}
		n, there := w.held[srv][obj]
		written := there && (n.version > 0 || len(n.data) > 0)
		switch {
		case !there && len(kids) == 0:
			parts = append(parts, "no "+obj)
		case written && len(kids) == 0: // a value, not a directory
			parts = append(parts, fmt.Sprintf("%s%s (version %d)", obj, dataText(n.data), n.version))
		case written:
			parts = append(parts, fmt.Sprintf("%s%s (version %d): %s", obj, dataText(n.data), n.version, strings.Join(kids, ", ")))
		default: // a directory, or children left of a node gone
			parts = append(parts, obj+": "+orDash(strings.Join(kids, ", ")))
		}
	}
	return orDash(strings.Join(parts, "; "))
}

// shortNode is the path of a node as the step-through shows it: its
// directory, and its name in the short form the timeline and the diagram
// give it (trace.ShortPath: no guid, a sequence number without its leading
// zeros): "/zksim/lock/lock-3" for a lock node whose full name is a guid
// of twenty hex digits (or go-zk's "_c_" and thirty-two), a dash and
// "lock-0000000003". The sequence number alone tells a directory's
// children apart; whose each is, the panel says beside it.
func shortNode(p string) string {
	dir := path.Dir(p)
	if dir == "/" || dir == "." {
		return trace.ShortPath(p)
	}
	return dir + trace.ShortPath(p)
}

// childOrder orders a directory's children as a queue of sequential nodes
// is ordered: by sequence number (a name's last ten digits), whatever
// guid comes before it; then the names without one, by name.
func childOrder(a, b string) int {
	seq := func(name string) (int64, bool) {
		k := len(name) - 10
		if k < 0 || strings.Trim(name[k:], "0123456789") != "" {
			return 0, false
		}
		n, _ := strconv.ParseInt(name[k:], 10, 64)
		return n, true
	}
	sa, oka := seq(a)
	sb, okb := seq(b)
	switch {
	case oka != okb:
		if oka {
			return -1
		}
		return 1
	case oka && sa != sb:
		return cmp.Compare(sa, sb)
	}
	return strings.Compare(a, b)
}

// dataText is a node's data as the panel shows it: ` = "text"` when it is
// printable text (its first 32 characters and its length when longer),
// its length when it is binary, nothing when it is empty.
func dataText(data []byte) string {
	const most = 32
	switch {
	case len(data) == 0:
		return ""
	case !printable(data):
		return fmt.Sprintf(" = %d bytes", len(data))
	case utf8.RuneCount(data) > most:
		return fmt.Sprintf(" = %q… (%d bytes)", string([]rune(string(data))[:most]), len(data))
	}
	return fmt.Sprintf(" = %q", data)
}

// printable reports whether data is text a person can read.
func printable(data []byte) bool {
	for _, r := range string(data) {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// doing is the operation client i is in at t, as the history recorded it.
func (w *stepWorld) doing(i int, t int64) string {
	for _, op := range w.o.Input.Ops {
		if op.Client == i && op.Call <= t && (op.Return > t || op.Pending()) {
			return string(op.Kind) + " " + op.Path
		}
	}
	return ""
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
