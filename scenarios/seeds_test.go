package scenarios

import "testing"

// firstFailure is the run of spec on the lowest of seeds 1..n that a check
// fails, or nil: the seeds one after the other, as a test needs them
// (package search sweeps them in parallel).
func firstFailure(t *testing.T, spec Spec, n int) *Outcome {
	t.Helper()
	for seed := uint64(1); seed <= uint64(n); seed++ {
		o, err := Run(spec, seed, Options{})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if o.Failed() {
			return o
		}
	}
	return nil
}
