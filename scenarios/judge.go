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

// settle ends the judgement of out with what its world could tell of the
// violations' causes (explain.go in the simulator, from the trace;
// liveexplain.go live, from the ensemble and the dialers): kept in the
// history, worded into the violations.
func settle(out *Outcome, vs []models.Violation, causes map[string]string) {
	out.History.Causes = causes
	explain(vs, causes)
	out.Violations = vs
}
