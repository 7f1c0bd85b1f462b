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

// explain answers each question vs ask that the live world can tell
// (explainFromTrace in the simulator), by the question: the nodes left
// under a lock or a semaphore, read from the ensemble (a session of its
// own, which deletes nothing) before the run's sessions close; the server
// a stale read came from, as the client's dialer saw it; the faults
// injected between two holdings, or after a watcher's last view. A lost
// item's takes and a failed step's lost reply are the trace's to tell,
// which a live run has not: those questions are left open.
func (run *liveEvidence) explain(servers []string, injected []live.StruckFault, vs []models.Violation) {
	var nodes *liveNodeReader // opened when a wait asks
	defer func() {
		if nodes != nil {
			nodes.close()
		}
	}()
	for i := range vs {
		v := &vs[i]
		switch v.Question {
		case models.OrphanedNode, models.LeaseLeft:
			if nodes == nil {
				nodes = run.nodeReader(servers, injected)
			}
			nodes.answer(v)
		case models.StaleRead:
			if read, ok := lastOf(v.Ops, models.Get); ok {
				v.Explain(run.notes.staleSource(servers, injected, read))
			}
		case models.TwoHolders:
			if holders := holdersOf(v.Ops); len(holders) > 0 {
				v.Explain(meanwhileStruck(injected, holders))
			}
		case models.Unconverged:
			if last, ok := lastOf(v.Ops, models.View); ok {
				v.Explain(afterViewStruck(injected, last))
			}
		}
	}
}

// liveNodeReader reads the nodes a lock's or a semaphore's waiters waited
// behind: as the run ended (liveEvidence.ending), else from the ensemble
// now, through a session of its own (conn nil when it could not be
// opened: then it reads nothing, as the nodes it has might be all
// there are or not).
type liveNodeReader struct {
	run    *liveEvidence
	facts  *liveFacts
	conn   *live.Conn
	ctx    context.Context
	cancel context.CancelFunc
}

// nodeReader opens a liveNodeReader on servers, whose facts know the
// run's sessions and the faults injected.
func (run *liveEvidence) nodeReader(servers []string, injected []live.StruckFault) *liveNodeReader {
	r := &liveNodeReader{run: run, facts: newLiveFacts(run.w, injected)}
	if conn, err := live.Dial(servers, live.Options{SessionTimeout: client.DefaultSessionTimeout}); err == nil {
		r.conn = conn
		r.ctx, r.cancel = context.WithTimeout(context.Background(), 10*time.Second)
	}
	return r
}

// close ends the reader's session.
func (r *liveNodeReader) close() {
	if r.conn != nil {
		r.cancel()
		r.conn.Close()
	}
}

// answer answers v, which asks what its waiters waited behind, with the
// nodes under its object (waitCause).
func (r *liveNodeReader) answer(v *models.Violation) {
	if r.conn == nil {
		return
	}
	var nodes []sim.NodeInfo
	var ok bool
	r.run.w.Exclusive(func() { nodes, ok = r.run.ending[v.Object] })
	if !ok {
		var err error
		if nodes, err = liveNodes(r.ctx, r.conn, v.Object); err != nil {
			return
		}
	}
	v.Explain(waitCause(r.facts, nodes, *v) + " (the nodes as the servers held them when the run ended)")
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
	conn, err := live.Dial(servers, live.Options{SessionTimeout: client.DefaultSessionTimeout})
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

// staleSource is the live world's account of where the stale read read
// came from (staleSource in the simulator): the server its getData was
// sent to, as the client's dialer saw it, and the faults injected on that
// server before the read ("" when the dialers saw no such request).
func (ns *liveNotes) staleSource(servers []string, injected []live.StruckFault, read models.Operation) string {
	ns.mu.Lock()
	sent := slices.Clone(ns.sent)
	ns.mu.Unlock()
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
		return ""
	}
	var struck []string
	for _, f := range injected {
		if int64(f.At) <= read.Call && f.Fault.Names(fault.Target{Kind: fault.ServerT, Index: server}) {
			struck = append(struck, f.Text)
		}
	}
	return staleCause(fmt.Sprintf("s%d", server+1), struck)
}

// meanwhileStruck is the live world's account of what struck between the
// first of holders' holdings and the last (meanwhile in the simulator):
// the faults injected meanwhile ("" for none). Which sessions the servers
// expired is the servers' to know; the faults say what made them.
func meanwhileStruck(injected []live.StruckFault, holders []models.Operation) string {
	parts := struckWithin(injected, holders[0].Return, holders[len(holders)-1].Return)
	if len(parts) == 0 {
		return ""
	}
	return "meanwhile: " + strings.Join(parts, "; ")
}

// afterViewStruck is the live world's account of what struck after an
// unconverged watcher's last view (afterView in the simulator): the
// faults injected since ("" for none). What the servers expired, and when
// the watcher was away, are the servers' and the library's to know; the
// faults say what made them.
func afterViewStruck(injected []live.StruckFault, last models.Operation) string {
	parts := struckWithin(injected, last.Return, math.MaxInt64)
	if len(parts) == 0 {
		return ""
	}
	return "after that view: " + strings.Join(parts, "; ")
}

// struckWithin are the first four faults of injected that struck from
// from to to, each with when it struck.
func struckWithin(injected []live.StruckFault, from, to int64) []string {
	var parts []string
	for _, f := range injected {
		if at := int64(f.At); at >= from && at <= to && len(parts) < 4 {
			parts = append(parts, fmt.Sprintf("%s (struck at %s)", f.Text, client.FormatTime(at)))
		}
	}
	return parts
}
