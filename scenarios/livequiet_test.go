package scenarios

import (
	"sync/atomic"
	"testing"
	"time"
)

// A live run ends quiet only once no operation has returned for the
// window and no fault is pending: progress and pending faults keep it
// going.
func TestLiveQuietWaitsForQuietAndNoFault(t *testing.T) {
	q := newLiveQuiet(200*time.Millisecond, 100*time.Millisecond)
	var pending, ended atomic.Bool
	pending.Store(true)
	stop := q.watch(pending.Load, func() { ended.Store(true) })
	defer stop()
	time.Sleep(600 * time.Millisecond)
	if ended.Load() {
		t.Fatal("ended while a fault was pending")
	}
	pending.Store(false)
	for range 6 {
		q.progressed()
		time.Sleep(100 * time.Millisecond)
	}
	if ended.Load() {
		t.Fatal("ended while operations kept returning")
	}
	deadline := time.Now().Add(10 * time.Second)
	for !ended.Load() && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if !ended.Load() || !q.ended.Load() {
		t.Fatal("not ended 10s after the last operation, with no fault pending")
	}
}
