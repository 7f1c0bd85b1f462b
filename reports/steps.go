package reports

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/scenarios"
	"github.com/zksim/zksim/sim"
)

// Step is one event of a counterexample with the state of the world after
// it, for stepping through the counterexample: what each client is doing,
// what each server holds of the objects the violation involves (the
// object's own node, whether it is there and how many times it was
// written, and its children, with whose each is), how far each server is
// behind the one furthest on (a lagging server's readers read old data),
// and the watches the clients hold.
type Step struct {
	At      string   `json:"at"`
	Event   string   `json:"event"`   // who did what
	Clients []string `json:"clients"` // "c1: HasSession; in acquire /zksim/lock"
	Servers []string `json:"servers"` // "s1: /zksim/lock: lock-0 (c1), lock-1 (c2)", "s2: no /zksim/barrier; 2 writes behind"
	Watches []string `json:"watches"` // "c2: exists /zksim/lock/lock-0"
}

// Steps are the counterexample's events in the violation's window (the
// timeline's), each with the state after it. It needs the run's kept
// trace.
func Steps(o *scenarios.Outcome) ([]Step, error) {
	tr := o.World.Trace()
	recs := tr.Records()
	if len(recs) == 0 {
		return nil, fmt.Errorf("the run kept no trace: replay it with its trace kept")
	}
	from, at := violationWindow(o)
	w := newStepWorld(o, tr.ActorName)
	action := func(r *sim.Record) string { return w.name(r.From) + ": " + rowText(tr, r) }
	var steps []Step
	for _, r := range recs {
		w.apply(r)
		if t := int64(r.At); t >= from && t <= at && shown[r.Kind] {
			steps = append(steps, w.step(r, action(&r)))
		}
	}
	if len(steps) > maxRows {
		steps = steps[len(steps)-maxRows:]
	}
	return steps, nil
}

// stepWorld is the state the steps show, as the trace changes it.
type stepWorld struct {
	o       *scenarios.Outcome
	name    func(sim.Actor) string
	objects []string                     // the paths the violations are about
	state   map[string]string            // a client's session state
	trees   map[string]map[string]string // a server's children of the objects: path → owner's client
	nodes   map[string]map[string]int    // a server's objects' own nodes: path → writes since created
	applied map[string]int               // how many writes each server applied
	made    map[string]bool              // the objects whose node some server created in the run
	owner   map[int64]string             // session → client
	sent    map[string]string            // "client#xid" → the watch a read will leave
	watches map[string][]string          // a client's watches
}

func newStepWorld(o *scenarios.Outcome, name func(sim.Actor) string) *stepWorld {
	w := &stepWorld{o: o, name: name, state: map[string]string{}, trees: map[string]map[string]string{},
		nodes: map[string]map[string]int{}, applied: map[string]int{}, made: map[string]bool{},
		owner: map[int64]string{}, sent: map[string]string{}, watches: map[string][]string{}}
	for _, v := range o.Violations {
		if v.Object != "" && !slices.Contains(w.objects, v.Object) {
			w.objects = append(w.objects, v.Object)
		}
	}
	return w
}

// involved reports whether path is a child of an object the violation is
// about.
func (w *stepWorld) involved(path string) bool {
	i := strings.LastIndexByte(path, '/')
	return i > 0 && slices.Contains(w.objects, path[:i])
}

func (w *stepWorld) apply(r sim.Record) {
	who := w.name(r.From)
	switch r.Kind {
	case sim.KState:
		w.state[who] = strings.TrimPrefix(zk.State(r.Arg).String(), "State")
		if r.Sess != 0 {
			w.owner[r.Sess] = who
		}
		if st := zk.State(r.Arg); st == zk.StateExpired || st == zk.StateDisconnected && w.state[who] == "" {
			delete(w.watches, who)
		}
	case sim.KApply:
		w.applyTree(who, r)
	case sim.KSend:
		if r.Code == 1 {
			w.sent[fmt.Sprintf("%s#%d", who, r.Arg)] = fmt.Sprintf("%s %s", r.Op, r.Path)
		}
	case sim.KReply:
		to := w.name(r.To)
		key := fmt.Sprintf("%s#%d", to, r.Arg)
		if watch, ok := w.sent[key]; ok {
			delete(w.sent, key)
			if r.Code == 0 || r.Op == client.OpExists && r.Code == -101 {
				w.watches[to] = append(w.watches[to], watch)
			}
		}
	case sim.KNotify:
		to := w.name(r.To)
		w.watches[to] = slices.DeleteFunc(w.watches[to], func(watch string) bool { return strings.HasSuffix(watch, " "+r.Path) })
	}
}

// applyTree follows a server's children of the objects, and the objects'
// own nodes.
func (w *stepWorld) applyTree(server string, r sim.Record) {
	t := w.trees[server]
	if t == nil {
		t = map[string]string{}
		w.trees[server] = t
	}
	nodes := w.nodes[server]
	if nodes == nil {
		nodes = map[string]int{}
		w.nodes[server] = nodes
	}
	if r.Op != client.OpCreateSession && r.Op != client.OpCloseSession {
		w.applied[server]++
	}
	if r.Code == 0 && slices.Contains(w.objects, r.Path) {
		switch r.Op {
		case client.OpCreate, client.OpCreate2, client.OpCreateContainer, client.OpCreateTTL:
			nodes[r.Path] = 0
			w.made[r.Path] = true
		case client.OpSetData:
			nodes[r.Path]++
		case client.OpDelete, client.OpDeleteContainer:
			delete(nodes, r.Path)
		}
	}
	switch {
	case r.Code != 0:
	case r.Op == client.OpCreate && w.involved(r.Path):
		t[r.Path] = w.owner[r.Sess]
	case (r.Op == client.OpDelete || r.Op == client.OpDeleteContainer) && w.involved(r.Path):
		delete(t, r.Path)
	case r.Op == client.OpCloseSession:
		who := w.owner[r.Sess]
		for p, o := range t {
			if o == who && who != "" {
				delete(t, p)
			}
		}
	}
}

// step is the state after record r.
func (w *stepWorld) step(r sim.Record, event string) Step {
	s := Step{At: models.FormatTime(int64(r.At)), Event: event}
	for i := 0; i < w.o.Spec.Clients; i++ {
		c := fmt.Sprintf("c%d", i+1)
		line := c + ": " + orDash(w.state[c])
		if op := w.doing(i, int64(r.At)); op != "" {
			line += "; in " + op
		}
		s.Clients = append(s.Clients, line)
		for _, watch := range w.watches[c] {
			s.Watches = append(s.Watches, c+": "+watch)
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
// (missing, or there and written n times) and the children it has.
func (w *stepWorld) holds(srv string) string {
	var parts []string
	for _, obj := range w.objects {
		var kids []string
		for p, who := range w.trees[srv] {
			if path.Dir(p) == obj {
				kids = append(kids, fmt.Sprintf("%s (%s)", path.Base(p), orDash(who)))
			}
		}
		slices.Sort(kids)
		writes, there := w.nodes[srv][obj]
		switch {
		case !there && len(kids) == 0 && !w.made[obj]:
			// Made before the window's first apply, or never: its
			// children say what there is.
			parts = append(parts, obj+": "+orDash(strings.Join(kids, ", ")))
		case !there && len(kids) == 0:
			parts = append(parts, "no "+obj)
		case writes > 0:
			parts = append(parts, fmt.Sprintf("%s (written %d time%s): %s", obj, writes, plural(writes), orDash(strings.Join(kids, ", "))))
		default:
			parts = append(parts, obj+": "+orDash(strings.Join(kids, ", ")))
		}
	}
	return orDash(strings.Join(parts, "; "))
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
