package sim

import "testing"

// BenchmarkEventFloor is the cost of an event that does nothing (see
// IdleEvents).
func BenchmarkEventFloor(b *testing.B) {
	if _, err := IdleEvents(b.N); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkClientStepFloor is the cost of a client step that does nothing,
// with the event that wakes it (see IdleClientSteps).
func BenchmarkClientStepFloor(b *testing.B) {
	if _, err := IdleClientSteps(b.N); err != nil {
		b.Fatal(err)
	}
}

// The floor's loops do what they say: n events, n client steps.
func TestFloorCounts(t *testing.T) {
	for _, n := range []int{0, 1, 63, 64, 65, 1000} {
		got, err := IdleEvents(n)
		if err != nil || got != uint64(n) {
			t.Errorf("IdleEvents(%d) fired %d, %v", n, got, err)
		}
		steps, err := IdleClientSteps(n)
		// The client's first step starts it; each wake-up is one more.
		if err != nil || steps != uint64(n)+1 {
			t.Errorf("IdleClientSteps(%d) took %d client steps, %v; want %d", n, steps, err, n+1)
		}
	}
	// As many as a benchmark asks for: the run's drain window (no client
	// runs) does not cut it short.
	if got, err := IdleEvents(3_000_000); err != nil || got != 3_000_000 {
		t.Errorf("IdleEvents(3,000,000) fired %d, %v", got, err)
	}
}
