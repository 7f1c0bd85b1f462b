package models

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// TestGeneratedLockRuns checks the generator against the checkers: every
// run it makes of a correct lock passes the lock models and the liveness
// and herd checks (the herd variant fails the herd check), and every run
// it breaks fails the mutex and election models.
func TestGeneratedLockRuns(t *testing.T) {
	ms := int64(time.Millisecond)
	opts := []lockRunOpts{
		{clients: 3, rounds: 3},
		{clients: 10, rounds: 10},
		{clients: 50, rounds: 1},
		{clients: 6, rounds: 8, end: 60 * ms},
		{clients: 6, rounds: 8, unknown: 0.2, rejected: 0.5},
		{clients: 6, rounds: 8, end: 70 * ms, unknown: 0.2, rejected: 0.5},
		{clients: 5, rounds: 4, keep: true},
	}
	for i, o := range opts {
		for seed := uint64(1); seed <= 3; seed++ {
			run := genLockRun(seed, o)
			if vs, err := Run(run.input(), "mutex", "election", "fenced-mutex", "liveness", "herd"); err != nil || len(vs) > 0 {
				t.Fatalf("run %d %+v, seed %d: %v %v, want no violation", i, o, seed, vs, err)
			}
			if o.end == 0 {
				herd := o
				herd.herd = true
				if vs, _ := Run(genLockRun(seed, herd).input(), "herd"); len(vs) != 1 {
					t.Fatalf("run %d %+v with the herd effect, seed %d: %v, want a herd violation", i, o, seed, vs)
				}
			}
			if o.clients > 10 {
				continue // a failed check on the original history takes long
			}
			r := rand.New(rand.NewPCG(seed, uint64(i)))
			for b := range lockBreaks {
				ops, ok := breakLockRun(r, append([]Operation(nil), run.ops...), b)
				if !ok {
					continue
				}
				for _, m := range []Model{MutexModel, ElectionModel} {
					if vs := CheckModel(m, ops); len(vs) != 1 {
						t.Fatalf("run %d %+v, seed %d, broken by %s: %s says %v, want one violation", i, o, seed, b, m.Name, vs)
					}
				}
			}
		}
	}
}

// lockRunSizes are the runs the benchmarks check: the lock-contention
// scenario's (10 clients × 100 acquisitions), and one acquisition each by
// many clients that all wait at once.
var lockRunSizes = []struct{ clients, rounds int }{{10, 100}, {1000, 1}, {10000, 1}}

// BenchmarkCheckLockHistory measures the lock-contention scenario's checks
// (mutex, liveness, herd), one by one and together, on generated runs of
// the sizes above; ns/operation is per operation of the history.
func BenchmarkCheckLockHistory(b *testing.B) {
	for _, size := range lockRunSizes {
		run := genLockRun(1, lockRunOpts{clients: size.clients, rounds: size.rounds})
		in := run.input()
		for _, checks := range [][]string{{"mutex"}, {"liveness"}, {"herd"}, {"mutex", "liveness", "herd"}} {
			name := fmt.Sprintf("%dx%d/%s", size.clients, size.rounds, checks[0])
			if len(checks) > 1 {
				name = fmt.Sprintf("%dx%d/all", size.clients, size.rounds)
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if vs, err := Run(in, checks...); err != nil || len(vs) > 0 {
						b.Fatalf("%v %v, want no violation", vs, err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(in.Ops)), "ns/operation")
			})
		}
	}
}

// BenchmarkCheckLockHistoryWorkedOut measures the same checks where they
// cannot take their short cuts: the mutex decided by porcupine on Narrow's
// parts (no witness), every wait judged against a bound of a millisecond
// (many are late), every release of a run with the herd effect scanned
// (each wakes every waiter: the traffic grows with the square of the
// waiters, so the largest run has no herd effect, and the herd check
// scans nothing).
func BenchmarkCheckLockHistoryWorkedOut(b *testing.B) {
	parts := MutexModel
	parts.Witness = nil
	for _, size := range lockRunSizes {
		herd := size.clients <= 1000
		run := genLockRun(1, lockRunOpts{clients: size.clients, rounds: size.rounds, herd: herd})
		in := run.input()
		in.Bound = time.Millisecond
		for _, c := range []struct {
			name  string
			check func() []Violation
		}{
			{"mutex-parts", func() []Violation { return CheckModel(parts, in.Ops) }},
			{"liveness", func() []Violation { return checkLiveness(in) }},
			{"herd", func() []Violation { return checkHerd(in) }},
		} {
			b.Run(fmt.Sprintf("%dx%d/%s", size.clients, size.rounds, c.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					c.check()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(in.Ops)), "ns/operation")
			})
		}
	}
}
