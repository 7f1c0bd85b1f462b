package scenarios

import (
	"testing"

	"github.com/zksim/zksim/fault"
)

// A fault whose trigger counted past a removed one is renumbered: the
// failure that needs "c1 create#4" only while "c1 create#2" makes c1
// retry needs "c1 create#3" without it, and minimize ends there; a
// trigger of another client or kind keeps its number, and a failure that
// needs both faults keeps both.
func TestMinimizeRenumbersLaterTriggers(t *testing.T) {
	sched := fault.MustParseSchedule("when c1 create#2 applied: lose-reply; when c2 create#5 applied: lose-reply; " +
		"when c1 delete#3 applied: lose-reply; when c1 create#4 applied: lose-reply")
	// Fails with c1's retried create lost: the 4th with the first fault,
	// the 3rd without it.
	fails := func(s fault.Schedule) bool {
		first := has(s, "when c1 create#2 applied: lose-reply")
		return first && has(s, "when c1 create#4 applied: lose-reply") || !first && has(s, "when c1 create#3 applied: lose-reply")
	}
	got := FaultsLine(minimizeBy(sched, fails))
	if got != "when c1 create#3 applied: lose-reply" {
		t.Fatalf("minimized to %q; want the later trigger renumbered alone", got)
	}
	// Without renumbering it would keep both.
	both := func(s fault.Schedule) bool {
		return has(s, "when c1 create#2 applied: lose-reply") && has(s, "when c1 create#4 applied: lose-reply")
	}
	if got := FaultsLine(minimizeBy(sched, both)); got != "when c1 create#2 applied: lose-reply; when c1 create#4 applied: lose-reply" {
		t.Fatalf("minimized to %q; want both faults, as numbered", got)
	}
	// Only the same client's triggers on the same kind move.
	alts := renumbered(fault.MustParseSchedule("when c2 create#5 applied: lose-reply; when c1 delete#3 applied: lose-reply; "+
		"when c1 create#4 applied: lose-reply; when c1 create#1 applied: lose-reply"),
		fault.MustParseSchedule("when c1 create#2 applied: lose-reply"), nil)
	if len(alts) != 2 || FaultsLine(alts[0]) != "when c2 create#5 applied: lose-reply; when c1 delete#3 applied: lose-reply; "+
		"when c1 create#3 applied: lose-reply; when c1 create#1 applied: lose-reply" {
		t.Fatalf("renumbered: %v", alts)
	}
}

// With the order the faults struck in, a trigger of the removed fault's
// client that struck after it moves back by one, whatever it counts: a
// cut connection made the client set its watch again.
func TestRenumberedByStrikeOrder(t *testing.T) {
	rest := fault.MustParseSchedule("when c1 notified#3: lose-reply; when c2 notified#3: lose-reply; when c1 getData#1 applied: lose-reply")
	removed := fault.MustParseSchedule("when c1 getChildren#2 applied: disconnect c1 for 3s")
	order := []string{"when c1 getData#1 applied: lose-reply", removed[0].String(), "when c1 notified#3: lose-reply",
		"when c2 notified#3: lose-reply"}
	alts := renumbered(rest, removed, order)
	if len(alts) != 1 || FaultsLine(alts[0]) != "when c1 notified#2: lose-reply; when c2 notified#3: lose-reply; when c1 getData#1 applied: lose-reply" {
		t.Fatalf("renumbered: %v", alts)
	}
}

// minimizeBy is minimize of sched (taken to fail) with a run that fails
// when fails says, and strikes nothing.
func minimizeBy(sched fault.Schedule, fails func(fault.Schedule) bool) fault.Schedule {
	k := minimize(kept{sched, trial{failed: true}}, func(_ kept, s fault.Schedule) trial { return trial{failed: fails(s)} })
	return k.sched
}

// has says whether s holds the fault text.
func has(s fault.Schedule, text string) bool {
	for _, f := range s {
		if f.String() == text {
			return true
		}
	}
	return false
}

// Two faults that can go only together go together: neither alone.
func TestMinimizeRemovesAPair(t *testing.T) {
	sched := fault.MustParseSchedule("at 1s crash s1 for 1s; at 2s crash s2 for 1s; at 3s crash s3 for 1s")
	fails := func(s fault.Schedule) bool {
		return has(s, "at 3s crash s3 for 1s") && has(s, "at 1s crash s1 for 1s") == has(s, "at 2s crash s2 for 1s")
	}
	if got := FaultsLine(minimizeBy(sched, fails)); got != "at 3s crash s3 for 1s" {
		t.Fatalf("minimized to %q; want the pair gone", got)
	}
}

// The clients swapped: without the faults that made c2 win the race, c1
// wins it, and the disconnect aimed at the winner is aimed at c1.
func TestMinimizeSwapsClients(t *testing.T) {
	race := "when c1 create#1 received: lose-request"
	sched := fault.MustParseSchedule(race + "; at 1s disconnect c2 for 3s")
	fails := func(s fault.Schedule) bool {
		winner := "at 1s disconnect c1 for 3s"
		if has(s, race) {
			winner = "at 1s disconnect c2 for 3s"
		}
		return has(s, winner)
	}
	if got := FaultsLine(minimizeBy(sched, fails)); got != "at 1s disconnect c1 for 3s" {
		t.Fatalf("minimized to %q; want the disconnect alone, on c1", got)
	}
	alts := swapped(fault.MustParseSchedule("at 1s disconnect c2 for 3s; when c2 notified#1: lose-reply; at 2s crash s1"),
		fault.MustParseSchedule(race))
	if len(alts) != 1 || FaultsLine(alts[0]) != "at 1s disconnect c1 for 3s; when c1 notified#1: lose-reply; at 2s crash s1" {
		t.Fatalf("swapped: %v", alts)
	}
	alts = swapped(fault.MustParseSchedule("at 1s disconnect c5 for 3s"), fault.MustParseSchedule("when c2 notified#1: lose-reply"))
	if len(alts) != 1 || FaultsLine(alts[0]) != "at 1s disconnect c2 for 3s" {
		t.Fatalf("swapped with c5: %v", alts)
	}
}
