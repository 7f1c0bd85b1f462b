package zksimtest

import (
	"flag"
	"testing"
	"time"
)

// BenchmarkGoZKLockTimeCompression measures the go-zk in-process mode's
// time compression: the virtual time a run of GoZKLock's experiment (go-zk's
// own lock, 3 clients, each taking it twice and holding it 2s) spans,
// divided by the wall time the run takes, bubble and judging included
// (x_realtime). One run an iteration, seed after seed:
//
//	go test -run '^$' -bench GoZKLockTimeCompression ./zksimtest
func BenchmarkGoZKLockTimeCompression(b *testing.B) {
	opt := GoZKOptions{Clients: 3}.withDefaults()
	var simulated time.Duration
	seed := uint64(0)
	for b.Loop() {
		seed++
		inTest(b, func(t *testing.T) {
			run := runGoZKLock(t, seed, nil, goZKLock, opt)
			if run.err != nil || run.o.Failed() {
				t.Fatalf("seed %d: %v %v", seed, run.err, run.o.Violations)
			}
			simulated += time.Duration(run.o.Result.End)
		})
	}
	b.ReportMetric(simulated.Seconds()/b.Elapsed().Seconds(), "x_realtime")
	b.ReportMetric(simulated.Seconds()/float64(b.N), "simulated-s/run")
}

// inTest runs f once as a test of its own, in this process: a bubble
// (synctest.Test) and a seeded crypto/rand (cryptotest.SetGlobalRandom)
// are had only through a *testing.T, which a benchmark has not. The
// match function takes every name, so the -run '^$' that benchmarks are
// run with does not leave it out; -count, which RunTests would also
// obey, is 1 meanwhile (the benchmark's own repetitions are the
// benchmark's).
func inTest(b *testing.B, f func(t *testing.T)) {
	b.Helper()
	count := flag.Lookup("test.count")
	was := count.Value.String()
	if err := count.Value.Set("1"); err != nil {
		b.Fatal(err)
	}
	defer count.Value.Set(was)
	all := func(string, string) (bool, error) { return true, nil }
	if !testing.RunTests(all, []testing.InternalTest{{Name: b.Name(), F: f}}) {
		b.Fatal("the run failed")
	}
}
