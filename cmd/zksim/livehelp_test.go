package main

import (
	"strings"
	"testing"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/live"
)

// zksim live --help says which faults a live run strikes and which it
// skips; each is as live.Injectable decides on a local ensemble with
// proxied links (it said expiry was skipped after live runs had learnt to
// expire a session).
func TestLiveHelpAgreesWithInjectable(t *testing.T) {
	long := strings.Join(strings.Fields(liveCmd().Long), " ")
	i := strings.Index(long, "the rest (")
	if i < 0 {
		t.Fatal("the help no longer names the faults live runs skip (\"the rest (...)\")")
	}
	struck, rest := long[:i], long[i:i+strings.Index(long[i:], ")")]
	for _, tc := range []struct{ phrase, fault string }{
		{"expiry", "at 1s expire c1"},
		{"disconnects", "at 1s disconnect c1 for 1s"},
		{"lagging follower", "at 1s lag s1 for 1s"},
		{"lagging leader", "at 1s lag leader for 1s"},
		{"applier's crash", "when c1 create#1 applied: crash applier"},
		{"isolation", "at 1s isolate s1 for 1s"},
	} {
		sched, err := fault.ParseSchedule(tc.fault)
		if err != nil {
			t.Fatal(err)
		}
		injectable := live.Injectable(sched[0], true, true)
		switch {
		case strings.Contains(rest, tc.phrase) && injectable:
			t.Errorf("the help says live runs skip %s, but they strike it (%q)", tc.phrase, tc.fault)
		case !strings.Contains(rest, tc.phrase) && !injectable:
			t.Errorf("live runs skip %s (%q), and the help does not say so", tc.phrase, tc.fault)
		case injectable && !strings.Contains(struck, tc.phrase):
			t.Errorf("live runs strike %s (%q), and the help does not say so", tc.phrase, tc.fault)
		}
	}
}
