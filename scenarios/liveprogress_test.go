package scenarios

import (
	"testing"
	"time"

	"github.com/zksim/zksim/fault"
)

// A live run's progress line says how far it got and what it waits for:
// the clients still running, the timed faults still to strike, how long
// nothing has returned and when that ends the run, the bound.
func TestLiveProgressLine(t *testing.T) {
	sched, err := fault.ParseSchedule("at 1s crash leader for 1s; at 20s pause c1 1s")
	if err != nil {
		t.Fatal(err)
	}
	p := newLiveProgress(nil, []string{"c1", "c2", "c3"}, sched, 90*time.Second)
	p.done[1].Store(true)
	p.ok.Add(42)
	got := p.line(p.start.Add(10 * time.Second))
	want := "live: 10s: 1 of 3 clients done, 42 operations; waiting for clients c1, c3 and 1 timed faults to strike " +
		"(the run ends at 1m30s at the latest)"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// A run whose clients wait with nothing returning says why it goes
	// on, and until when.
	p.quiet = newLiveQuiet(37*time.Second, 10*time.Second)
	p.quiet.last.Store(p.start.UnixNano())
	got = p.line(p.start.Add(20 * time.Second))
	want = "live: 20s: 1 of 3 clients done, 42 operations; waiting for clients c1, c3; nothing has returned for 20s: " +
		"at 47s (the liveness bound, 37s, and a session timeout) the run ends and judges its waits as they stand " +
		"(the run ends at 1m30s at the latest)"
	if got != want {
		t.Errorf("quiet: got  %q\nwant %q", got, want)
	}
	p.done[0].Store(true)
	p.done[2].Store(true)
	if got := p.line(p.start.Add(30 * time.Second)); got != "live: 30s: 3 of 3 clients done, 42 operations (the run ends at 1m30s at the latest)" {
		t.Errorf("at the end: %q", got)
	}
}
