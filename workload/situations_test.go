package workload

import (
	"testing"

	"github.com/zksim/zksim/models"
)

// Each situation counts what its name says, in a history made by hand.
func TestSituationsCount(t *testing.T) {
	const l = "/l"
	op := func(c int, k models.OpKind, call, ret int64) models.Operation {
		return models.Operation{Client: c, Kind: k, Path: l, Result: models.OK, Call: call, Return: ret}
	}
	shared := func(o models.Operation) models.Operation { o.Shared = true; return o }
	with := func(o models.Operation, f func(*models.Operation)) models.Operation { f(&o); return o }
	for _, tc := range []struct {
		name string
		s    situation
		ops  []models.Operation
		want int
	}{
		// c2 calls before c1's acquire returns and gets it after c1's
		// release: it waited. c3 calls after c2's release: it did not.
		{"a wait for a holder", waitedForHolder, []models.Operation{
			op(0, models.Acquire, 0, 10), op(1, models.Acquire, 5, 30), op(0, models.Release, 20, 25),
			op(1, models.Release, 40, 45), op(2, models.Acquire, 50, 55)}, 1},
		{"reads do not wait for reads", waitedForHolder, []models.Operation{
			shared(op(0, models.Acquire, 0, 10)), shared(op(1, models.Acquire, 5, 12)), op(0, models.Release, 20, 25),
			op(1, models.Release, 20, 25)}, 0},
		{"a read waits for a write", waitedForHolder, []models.Operation{
			op(0, models.Acquire, 0, 10), shared(op(1, models.Acquire, 5, 30)), op(0, models.Release, 20, 25)}, 1},
		{"a pending acquire is not counted", waitedForHolder, []models.Operation{
			op(0, models.Acquire, 0, 10), with(op(1, models.Acquire, 5, 90), func(o *models.Operation) { o.Result = models.Pending })}, 0},
		{"two reads together", readsTogether, []models.Operation{
			shared(op(0, models.Acquire, 0, 10)), shared(op(1, models.Acquire, 5, 12)), op(0, models.Release, 20, 25),
			op(1, models.Release, 20, 25), shared(op(2, models.Acquire, 30, 31)), op(2, models.Release, 32, 33)}, 1},
		{"leases held together", leasesHeldTogether, []models.Operation{
			op(0, models.Acquire, 0, 10), op(1, models.Acquire, 5, 12), op(2, models.Acquire, 6, 22),
			op(0, models.Release, 20, 25), op(1, models.Release, 20, 25), op(2, models.Release, 40, 41),
			op(0, models.Acquire, 50, 51), op(0, models.Release, 52, 53)}, 2},
		{"a refused use", fenceRefused, []models.Operation{op(0, models.Use, 1, 1),
			with(op(1, models.Use, 2, 2), func(o *models.Operation) { o.Result = models.Rejected })}, 1},
		{"a take before its put", takesWaitedForPut, []models.Operation{
			with(op(0, models.Take, 0, 20), func(o *models.Operation) { o.OutData = "a" }),
			with(op(1, models.Put, 10, 15), func(o *models.Operation) { o.Data = "a" }),
			with(op(1, models.Put, 16, 17), func(o *models.Operation) { o.Data = "b" }),
			with(op(0, models.Take, 30, 35), func(o *models.Operation) { o.OutData = "b" })}, 1},
		{"a pass across the lower", passesWaited, []models.Operation{
			op(0, models.Raise, 0, 1), op(1, models.Pass, 2, 20), op(0, models.Lower, 10, 12), op(2, models.Pass, 30, 31)}, 1},
		{"enters that waited", entersWaited, []models.Operation{
			op(0, models.Enter, 0, 20), op(1, models.Enter, 10, 21), op(2, models.Enter, 15, 22)}, 2},
		{"views that changed", viewsChanged, []models.Operation{
			with(op(0, models.View, 0, 1), func(o *models.Operation) { o.OutData = "c2" }),
			with(op(0, models.View, 2, 3), func(o *models.Operation) { o.OutData = "c2" }),
			with(op(0, models.View, 4, 5), func(o *models.Operation) { o.OutData = "" })}, 1},
		{"a newer configuration", newerConfig, []models.Operation{
			with(op(0, models.Read, 0, 1), func(o *models.Operation) { o.OutVersion = 1 }),
			with(op(1, models.Read, 0, 1), func(o *models.Operation) { o.OutVersion = 2 }),
			with(op(0, models.Read, 2, 3), func(o *models.Operation) { o.OutVersion = 2 })}, 1},
		{"commits and aborts", committed, []models.Operation{
			with(op(0, models.Propose, 0, 1), func(o *models.Operation) { o.OutData = "commit" }),
			with(op(0, models.Propose, 2, 3), func(o *models.Operation) { o.OutData = "abort" })}, 1},
		{"an unknown outcome", unknownOutcomes, []models.Operation{
			with(op(0, models.Put, 0, 1), func(o *models.Operation) { o.Result = models.Unknown })}, 1},
	} {
		if got := tc.s.count(tc.ops); got != tc.want {
			t.Errorf("%s: %q counted %d, want %d", tc.name, tc.s.name, got, tc.want)
		}
	}
}

// Every kind counts situations of its own.
func TestEveryKindHasSituations(t *testing.T) {
	for _, name := range Kinds() {
		k := kinds[name]
		if len(k.situations) == 0 {
			t.Errorf("%s: no situations of its own", name)
		}
	}
}
