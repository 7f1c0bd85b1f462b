package scenarios

import "github.com/zksim/zksim/models"

// judge is the judging step both worlds share: the run's history (out's
// Input, and how the run ended: the clients that failed, a run ended for
// lack of progress) becomes out.History, the record history.json holds,
// and its checks judge it (History.Judge, the function `zksim check`
// judges a saved history with, so that both say the same).
func judge(out *Outcome, failures []ClientFailure, stopped *NoProgress) ([]models.Violation, error) {
	in := out.Input
	out.History = &History{Kind: out.Spec.Kind, Checks: out.Spec.Checks, Start: in.Start, End: in.End, Stuck: in.Stuck,
		Bound: in.Bound, SessionTimeout: in.SessionTimeout, Size: in.Size, Proceed: in.Proceed, Permits: in.Permits, Traffic: in.Traffic,
		ForeignDeletes: in.ForeignDeletes, Leftovers: in.Leftovers, Ops: in.Ops, ClientFailures: failures, NoProgress: stopped}
	return out.History.Judge()
}

// settle ends the judgement of out: its violations, whose questions its
// world has answered as far as it could tell (explainFromTrace in the
// simulator, from the trace; run.explain live, from the ensemble and the
// dialers), and the history keeps each question and its answer.
func settle(out *Outcome, vs []models.Violation) {
	out.History.Causes = causesOf(vs)
	out.Violations = vs
}
