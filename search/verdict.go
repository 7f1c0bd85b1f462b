package search

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/scenarios"
)

// Verdict is what a scenario's runs concluded, against what it expects.
type Verdict struct {
	Scenario *scenarios.Scenario
	Result   *Result
	// Pass says every run held.
	Pass bool
	// Checks are the checks that found violations, the most serious kind
	// first (those that could not decide within their limit too, last:
	// see Conclusion).
	Checks []string
	// Matches says the verdict is the one the scenario expects: every run
	// held, or some run broke the expected check, with the expected kind
	// of violation; and the runs reached every situation it requires.
	Matches bool
	// Weak are the situations the scenario requires that no run reached.
	Weak []string
}

// Got renders what the runs concluded: "pass", or the checks that failed
// and those that could not decide (Conclusion).
func (v *Verdict) Got() string { return Conclusion(FoundViolations(v.Result.Found)) }

// FoundViolations are found as violations (their check and kind alone),
// for Conclusion and Expectation.Met.
func FoundViolations(found []Found) []models.Violation {
	out := make([]models.Violation, len(found))
	for i, f := range found {
		out[i] = models.Violation{Check: f.Check, Kind: f.Kind}
	}
	return out
}

// Conclusion renders what violations, of every run together, conclude:
// "pass" for none, else "violation (CHECKS)" for the checks that found
// one, those that found a safety violation first, then liveness, then a
// herd (models.ViolationKind.Rank), and "undecided (CHECKS)" for those
// that ran out of their time limit (models.Undecided), never a pass.
func Conclusion(violations []models.Violation) string {
	rank := map[string]int{} // the most serious kind each check found
	var found, undecided []string
	for _, v := range violations {
		list := &found
		if v.Kind == models.Undecided {
			list = &undecided
		} else if r, ok := rank[v.Check]; !ok || v.Kind.Rank() < r {
			rank[v.Check] = v.Kind.Rank()
		}
		if !slices.Contains(*list, v.Check) {
			*list = append(*list, v.Check)
		}
	}
	var parts []string
	if len(found) > 0 {
		slices.SortFunc(found, func(a, b string) int { return cmp.Or(cmp.Compare(rank[a], rank[b]), cmp.Compare(a, b)) })
		parts = append(parts, "violation ("+strings.Join(found, ", ")+")")
	}
	if len(undecided) > 0 {
		slices.Sort(undecided)
		parts = append(parts, "undecided ("+strings.Join(undecided, ", ")+")")
	}
	if len(parts) == 0 {
		return "pass"
	}
	return strings.Join(parts, "; ")
}

// Judge runs sc as sweep says (its Spec is sc's) and compares the verdict
// with sc's expectation.
func Judge(ctx context.Context, sc *scenarios.Scenario, sweep Sweep) (*Verdict, error) {
	sweep.Spec = sc.Spec
	if !sc.Expect.Pass && !sc.Expect.Kind.Dangerous() {
		sweep.StopAlso = append(sweep.StopAlso, sc.Expect.Kind) // the cost it expects ends its search
	}
	if sweep.Seeds == 0 {
		sweep.Seeds = sc.Seeds
	}
	res, err := sweep.Run(ctx)
	if err != nil && (res == nil || !errors.Is(err, context.Canceled)) {
		return nil, err
	}
	// Interrupted (context.Canceled): the verdict of the seeds that ran,
	// and the error.
	v := &Verdict{Scenario: sc, Result: res, Pass: res.Failed == 0}
	for _, f := range res.Found {
		if !slices.Contains(v.Checks, f.Check) {
			v.Checks = append(v.Checks, f.Check) // the most serious first, as Found is
		}
	}
	for _, r := range sc.Require {
		if res.Coverage[r] == 0 {
			v.Weak = append(v.Weak, r)
		}
	}
	v.Matches = sc.Expect.Met(FoundViolations(res.Found)) && len(v.Weak) == 0
	return v, err
}
