package scenarios

import (
	"sync/atomic"
	"time"
)

// liveQuiet ends a live run the way a simulated run ends when nothing
// can happen any more: every client that is still running waits, no
// operation has returned for longer than the liveness bound and a session
// timeout, and no fault is still to strike. The simulator knows such a
// run is over (no event is due); the live world cannot, and without this
// it would wait out its time bound and be reported as cut short. The
// history is judged as it stands, so the waits still blocked are what the
// liveness check sees: blocked past the bound (a recipe stuck for good is
// caught, as in the simulator), or excused (a double barrier waiting for a
// process that failed, which the recipe must wait for).
type liveQuiet struct {
	window time.Duration
	bound  time.Duration // the liveness bound in it, for the progress lines
	last   atomic.Int64  // when an operation last returned, in ns since the Unix epoch
	ended  atomic.Bool
}

// newLiveQuiet watches for a run quiet for the liveness bound and a
// session timeout.
func newLiveQuiet(bound, sessionTimeout time.Duration) *liveQuiet {
	q := &liveQuiet{window: bound + sessionTimeout, bound: bound}
	q.progressed()
	return q
}

// quietFor is how long no operation has returned, at now.
func (q *liveQuiet) quietFor(now time.Time) time.Duration {
	return now.Sub(time.Unix(0, q.last.Load()))
}

// progressed notes that an operation returned.
func (q *liveQuiet) progressed() { q.last.Store(time.Now().UnixNano()) }

// watch calls end once the run has been quiet for the window with no
// fault pending (pending nil: none), checking every 100ms until stop is
// called.
func (q *liveQuiet) watch(pending func() bool, end func()) (stop func()) {
	t := time.NewTicker(100 * time.Millisecond)
	done := make(chan struct{})
	go func() {
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			quiet := time.Since(time.Unix(0, q.last.Load()))
			if quiet > q.window && (pending == nil || !pending()) {
				q.ended.Store(true)
				end()
				return
			}
		}
	}()
	return func() { close(done) }
}
