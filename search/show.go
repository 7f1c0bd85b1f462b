package search

import (
	"context"
	"time"

	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/scenarios"
)

// ShrinkChecks is how many schedules rapid draws when it shrinks a
// failing run, before the minimizer's own moves: the one figure every
// shrink a person asks for uses (zksimtest, zksim run --shrink, the
// report).
const ShrinkChecks = 100

// Shown is a failure as it is shown to a person: the run replayed keeping
// its trace, and the counterexample it was shrunk to, if it was.
type Shown struct {
	// Shrunk is the counterexample the failure shrank to; nil when it
	// was not shrunk.
	Shrunk *Counterexample
	// Outcome is the run replayed with its trace: the shrunk
	// counterexample's, or the failure's own.
	Outcome *scenarios.Outcome
}

// ShowOptions say how a failure is shown.
type ShowOptions struct {
	// Shrink shrinks the failure first, when a check decided it: an
	// undecided check (porcupine out of its time) has not failed, and
	// shrinking keeps only runs that fail.
	Shrink bool
	// Progress, when set, is told of the shrinking's runs
	// (ShrinkContext's progress).
	Progress func(runs, failing, faults int)
	// CheckLimit bounds each object's check in the replay
	// (scenarios.Options.CheckLimit): a history porcupine could not
	// decide is saved, not searched again without end.
	CheckLimit time.Duration
}

// Show is the failure of spec's run on seed (its violations as the run
// found them) as a report shows it: shrunk when asked and a check decided
// it (until ctx ends: the smallest counterexample found by then), then
// replayed keeping its trace. The first failing seed as it came is a
// poorer lesson: lock-herd's has six clients and hundreds of steps where
// the shrunk one has three.
func Show(ctx context.Context, spec scenarios.Spec, seed uint64, violations []models.Violation, opt ShowOptions) (*Shown, error) {
	shown := &Shown{}
	if opt.Shrink && decided(violations) {
		c, err := ShrinkContext(ctx, spec, seed, ShrinkChecks, opt.Progress)
		if err != nil {
			return nil, err
		}
		shown.Shrunk, spec, seed = c, c.Spec, c.Seed
	}
	o, err := scenarios.Run(spec, seed, scenarios.Options{KeepTrace: true, CheckLimit: opt.CheckLimit})
	if err != nil {
		return nil, err
	}
	shown.Outcome = o
	return shown, nil
}

// decided reports whether a check decided one of the violations: only a
// check out of its time (models.Undecided) decides nothing, and its run
// is no counterexample to shrink.
func decided(violations []models.Violation) bool {
	for _, v := range violations {
		if v.Kind != models.Undecided {
			return true
		}
	}
	return false
}
