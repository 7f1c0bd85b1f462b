package search

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/zksim/zksim/scenarios"
)

// BenchmarkLockContention runs the built-in lock-contention scenario (10
// clients × 100 acquisitions of one lock, three servers with replication)
// and reports simulated client operations per second of the simulator's
// wall time, and the share of each run spent checking it. `zksim bench`
// prints the same figures in its table.
func BenchmarkLockContention(b *testing.B) {
	sc, err := scenarios.LoadScenario("lock-contention")
	if err != nil {
		b.Fatal(err)
	}
	var ops uint64
	var simulated, checked time.Duration
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		out, err := scenarios.Run(sc.Spec, uint64(i+1), scenarios.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if out.Failed() {
			b.Fatalf("seed %d: %v", i+1, out.Violations)
		}
		ops += out.Result.Ops
		simulated += out.Simulated
		checked += out.Checked
	}
	b.ReportMetric(float64(ops)/simulated.Seconds(), "ops/s")
	b.ReportMetric(float64(checked)/float64(simulated+checked), "check-share")
}

// BenchmarkCrowd runs 10,000 clients contending for one lock at once, one
// acquisition each, checked, and reports the heap's peak (as the runtime
// saw it; `zksim bench` measures the process's resident set instead).
func BenchmarkCrowd(b *testing.B) {
	sc, err := scenarios.LoadScenario("lock-contention")
	if err != nil {
		b.Fatal(err)
	}
	spec := sc.Spec.Crowded(10000)
	var peak uint64
	for i := 0; b.Loop(); i++ {
		out, err := scenarios.Run(spec, uint64(i+1), scenarios.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if out.Failed() {
			b.Fatalf("seed %d: %v", i+1, out.Violations)
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapSys)
	}
	b.ReportMetric(float64(peak)/(1<<20), "MiB-heap")
}

// BenchmarkSeedsWithFaults runs the built-in lock-faults scenario (random
// crashes, lost replies, partitions, pauses) on every core and reports
// seeds per second.
func BenchmarkSeedsWithFaults(b *testing.B) {
	sc, err := scenarios.LoadScenario("lock-faults")
	if err != nil {
		b.Fatal(err)
	}
	seeds := 0
	for i := 0; b.Loop(); i++ {
		res, err := Sweep{Spec: sc.Spec, First: uint64(i*100 + 1), Seeds: 100}.Run(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Failures) > 0 {
			b.Fatalf("seed %d: %v", res.Failures[0].Seed, res.Failures[0].Violations)
		}
		seeds += res.Ran
	}
	b.ReportMetric(float64(seeds)/b.Elapsed().Seconds(), "seeds/s")
}

// BenchmarkLibrary runs every built-in scenario on its first ten seeds,
// one at a time, checked: the teaching suite's mix of kinds, faults and
// checks. It reports scenario runs per second. With BenchmarkLockContention
// and BenchmarkSeedsWithFaults it is the profile `make pgo` builds zksim
// with (cmd/zksim/default.pgo).
func BenchmarkLibrary(b *testing.B) {
	lib, err := scenarios.Library()
	if err != nil {
		b.Fatal(err)
	}
	runs := 0
	for b.Loop() {
		for _, sc := range lib {
			for seed := uint64(1); seed <= 10; seed++ {
				if _, err := scenarios.Run(sc.Spec, seed, scenarios.Options{}); err != nil {
					b.Fatalf("%s seed %d: %v", sc.Name, seed, err)
				}
				runs++
			}
		}
	}
	b.ReportMetric(float64(runs)/b.Elapsed().Seconds(), "runs/s")
}
