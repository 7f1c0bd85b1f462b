package models

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

func init() {
	register(Checker{
		Name:  "2pc",
		Kind:  Safety,
		Doc:   "two-phased commit: every decision learnt is the same, and commit only when every site voted commit",
		Check: checkTwoPhaseCommit,
	})
}

// checkTwoPhaseCommit is the 2pc checker. It judges the two-phased commit's
// safety properties, on each transaction (Path). A decision is learnt by a
// Propose or a Vote that returned OK, in its OutData.
//
//   - Agreement: every decision learnt is the same. One violation per
//     transaction, naming the first learner of each decision.
//   - Validity: a commit needs a "commit" Vote from every site. The sites
//     are those named in the transaction's first Propose (Data, comma-
//     separated); with no Propose recorded, the clients that voted. The
//     first commit learnt, returned at t, needs as many distinct clients
//     as there are sites with a "commit" Vote called at or before t (a
//     Vote names no site, so sites are counted, not matched), and no Vote
//     "abort" (of any result but Failed: a vote once cast stays; a Failed
//     one is a site told it had not voted, its Join failing). One
//     violation per transaction.
//
// A site's Vote that failed and that it made again is one with its retry
// (withRetries): its part in the transaction, from its first call.
//
// Termination (a decision is reached when no site failed) is the liveness
// check's.
func checkTwoPhaseCommit(in *Input) []Violation {
	paths, byPath := opsByPath(in.Ops, Propose, Vote)
	var out []Violation
	for _, p := range paths {
		ops := withRetries(byPath[p])
		if v, ok := disagreement(in, p, ops); ok {
			out = append(out, v)
		}
		if v, ok := invalidCommit(in, p, ops); ok {
			out = append(out, v)
		}
	}
	sortViolations(out)
	return out
}

// learnt is the operations of ops that learnt a decision, by return.
func learnt(ops []Operation) []Operation {
	var out []Operation
	for _, op := range ops {
		if op.Result == OK && op.OutData != "" {
			out = append(out, op)
		}
	}
	slices.SortStableFunc(out, func(a, b Operation) int {
		return cmp.Or(cmp.Compare(a.Return, b.Return), cmp.Compare(a.Client, b.Client))
	})
	return out
}

// disagreement finds a transaction whose participants learnt different
// decisions.
func disagreement(in *Input, path string, ops []Operation) (Violation, bool) {
	decided := learnt(ops)
	firsts := map[string]Operation{} // each decision's first learner
	var decisions []string
	for _, op := range decided {
		if _, ok := firsts[op.OutData]; !ok {
			firsts[op.OutData] = op
			decisions = append(decisions, op.OutData)
		}
	}
	if len(decisions) < 2 {
		return Violation{}, false
	}
	var says []string
	for _, d := range decisions {
		op := firsts[d]
		says = append(says, fmt.Sprintf("c%d learnt %q at %s (its %s)", op.Client+1, d, in.Since(op.Return), op.Kind))
	}
	at := firsts[decisions[1]].Return
	msg := fmt.Sprintf("the participants of %s disagree: %s; every participant must learn the same decision", path, strings.Join(says, ", but "))
	sortOps(decided)
	return Violation{Check: "2pc", Kind: Safety, Object: path, At: at - in.Start, Message: msg, Ops: decided}, true
}

// invalidCommit finds a commit that not every site voted for.
func invalidCommit(in *Input, path string, ops []Operation) (Violation, bool) {
	var commit Operation
	committed := false
	for _, op := range learnt(ops) {
		if op.OutData == "commit" {
			commit, committed = op, true
			break
		}
	}
	if !committed {
		return Violation{}, false
	}
	var sites []string
	if proposes := Of(ops, Propose); len(proposes) > 0 {
		for _, s := range strings.Split(proposes[0].Data, ",") {
			if s = strings.TrimSpace(s); s != "" {
				sites = append(sites, s)
			}
		}
	}
	need := len(sites)
	if len(sites) == 0 {
		need = len(clientsOf(Of(ops, Vote)))
	}
	var yes, no []Operation
	for _, v := range Of(ops, Vote) {
		switch {
		case v.Result == Failed:
		case v.Data == "abort":
			no = append(no, v)
		case v.Data == "commit" && v.Call <= commit.Return && !slices.ContainsFunc(yes, func(o Operation) bool { return o.Client == v.Client }):
			yes = append(yes, v)
		}
	}
	if len(no) == 0 && len(yes) >= need {
		return Violation{}, false
	}
	msg := fmt.Sprintf("c%d learnt commit of %s at %s (its %s)", commit.Client+1, path, in.Since(commit.Return), commit.Kind)
	if len(no) > 0 {
		var aborts []string
		for _, v := range no {
			aborts = append(aborts, fmt.Sprintf("c%d voted abort at %s", v.Client+1, in.Since(v.Call)))
		}
		msg += ", but " + strings.Join(aborts, " and ")
	} else {
		var votes []string
		for _, v := range yes {
			votes = append(votes, fmt.Sprintf("c%d at %s", v.Client+1, in.Since(v.Call)))
		}
		sitesSay := fmt.Sprintf("the %d voters", need)
		switch {
		case len(sites) == 1:
			sitesSay = fmt.Sprintf("the 1 site (%s)", sites[0])
		case len(sites) > 1:
			sitesSay = fmt.Sprintf("the %d sites (%s)", need, strings.Join(sites, ", "))
		}
		msg += fmt.Sprintf(", but only %d of %s had voted commit by then", len(yes), sitesSay)
		if len(votes) > 0 {
			msg += " (" + strings.Join(votes, ", ") + ")"
		}
	}
	msg += ": a transaction commits only if every site voted commit"
	shown := append([]Operation{commit}, yes...)
	shown = append(shown, no...)
	sortOps(shown)
	return Violation{Check: "2pc", Kind: Safety, Object: path, At: commit.Return - in.Start, Message: msg, Ops: shown}, true
}
