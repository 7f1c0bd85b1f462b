package scenarios

import (
	"strings"
	"testing"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/models"
)

// madeSoFar is a live client that made so many requests of each type and
// had so many notifications.
type madeSoFar struct {
	made     map[client.Op]int
	notified int
}

func (m madeSoFar) Made(op client.Op, failed bool) int { return m.made[op] }
func (m madeSoFar) Notified() int                      { return m.notified }

// A fault tied to a request or a notification the live run never made is
// said so, with how far the client got, and a run that then misses its
// verdict is weak for it, not a failure of the recipe; a fault whose
// trigger came and still never struck is no such excuse.
func TestUnreachedTriggersMakeARunWeak(t *testing.T) {
	never, err := fault.ParseSchedule("when c1 exists#9 applied: lose-reply\nwhen c2 notified#6: lose-reply\nwhen c1 create#2 applied: lose-reply")
	if err != nil {
		t.Fatal(err)
	}
	counts := []triggerCounts{madeSoFar{made: map[client.Op]int{client.OpExists: 7, client.OpCreate: 3}},
		madeSoFar{notified: 6}}
	got := unreached(never, counts)
	if len(got) != 1 || !strings.Contains(got[0], "when c1 exists#9 applied: lose-reply") ||
		!strings.Contains(got[0], "7 exists requests; it waits for the 9th") {
		t.Fatalf("unreached %q: want c1's 9th exists alone, with the 7 it made", got)
	}
	expect := Expectation{Check: "mutex", Kind: models.Safety}
	o := &LiveOutcome{Unreached: got}
	if as, weak := o.Against(expect); as || !strings.Contains(weak, "never came live") {
		t.Fatalf("a missed verdict with an unreached trigger: as %v, weak %q; want weak, naming it", as, weak)
	}
	o.Violations = []models.Violation{{Check: "mutex", Kind: models.Safety}}
	if as, weak := o.Against(expect); !as || weak != "" {
		t.Fatalf("a verdict reached all the same: as %v, weak %q; want as expected", as, weak)
	}
	if as, weak := (&LiveOutcome{}).Against(expect); as || weak != "" {
		t.Fatalf("a missed verdict with every trigger reached: as %v, weak %q; want not as expected, not weak", as, weak)
	}
}
