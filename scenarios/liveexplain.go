package scenarios

import (
	"context"
	"fmt"
	"math"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/live"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/workload"
)

// liveFacts are what a live run knows of the nodes left under a lock
// (nodeFacts): its clients' sessions, and the faults it injected. It
// has no trace, so a lost reply is tied to a client's request by the
// fault's trigger ("c1 create#3") rather than to a node: the story says
// what struck, and the nodes as the servers hold them say the rest.
type liveFacts struct {
	owner    map[int64]string // session id → its client's name
	last     map[string]int64 // a client's name → its last session
	injected []live.StruckFault
}

func newLiveFacts(w *live.World, injected []live.StruckFault) *liveFacts {
	f := &liveFacts{owner: map[int64]string{}, last: map[string]int64{}, injected: injected}
	for _, p := range w.Processes() {
		for _, id := range p.SessionIDs() {
			if id != 0 {
				f.owner[id], f.last[p.Name()] = p.Name(), id
			}
		}
	}
	return f
}

func (f *liveFacts) whose(n sim.NodeInfo) string { return ownerName(f.owner, n) }

func (f *liveFacts) current(id int64, who string) bool { return f.last[who] == id }

// lostCreateReply is the lost reply to one of who's creates that struck,
// with when ("" if none).
func (f *liveFacts) lostCreateReply(_, who string) string {
	return f.struck(who, client.OpCreate, fault.LoseReply)
}

// lostDelete is a lost delete of who's, or its lost reply ("" if none).
func (f *liveFacts) lostDelete(_, who string) string {
	if s := f.struck(who, client.OpDelete, fault.LoseRequest); s != "" {
		return s
	}
	return f.struck(who, client.OpDelete, fault.LoseReply)
}

// struck is the first injected fault of kind tied to who's requests of
// type op, with when it struck.
func (f *liveFacts) struck(who string, op client.Op, kind fault.Kind) string {
	for _, s := range f.injected {
		if s.Fault.Kind == kind && s.Fault.TiedTo(clientIndex(who), op) {
			return fmt.Sprintf("%s, struck at %s", s.Text, s.At.Round(time.Millisecond))
		}
	}
	return ""
}

// waitCauses is waitCauses for a live run: the nodes left under each
// lock whose liveness violation guessed at an orphaned node, read from
// the ensemble (a session of its own, which deletes nothing) before the
// run's sessions close.
func (run *liveEvidence) waitCauses(servers []string, injected []live.StruckFault, vs []models.Violation) map[string]string {
	if !needsCauses(vs) {
		return nil
	}
	conn, err := live.Dial(servers, live.Options{SessionTimeout: 10 * time.Second})
	if err != nil {
		return nil
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	facts := newLiveFacts(run.w, injected)
	causes := map[string]string{}
	for _, v := range vs {
		if !guessesWait(v) {
			continue
		}
		var nodes []sim.NodeInfo
		var ok bool
		run.w.Exclusive(func() { nodes, ok = run.ending[v.Object] })
		if !ok {
			var err error
			if nodes, err = liveNodes(ctx, conn, v.Object); err != nil {
				continue
			}
		}
		causes[v.Object] = waitCause(facts, nodes, v) + " (the nodes as the servers held them when the run ended)"
	}
	return causes
}

// snapshotLocks reads the nodes under every lock the run's clients
// acquired or waited for, into run.ending, as the run ends and before its
// waiters give up and delete their nodes.
func (run *liveEvidence) snapshotLocks(servers []string, r *workload.Run) {
	var dirs []string
	run.w.Exclusive(func() {
		for _, op := range r.Recorded() {
			if op.Kind == models.Acquire && !slices.Contains(dirs, op.Path) {
				dirs = append(dirs, op.Path)
			}
		}
	})
	if len(dirs) == 0 {
		return
	}
	conn, err := live.Dial(servers, live.Options{SessionTimeout: 10 * time.Second})
	if err != nil {
		return
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ending := map[string][]sim.NodeInfo{}
	for _, dir := range dirs {
		if nodes, err := liveNodes(ctx, conn, dir); err == nil {
			ending[dir] = nodes
		}
	}
	run.w.Exclusive(func() { run.ending = ending })
}

// liveNodes are dir's children, with their owners, as the ensemble holds
// them now.
func liveNodes(ctx context.Context, conn *live.Conn, dir string) ([]sim.NodeInfo, error) {
	names, _, err := conn.Children(ctx, dir)
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var out []sim.NodeInfo
	for _, name := range names {
		p := path.Join(dir, name)
		ok, st, err := conn.Exists(ctx, p)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, sim.NodeInfo{Path: p, Owner: st.EphemeralOwner, Czxid: st.Czxid, Ctime: st.Ctime})
		}
	}
	return out, nil
}

// staleSources is the live world's account of where each stale read of
// vs came from (staleSources in the simulator): the server its getData
// was sent to, as the client's dialer saw it, and the faults injected on
// that server before the read; under "stale:" and the object in causes
// (made if nil).
func (ns *liveNotes) staleSources(servers []string, injected []live.StruckFault, vs []models.Violation,
	causes map[string]string) map[string]string {
	ns.mu.Lock()
	sent := slices.Clone(ns.sent)
	ns.mu.Unlock()
	for v, read := range staleReads(vs) {
		server := -1
		for _, s := range sent {
			if s.client == read.Client && s.r.Op == "getData" && s.r.Path == read.Path &&
				int64(s.at) >= read.Call && int64(s.at) <= read.Return {
				if i := slices.Index(servers, s.r.Addr); i >= 0 {
					server = i
				}
			}
		}
		if server < 0 {
			continue
		}
		var struck []string
		for _, f := range injected {
			if int64(f.At) <= read.Call && f.Fault.Names(fault.Target{Kind: fault.ServerT, Index: server}) {
				struck = append(struck, f.Text)
			}
		}
		causes = staleCause(causes, v.Object, fmt.Sprintf("s%d", server+1), struck)
	}
	return causes
}

// liveHolderFaults is the live world's account of what struck between
// the first holding and the second, for each violation of vs where two
// clients held a lock or a leadership at once (holderFaults in the
// simulator): the faults injected meanwhile, under "held:" and the object
// in causes (made if nil). Which sessions the servers expired is the
// servers' to know; the faults say what made them.
func liveHolderFaults(injected []live.StruckFault, vs []models.Violation, causes map[string]string) map[string]string {
	for v, holders := range twoHolders(vs) {
		parts := struckWithin(injected, holders[0].Return, holders[len(holders)-1].Return)
		if len(parts) == 0 {
			continue
		}
		if causes == nil {
			causes = map[string]string{}
		}
		causes["held:"+v.Object] = "meanwhile: " + strings.Join(parts, "; ")
	}
	return causes
}

// liveViewFaults is the live world's account of what struck after each
// unconverged watcher's last view (viewCauses in the simulator): the
// faults injected since, under "view:" and the object in causes (made if
// nil). What the servers expired, and when the watcher was away, are the
// servers' and the library's to know; the faults say what made them.
func liveViewFaults(injected []live.StruckFault, vs []models.Violation, causes map[string]string) map[string]string {
	for v, last := range unconvergedViews(vs) {
		parts := struckWithin(injected, last.Return, math.MaxInt64)
		if len(parts) == 0 {
			continue
		}
		if causes == nil {
			causes = map[string]string{}
		}
		causes["view:"+v.Object] = "after that view: " + strings.Join(parts, "; ")
	}
	return causes
}

// struckWithin are the first four faults of injected that struck from
// from to to, each with when it struck.
func struckWithin(injected []live.StruckFault, from, to int64) []string {
	var parts []string
	for _, f := range injected {
		if at := int64(f.At); at >= from && at <= to && len(parts) < 4 {
			parts = append(parts, fmt.Sprintf("%s (struck at %s)", f.Text, models.FormatTime(at)))
		}
	}
	return parts
}
