package search

import (
	"context"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/scenarios"
)

// FirstBreak is the lowest seed, from 1, on which spec breaks the way e
// expects (a violation of e's check and kind), among the first limit
// seeds; 0 when none of them does. It runs the seeds in blocks, in
// parallel, and stops at the block that holds the first: how many seeds a
// search takes to find a mistake, the figure a mix of faults is judged by.
func FirstBreak(ctx context.Context, spec scenarios.Spec, e scenarios.Expectation, limit int) (uint64, error) {
	return firstBreakFrom(ctx, spec, e, 1, limit)
}

// firstBreakFrom is FirstBreak from seed from on.
func firstBreakFrom(ctx context.Context, spec scenarios.Spec, e scenarios.Expectation, from uint64, limit int) (uint64, error) {
	const block = 64
	for first := from; first <= uint64(limit); first += block {
		n := min(block, limit-int(first)+1)
		res, err := Sweep{Spec: spec, First: first, Seeds: n, Keep: n}.Run(ctx)
		if err != nil {
			return 0, err
		}
		for _, f := range res.Failures { // by seed, lowest first
			if e.Met(f.Violations) {
				return f.Seed, nil
			}
		}
	}
	return 0, nil
}

// RandomFaultsOnly is sc's experiment under random faults alone: its
// scripted schedule set aside, its own rates or, when it has none, every
// kind of fault (fault.EveryFault). It is how a teaching variant is
// searched for blind, as a user's recipe would be.
func RandomFaultsOnly(sc *scenarios.Scenario) scenarios.Spec {
	spec := sc.Spec
	spec.Faults = nil
	if spec.Rates == nil {
		r := fault.EveryFault()
		spec.Rates = &r
	}
	return spec
}

// Breaks is how many of seeds 1..seeds break spec the way e expects: a
// steadier figure than FirstBreak's one sample (seeds/Breaks is the
// expected wait for a first counterexample).
func Breaks(ctx context.Context, spec scenarios.Spec, e scenarios.Expectation, seeds int) (int, error) {
	_, n, err := breaks(ctx, spec, e, seeds)
	return n, err
}

// breaks is Breaks, with the lowest of the seeds that break spec (0: none).
func breaks(ctx context.Context, spec scenarios.Spec, e scenarios.Expectation, seeds int) (uint64, int, error) {
	res, err := Sweep{Spec: spec, Seeds: seeds, Keep: seeds}.Run(ctx)
	if err != nil {
		return 0, 0, err
	}
	var first uint64
	n := 0
	for _, f := range res.Failures { // by seed, lowest first
		if e.Met(f.Violations) {
			if n == 0 {
				first = f.Seed
			}
			n++
		}
	}
	return first, n, nil
}

// Blind is FirstBreak within limit and Breaks of the first seeds,
// together: each seed runs once, where the two apart run the seeds up to
// the first break twice.
func Blind(ctx context.Context, spec scenarios.Spec, e scenarios.Expectation, limit, seeds int) (first uint64, n int, err error) {
	first, n, err = breaks(ctx, spec, e, seeds)
	if err != nil || first > 0 && first <= uint64(limit) {
		return first, n, err
	}
	if first > uint64(limit) {
		first = 0 // past the limit: the search within it found none
	}
	if seeds < limit {
		first, err = firstBreakFrom(ctx, spec, e, uint64(seeds)+1, limit)
	}
	return first, n, err
}
