package scenarios

import (
	"context"
	"errors"
	"slices"

	"github.com/zksim/zksim/models"
)

// Verdict is what a scenario's runs concluded, against what it expects.
type Verdict struct {
	Scenario *Scenario
	Result   *SearchResult
	// Pass says every run held.
	Pass bool
	// Checks are the checks that found violations, sorted.
	Checks []string
	// Matches says the verdict is the one the scenario expects: every run
	// held, or some run broke the expected check, with the expected kind
	// of violation; and the runs reached every situation it requires.
	Matches bool
	// Weak are the situations the scenario requires that no run reached.
	Weak []string
}

// Got renders what the runs concluded: "pass", or the checks that failed.
func (v *Verdict) Got() string {
	if v.Pass {
		return "pass"
	}
	s := ""
	for i, c := range v.Checks {
		if i > 0 {
			s += ", "
		}
		s += c
	}
	return "violation (" + s + ")"
}

// Judge runs sc as search says (its Spec is sc's) and compares the verdict
// with sc's expectation.
func Judge(ctx context.Context, sc *Scenario, search Search) (*Verdict, error) {
	search.Spec = sc.Spec
	if search.Seeds == 0 {
		search.Seeds = sc.Seeds
	}
	res, err := search.Run(ctx)
	if err != nil && (res == nil || !errors.Is(err, context.Canceled)) {
		return nil, err
	}
	// Interrupted (context.Canceled): the verdict of the seeds that ran,
	// and the error.
	v := &Verdict{Scenario: sc, Result: res, Pass: len(res.Failures) == 0}
	var all []models.Violation
	for _, f := range res.Failures {
		all = append(all, f.Violations...)
		for _, viol := range f.Violations {
			if !slices.Contains(v.Checks, viol.Check) {
				v.Checks = append(v.Checks, viol.Check)
			}
		}
	}
	slices.Sort(v.Checks)
	for _, r := range sc.Require {
		if res.Coverage[r] == 0 {
			v.Weak = append(v.Weak, r)
		}
	}
	v.Matches = sc.Expect.Met(all) && len(v.Weak) == 0
	return v, err
}
