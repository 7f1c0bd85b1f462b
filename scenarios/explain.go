package scenarios

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/trace"
)

// A check sees only the history, and where that cannot tell why, its
// violation asks the run (models.Question): a waiter that waited for a
// lock nobody held, which the liveness check can only guess to be "an
// orphaned node?"; a read that came from a server the store check cannot
// name; two holders, and what struck between them. The run knows: the
// nodes left under the lock, whose they are, and what the faults did to
// the requests that made them or were to delete them; the server that
// answered the read; the faults and expiries meanwhile. explainFromTrace
// answers each violation by its question, from the simulator's trace
// (liveexplain.go answers live, from the ensemble and the dialers).

// explainFromTrace answers each question vs ask with what w's kept trace
// shows, laid end to end only when a violation asks (most runs have
// none), and with how the run ended (end: a deadlock says what each task
// waited on): Violation.Explain words each answer into its violation.
func explainFromTrace(w *sim.World, end error, vs []models.Violation) {
	if w == nil || !needsCauses(vs) || w.Trace().Kept() == 0 {
		return
	}
	f := factsOf(w.Trace())
	errors.As(end, &f.dead)
	for i := range vs {
		f.answer(&vs[i])
	}
}

// answer answers v's question from the trace: the nodes under a lock or
// a semaphore its waiters waited behind, the server a stale read came
// from, what struck between two holdings, what a consumer's last take
// did, the lost reply behind a failed step, what followed a watcher's
// last view; in a run that deadlocked, what each task waited on
// (waitersCause). A question the trace cannot answer is left open.
func (f *runFacts) answer(v *models.Violation) {
	switch v.Question {
	case models.OrphanedNode, models.LeaseLeft:
		v.Explain(f.waitersCause(f.nodesAt(v.Object, v.At), *v))
	case models.StaleRead:
		if read, ok := lastOf(v.Ops, models.Get); ok {
			v.Explain(f.staleSource(read))
		}
	case models.TwoHolders:
		if holders := holdersOf(v.Ops); len(holders) > 0 {
			v.Explain(f.meanwhile(holders))
		}
	case models.LostItem:
		if len(v.Ops) >= 2 {
			v.Explain(lastTake(f.recs, v.Ops[len(v.Ops)-1])) // the consumer's last take
		}
	case models.FailedStep:
		if len(v.Ops) > 0 {
			v.Explain(f.ownLostCreate(v.Object, v.Ops[0]))
		}
	case models.Unconverged:
		if last, ok := lastOf(v.Ops, models.View); ok {
			v.Explain(f.afterView(v.Object, last))
		}
	}
}

// needsCauses reports whether a violation of vs asks a question, which the
// run's trace (or, live, the ensemble and the dialers) can answer.
func needsCauses(vs []models.Violation) bool {
	return slices.ContainsFunc(vs, func(v models.Violation) bool { return v.Question != models.NoQuestion })
}

// waitCause is what nodes, those under v's object, say of v's waiters:
// the lease nodes of a semaphore (leasesLeft, for models.LeaseLeft), the
// queue of a lock (leftUnder, for models.OrphanedNode).
func waitCause(f nodeFacts, nodes []sim.NodeInfo, v models.Violation) string {
	if v.Question == models.LeaseLeft {
		return leasesLeft(f, nodes, v.Object)
	}
	return leftUnder(f, nodes, v.Object)
}

// staleSource is where the stale read read came from: the server that
// answered it and the faults that had struck that server before the read
// (a partition, a lag, a one-way loss, an isolation, a pause): "from s1,
// which had not applied the write yet (at 500ms partition s1 s3)", which
// takes the place of the store check's words ("" when no server answered
// it).
func (f *runFacts) staleSource(read models.Operation) string {
	server, from := "", trace.WorldActor
	for _, r := range f.recs {
		if r.Kind == trace.KReply && r.To == trace.ClientActor(read.Client) && r.Op == client.OpGetData &&
			int64(r.At) >= read.Call && int64(r.At) <= read.Return {
			server, from = f.name(r.From), r.From
		}
	}
	if server == "" {
		return ""
	}
	var struck []string
	for _, r := range f.recs {
		if x, ok := f.fault(&r); ok && int64(r.At) <= read.Call && x.Names(from.Target()) {
			struck = append(struck, r.Path)
		}
	}
	return staleCause(server, struck)
}

// staleCause is the answer to a stale read that came from server, after
// the faults struck that struck it.
func staleCause(server string, struck []string) string {
	which := "from " + server + ", which had not applied the write yet"
	if len(struck) > 0 {
		which += " (" + strings.Join(struck, "; ") + ")"
	}
	return which
}

// meanwhile says what struck from the moment the first of holders (acquires
// in the order they returned) held until the last did: the faults, and the
// holders' sessions' expiries.
func (f *runFacts) meanwhile(holders []models.Operation) string {
	from, to := holders[0].Return, holders[len(holders)-1].Return
	whose := map[string]bool{}
	for _, h := range holders {
		whose[fmt.Sprintf("c%d", h.Client+1)] = true
	}
	var parts []string
	for _, r := range f.recs { // in time order
		if int64(r.At) > to || len(parts) == 4 {
			break
		}
		if int64(r.At) < from {
			continue
		}
		switch {
		case r.Kind == trace.KFault:
			parts = append(parts, fmt.Sprintf("%s (struck at %s)", r.Path, client.FormatTime(int64(r.At))))
		case r.Kind == trace.KExpire && whose[f.owner[r.Sess]]:
			parts = append(parts, fmt.Sprintf("the servers expired %s's session at %s", f.owner[r.Sess], client.FormatTime(int64(r.At))))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "meanwhile: " + strings.Join(parts, "; ")
}

// holdersOf are the acquires among ops, one a client, in the order they
// returned.
func holdersOf(ops []models.Operation) []models.Operation {
	var out []models.Operation
	for _, op := range ops {
		if op.Kind == models.Acquire && !slices.ContainsFunc(out, func(o models.Operation) bool { return o.Client == op.Client }) {
			out = append(out, op)
		}
	}
	slices.SortFunc(out, func(a, b models.Operation) int { return cmp.Compare(a.Return, b.Return) })
	return out
}

// lastOf is the last operation of kind k in ops.
func lastOf(ops []models.Operation, k models.OpKind) (models.Operation, bool) {
	for i := len(ops) - 1; i >= 0; i-- {
		if ops[i].Kind == k {
			return ops[i], true
		}
	}
	return models.Operation{}, false
}

// runFacts are what the trace says about sessions, requests and faults.
type runFacts struct {
	owner map[int64]string // session id → its client's name
	last  map[string]int64 // a client's name → the session it opened last
	recs  []trace.Record
	name  func(trace.Actor) string
	fault func(*trace.Record) (fault.Fault, bool) // the trace's Fault
	dead  *sim.DeadlockError                      // the run's end, if it deadlocked
}

func factsOf(tr *trace.Trace) *runFacts {
	f := &runFacts{owner: map[int64]string{}, last: map[string]int64{}, recs: tr.Records(), name: tr.ActorName, fault: tr.Fault}
	for _, r := range f.recs {
		if r.Kind == trace.KState && r.Sess != 0 {
			// A client's last session is the one it opened last: an old
			// one may change state after it (reconnecting at the same
			// moment as the new one).
			who := f.name(r.From)
			if _, seen := f.owner[r.Sess]; !seen {
				f.owner[r.Sess], f.last[who] = who, r.Sess
			}
		}
	}
	return f
}

// nodesAt are the children of dir when the wait was found too long (at),
// as the server that had applied the most by then held them: followed
// through the trace's applies (a create, a delete, a session's close).
func (f *runFacts) nodesAt(dir string, at int64) []sim.NodeInfo {
	applied := map[trace.Actor]int{}
	trees := map[trace.Actor]map[string]sim.NodeInfo{}
	for _, r := range f.recs {
		if int64(r.At) > at {
			break
		}
		if r.Kind != trace.KApply || r.Code != 0 {
			continue
		}
		applied[r.From]++
		t := trees[r.From]
		if t == nil {
			t = map[string]sim.NodeInfo{}
			trees[r.From] = t
		}
		under := strings.HasPrefix(r.Path, dir+"/") && !strings.Contains(r.Path[len(dir)+1:], "/")
		switch {
		case r.Op == client.OpCreate && under:
			t[r.Path] = sim.NodeInfo{Path: r.Path, Owner: r.Sess, Czxid: r.Zxid}
		case (r.Op == client.OpDelete || r.Op == client.OpDeleteContainer) && under:
			delete(t, r.Path)
		case r.Op == client.OpCloseSession:
			for p, n := range t {
				if n.Owner == r.Sess {
					delete(t, p)
				}
			}
		}
	}
	var best trace.Actor
	for a, n := range applied {
		if n > applied[best] || n == applied[best] && a < best {
			best = a
		}
	}
	var out []sim.NodeInfo
	for _, n := range trees[best] {
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b sim.NodeInfo) int { return cmp.Compare(a.Path, b.Path) })
	return out
}

// nodeFacts are what a run knows of the nodes left under a lock: whose
// session owns one, whether that session was its client's last, and the
// faults that took the reply to a client's create or its delete. The
// simulator's trace knows them exactly (runFacts); a live run knows its
// sessions and the faults it injected (liveFacts).
type nodeFacts interface {
	whose(n sim.NodeInfo) string
	current(id int64, who string) bool
	lostCreateReply(path, who string) string
	lostDelete(path, who string) string
}

// leftUnder says which node heads the queue under dir, how it came to be
// there with nobody holding the lock, and what waits behind it.
func leftUnder(f nodeFacts, nodes []sim.NodeInfo, dir string) string {
	if len(nodes) == 0 {
		return fmt.Sprintf("no node was left under %s: the waiters missed the change they waited for (a watch never set, "+
			"or its notification lost)", dir)
	}
	slices.SortStableFunc(nodes, func(a, b sim.NodeInfo) int { return cmp.Compare(seqOf(a.Path), seqOf(b.Path)) })
	s := "the queue under " + dir + " is headed by " + story(f, nodes[0], nodes[1:])
	if onlyReads(nodes) {
		s += "; only reads hold it or wait: a read waits for the writes before it, never for reads"
	}
	if len(nodes) > 1 {
		var behind []string
		for _, n := range nodes[1:] {
			behind = append(behind, fmt.Sprintf("%s (%s)", baseName(n.Path), f.whose(n)))
		}
		s += "; behind it: " + strings.Join(behind, ", ")
	}
	return s
}

// story is how node n came to head the queue, nodes behind it.
func story(f nodeFacts, n sim.NodeInfo, behind []sim.NodeInfo) string {
	who := f.whose(n)
	if n.Owner == 0 {
		return baseName(n.Path) + ", a persistent node, which no session's end deletes"
	}
	s := fmt.Sprintf("%s, %s's", baseName(n.Path), who)
	orphaned := false
	if lost := f.lostCreateReply(n.Path, who); lost != "" {
		s += fmt.Sprintf(", whose create's reply was lost (%s): %s never knew it had made it", lost, who)
		orphaned = true
	} else if lost := f.lostDelete(n.Path, who); lost != "" {
		s += fmt.Sprintf(", whose delete was lost (%s) and not sent again", lost)
		orphaned = true
	}
	for _, b := range behind {
		if f.whose(b) == who {
			s += fmt.Sprintf("; %s queued again as %s and waits behind its own node", who, baseName(b.Path))
			orphaned = true
			break
		}
	}
	switch {
	case !f.current(n.Owner, who):
		return s + fmt.Sprintf("; the node belongs to a session %s gave up, which the servers still hold: nothing deletes it "+
			"until they expire it", who)
	case orphaned:
		return s + fmt.Sprintf("; nothing deletes it while %s's session lives", who)
	}
	return s
}

// whose names the client whose session owns n.
func (f *runFacts) whose(n sim.NodeInfo) string { return ownerName(f.owner, n) }

// ownerName names the client whose session owns n, by owner (session id
// → client name): "no session" for a persistent node, the session's id
// for a session no client of the run had.
func ownerName(owner map[int64]string, n sim.NodeInfo) string {
	if who := owner[n.Owner]; who != "" {
		return who
	}
	if n.Owner == 0 {
		return "no session"
	}
	return fmt.Sprintf("session %#x", n.Owner)
}

// lostCreateReply is the fault that took the reply to who's create of
// path ("" if none): struck as a server applied it.
func (f *runFacts) lostCreateReply(path, who string) string {
	for _, r := range f.recs {
		if r.Kind == trace.KApply && r.Op == client.OpCreate && r.Path == path && r.Code == 0 {
			if lost := f.faultAt(r.At, who, fault.LoseReply, client.OpCreate); lost != "" {
				return lost
			}
		}
	}
	return ""
}

// seqOf is a sequential node's number (its last ten digits), -1 for
// another.
func seqOf(path string) int64 {
	if len(path) < 10 {
		return -1
	}
	n, err := strconv.ParseInt(path[len(path)-10:], 10, 64)
	if err != nil {
		return -1
	}
	return n
}

func baseName(path string) string { return path[strings.LastIndexByte(path, '/')+1:] }

// faultAt is the text of a fault of kind tied to client who's requests
// of type op, struck at t ("" if none).
func (f *runFacts) faultAt(t trace.Time, who string, kind fault.Kind, op client.Op) string {
	for _, r := range f.recs {
		if x, ok := f.fault(&r); ok && r.At == t && x.Kind == kind && x.TiedTo(clientIndex(who), op) {
			return r.Path
		}
	}
	return ""
}

// clientIndex is the index of the client a fault names cN (-1 for a name
// of another form).
func clientIndex(name string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(name, "c"))
	if err != nil || !strings.HasPrefix(name, "c") || n < 1 {
		return -1
	}
	return n - 1
}

// lostDelete is the fault that took who's delete of path, after it was
// sent ("" if none).
func (f *runFacts) lostDelete(path, who string) string {
	sent := trace.Time(-1)
	for _, r := range f.recs {
		switch {
		case r.Kind == trace.KSend && r.Op == client.OpDelete && r.Path == path && f.name(r.From) == who:
			sent = r.At
		case sent >= 0 && f.lost(&r, who, client.OpDelete):
			return r.Path
		}
	}
	return ""
}

// lost reports whether r tells of a fault that lost who's request of
// type op or its reply.
func (f *runFacts) lost(r *trace.Record, who string, op client.Op) bool {
	x, ok := f.fault(r)
	return ok && (x.Kind == fault.LoseRequest || x.Kind == fault.LoseReply) && x.TiedTo(clientIndex(who), op)
}

// current reports whether session id was its client's last.
func (f *runFacts) current(id int64, who string) bool { return f.last[who] == id }

// onlyReads reports whether every node is a shared lock's read node.
func onlyReads(nodes []sim.NodeInfo) bool {
	for _, n := range nodes {
		if !strings.HasPrefix(strings.TrimLeft(baseName(n.Path), "0123456789-"), "read-") && !strings.Contains(baseName(n.Path), "-read-") {
			return false
		}
	}
	return true
}
