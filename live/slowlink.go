package live

import "time"

// Slow adds d of latency to the client's links, each way, until until (a
// latency spike on the network between the client and the servers): a
// request leaves d after it is sent, a reply or notification is handed
// over d after it arrived. The client sends and reads one frame (or one
// read's worth) at a time, so frames that queue behind a delayed one wait
// their own latency after it: a burst takes longer than on a slow link of
// the same latency. A client here has few requests in flight, so the
// difference is small.
func (f *ClientFaults) Slow(d time.Duration, until time.Time) {
	f.mu.Lock()
	f.slow, f.slowUntil = d, until
	f.mu.Unlock()
}

// latency is the latency to add to a frame sent or received at t.
func (f *ClientFaults) latency(t time.Time) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	if t.Before(f.slowUntil) {
		return f.slow
	}
	return 0
}

// waitLatency sleeps until d after t, if that is still to come.
func waitLatency(t time.Time, d time.Duration) {
	if d > 0 {
		time.Sleep(time.Until(t.Add(d)))
	}
}
