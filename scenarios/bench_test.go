package scenarios

import (
	"testing"
	"time"
)

// BenchmarkLockContention runs the built-in lock-contention scenario (10
// clients × 100 acquisitions of one lock, three servers with replication)
// and reports simulated client operations per second of the simulator's
// wall time, and the share of each run spent checking it.
func BenchmarkLockContention(b *testing.B) {
	sc, err := LoadScenario("lock-contention")
	if err != nil {
		b.Fatal(err)
	}
	var ops uint64
	var simulated, checked time.Duration
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		out, err := Run(sc.Spec, uint64(i+1), Options{})
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
