package scenarios

import (
	"cmp"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/sim"
)

// The liveness check sees only the history: a waiter that waited for a
// lock nobody held, which it can only guess to be "an orphaned node?".
// The run knows: the nodes left under the lock, whose they are, and what
// the faults did to the requests that made them or were to delete them.
// explainWaits puts that in place of the guess.

// orphanHint is the liveness check's guess, which explainWaits replaces.
const orphanHint = ": an orphaned node?"

// waitCauses says, for each lock whose liveness violation guessed at an
// orphaned node, what the run shows: the nodes the waiters waited behind
// and how each came to be there. It needs the run's kept trace, which it
// lays end to end only when a violation asks (most runs have none).
func waitCauses(w *sim.World, vs []models.Violation) map[string]string {
	if w == nil {
		return nil
	}
	var causes map[string]string
	var facts *runFacts
	for _, v := range vs {
		if !guessesWait(v) {
			continue
		}
		if facts == nil {
			if w.Trace().Kept() == 0 {
				return nil
			}
			facts, causes = factsOf(w.Trace()), map[string]string{}
		}
		causes[v.Object] = waitCause(facts, facts.nodesAt(v.Object, v.At), v)
	}
	return causes
}

// guessesWait reports whether v is a liveness violation that guesses at
// what its waiters waited behind: a lock's orphaned node, a semaphore's
// orphaned lease.
func guessesWait(v models.Violation) bool {
	return v.Kind == models.Liveness && (strings.Contains(v.Message, orphanHint) || strings.Contains(v.Message, models.LeaseHint))
}

// waitCause is what nodes, those under v's object, say of v's waiters:
// the lease nodes of a semaphore (leasesLeft), the queue of a lock
// (leftUnder).
func waitCause(f nodeFacts, nodes []sim.NodeInfo, v models.Violation) string {
	if strings.Contains(v.Message, models.LeaseHint) {
		return leasesLeft(f, nodes, v.Object)
	}
	return leftUnder(f, nodes, v.Object)
}

// needsCauses reports whether a violation of vs guesses at its cause,
// which waitCauses can read from the run, or leaves out the server a
// stale read came from, which staleSources can.
func needsCauses(vs []models.Violation) bool {
	for _, v := range vs {
		if guessesWait(v) || v.Kind == models.Liveness && strings.Contains(v.Message, lostHint) ||
			strings.Contains(v.Message, staleHint) || strings.Contains(v.Message, heldHint) ||
			v.Check == "double-barrier" && strings.Contains(v.Message, models.FailedStepHint) ||
			v.Check == "membership" && strings.Contains(v.Message, models.UnconvergedHint) {
			return true
		}
	}
	return false
}

// heldHint is how a mutex or election check says two clients held it at
// once, which holderFaults completes with what struck meanwhile.
const heldHint = "held it at once"

// staleHint is the store check's account of where a stale read came from,
// which staleSources makes exact.
const staleHint = "from a server that had not applied the write yet"

// staleSources says, for each stale-read violation of vs, the server the
// read came from and the faults that had struck it before the read (a
// partition, a lag, a one-way loss, an isolation, a pause): "from s1,
// which had not applied the write yet (at 500ms partition s1 s3)", under
// the key "stale:" and the object, in causes (made if nil), which explain
// puts in place of the store check's words. It needs the run's kept trace.
func staleSources(w *sim.World, vs []models.Violation, causes map[string]string) map[string]string {
	if w == nil || w.Trace().Kept() == 0 {
		return causes
	}
	tr := w.Trace()
	for v, read := range staleReads(vs) {
		server, from := "", sim.WorldActor
		for _, r := range tr.Records() {
			if r.Kind == sim.KReply && r.To == sim.ClientActor(read.Client) && r.Op == client.OpGetData &&
				int64(r.At) >= read.Call && int64(r.At) <= read.Return {
				server, from = tr.ActorName(r.From), r.From
			}
		}
		if server == "" {
			continue
		}
		var struck []string
		for _, r := range tr.Records() {
			if f, ok := tr.Fault(&r); ok && int64(r.At) <= read.Call && f.Names(from.Target()) {
				struck = append(struck, r.Path)
			}
		}
		causes = staleCause(causes, v.Object, server, struck)
	}
	return causes
}

// staleReads yields each stale-read violation of vs with its read.
func staleReads(vs []models.Violation) iter.Seq2[models.Violation, models.Operation] {
	return func(yield func(models.Violation, models.Operation) bool) {
		for _, v := range vs {
			if !strings.Contains(v.Message, staleHint) {
				continue
			}
			if read, ok := lastOf(v.Ops, models.Get); ok && !yield(v, read) {
				return
			}
		}
	}
}

// staleCause records in causes (made if nil) that the stale read of
// object came from server, after the faults struck that struck it.
func staleCause(causes map[string]string, object, server string, struck []string) map[string]string {
	which := "from " + server + ", which had not applied the write yet"
	if len(struck) > 0 {
		which += " (" + strings.Join(struck, "; ") + ")"
	}
	if causes == nil {
		causes = map[string]string{}
	}
	causes["stale:"+object] = which
	return causes
}

// holderFaults says, for each violation of vs where two clients held a
// lock or a leadership at once, what the run did between the first holding
// and the second: the faults that struck (a pause, a disconnect, a
// partition, a crash) and the holders' sessions' expiries, under "held:" and the object in causes (made
// if nil), which explain adds to the message. It needs the run's trace.
func holderFaults(w *sim.World, vs []models.Violation, causes map[string]string) map[string]string {
	if w == nil || w.Trace().Kept() == 0 {
		return causes
	}
	var facts *runFacts
	for v, holders := range twoHolders(vs) {
		if facts == nil {
			facts = factsOf(w.Trace())
		}
		if what := facts.meanwhile(holders); what != "" {
			if causes == nil {
				causes = map[string]string{}
			}
			causes["held:"+v.Object] = what
		}
	}
	return causes
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
		case r.Kind == sim.KFault:
			parts = append(parts, fmt.Sprintf("%s (struck at %s)", r.Path, models.FormatTime(int64(r.At))))
		case r.Kind == sim.KExpire && whose[f.owner[r.Sess]]:
			parts = append(parts, fmt.Sprintf("the servers expired %s's session at %s", f.owner[r.Sess], models.FormatTime(int64(r.At))))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "meanwhile: " + strings.Join(parts, "; ")
}

// twoHolders yields each violation of vs where two clients held a lock or
// a leadership at once, with its holders (holdersOf).
func twoHolders(vs []models.Violation) iter.Seq2[models.Violation, []models.Operation] {
	return func(yield func(models.Violation, []models.Operation) bool) {
		for _, v := range vs {
			if !strings.Contains(v.Message, heldHint) {
				continue
			}
			if holders := holdersOf(v.Ops); len(holders) > 0 && !yield(v, holders) {
				return
			}
		}
	}
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

// explain puts causes in place of the liveness check's guesses, and of
// the store check's words on where a stale read came from, and adds what
// the run showed to the other violations that ask for it.
func explain(vs []models.Violation, causes map[string]string) {
	for i := range vs {
		if c, ok := causes[vs[i].Object]; ok && vs[i].Kind == models.Liveness {
			vs[i].Message = strings.Replace(vs[i].Message, orphanHint, ": "+c, 1)
			vs[i].Message = strings.Replace(vs[i].Message, models.LeaseHint, ": "+c, 1)
		}
		if c, ok := causes["stale:"+vs[i].Object]; ok {
			vs[i].Message = strings.Replace(vs[i].Message, staleHint, c, 1)
		}
		if c, ok := causes["lost:"+vs[i].Object]; ok && strings.Contains(vs[i].Message, lostHint) {
			vs[i].Message += "; " + c
		}
		if c, ok := causes["held:"+vs[i].Object]; ok && strings.Contains(vs[i].Message, heldHint) {
			vs[i].Message += "; " + c
		}
		if c, ok := causes["failed:"+vs[i].Object]; ok && strings.Contains(vs[i].Message, models.FailedStepHint) {
			vs[i].Message += ": " + c
		}
		if c, ok := causes["view:"+vs[i].Object]; ok && strings.Contains(vs[i].Message, models.UnconvergedHint) {
			vs[i].Message += "; " + c
		}
	}
}

// runFacts are what the trace says about sessions, requests and faults.
type runFacts struct {
	owner map[int64]string // session id → its client's name
	last  map[string]int64 // a client's name → the session it opened last
	recs  []sim.Record
	name  func(sim.Actor) string
	fault func(*sim.Record) (fault.Fault, bool) // the trace's Fault
}

func factsOf(tr *sim.Trace) *runFacts {
	f := &runFacts{owner: map[int64]string{}, last: map[string]int64{}, recs: tr.Records(), name: tr.ActorName, fault: tr.Fault}
	for _, r := range f.recs {
		if r.Kind == sim.KState && r.Sess != 0 {
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
	applied := map[sim.Actor]int{}
	trees := map[sim.Actor]map[string]sim.NodeInfo{}
	for _, r := range f.recs {
		if int64(r.At) > at {
			break
		}
		if r.Kind != sim.KApply || r.Code != 0 {
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
	var best sim.Actor
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
		if r.Kind == sim.KApply && r.Op == client.OpCreate && r.Path == path && r.Code == 0 {
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
func (f *runFacts) faultAt(t sim.Time, who string, kind fault.Kind, op client.Op) string {
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
	sent := sim.Time(-1)
	for _, r := range f.recs {
		switch {
		case r.Kind == sim.KSend && r.Op == client.OpDelete && r.Path == path && f.name(r.From) == who:
			sent = r.At
		case sent >= 0 && f.lost(&r, who, client.OpDelete):
			return r.Path
		}
	}
	return ""
}

// lost reports whether r tells of a fault that lost who's request of
// type op or its reply.
func (f *runFacts) lost(r *sim.Record, who string, op client.Op) bool {
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
