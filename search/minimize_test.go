package search

import (
	"cmp"
	"slices"
	"testing"
	"time"

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

// minimizeTimed is minimize of sched (taken to fail) with a run that
// fails when fails says, and in which each fault struck when at says
// (false: it did not).
func minimizeTimed(sched fault.Schedule, fails func(fault.Schedule) bool, at func(fault.Schedule, fault.Fault) (time.Duration, bool)) fault.Schedule {
	run := func(_ kept, s fault.Schedule) trial {
		var struck []strike
		for _, f := range s {
			if t, ok := at(s, f); ok {
				struck = append(struck, strike{f.String(), t})
			}
		}
		slices.SortStableFunc(struck, func(a, b strike) int { return cmp.Compare(a.at, b.at) })
		return trial{failed: fails(s), struck: struck}
	}
	first := run(kept{}, sched)
	return minimize(kept{sched, first}, run).sched
}

// timedAt says a timed fault struck at its time, and a triggered one not.
func timedAt(_ fault.Schedule, f fault.Fault) (time.Duration, bool) { return f.At, f.When == nil }

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

// The timed faults move with the run: a removed disconnect held c1 up by
// 5s, and the crash that had to strike just after c1's third create
// strikes 5s earlier without it; one moved before the start keeps what is
// left of it, and one left with nothing goes.
func TestMinimizeRetimes(t *testing.T) {
	held := "when c2 create#1 applied: disconnect c2 for 5s"
	anchor := "when c1 create#3 applied: lose-reply"
	sched := fault.MustParseSchedule(held + "; " + anchor + "; at 6.2s crash leader for 2s; at 1s crash s1 for 2s; at 4s crash s2 for 3s")
	createAt := func(s fault.Schedule) time.Duration {
		if has(s, held) {
			return 6 * time.Second
		}
		return time.Second
	}
	at := func(s fault.Schedule, f fault.Fault) (time.Duration, bool) {
		switch f.String() {
		case held:
			return 500 * time.Millisecond, true
		case anchor:
			return createAt(s), true
		}
		return f.At, f.When == nil
	}
	fails := func(s fault.Schedule) bool {
		for _, f := range s {
			if f.Kind == fault.Crash && f.A.Kind == fault.LeaderT && f.At > createAt(s) && f.At < createAt(s)+time.Second {
				return has(s, anchor)
			}
		}
		return false
	}
	if got := FaultsLine(minimizeTimed(sched, fails, at)); got != anchor+"; at 1.2s crash leader for 2s" {
		t.Fatalf("minimized to %q; want the crash moved with c1's create", got)
	}
	d := draft{fault.MustParseSchedule(anchor + "; at 6.2s crash leader for 2s; at 1s crash s1 for 2s; at 4s crash s2 for 3s"), nil}
	d.was = []string{anchor, "at 6.2s crash leader for 2s", "at 1s crash s1 for 2s", "at 4s crash s2 for 3s"}
	tm := timing{from: 500 * time.Millisecond, anchor: 0, bestAt: map[string]time.Duration{anchor: 6 * time.Second},
		probeAt: map[string]time.Duration{anchor: time.Second}}
	got, ok := retimed(d, tm)
	if !ok || FaultsLine(got.sched) != anchor+"; at 1.2s crash leader for 2s; at 0s crash s2 for 2s" {
		t.Fatalf("retimed: %v %v", FaultsLine(got.sched), ok)
	}
}

// A trigger is recounted either way: without the disconnect that kept c1
// from hearing of two changes, c1's watch fires twice more, and the lost
// notification that failed the run as c1's third is its fifth. It struck
// too soon after the anchor (c1's delete), so it is tried later.
func TestMinimizeRecounts(t *testing.T) {
	cut := "when c1 getData#2 applied: disconnect c1 for 3s"
	anchor := "when c1 delete#1 applied: lose-reply"
	sched := fault.MustParseSchedule(cut + "; " + anchor + "; when c1 notified#3: lose-reply")
	at := func(s fault.Schedule, f fault.Fault) (time.Duration, bool) {
		switch {
		case f.String() == cut:
			return 100 * time.Millisecond, true
		case f.String() == anchor:
			return time.Second, true
		case has(s, cut): // the third notification comes late, after the cut
			return 5 * time.Second, f.When.Nth == 3
		}
		return time.Second + time.Duration(f.When.Nth)*100*time.Millisecond, true
	}
	fails := func(s fault.Schedule) bool {
		lost := "when c1 notified#5: lose-reply"
		if has(s, cut) {
			lost = "when c1 notified#3: lose-reply"
		}
		return has(s, anchor) && has(s, lost)
	}
	if got := FaultsLine(minimizeTimed(sched, fails, at)); got != anchor+"; when c1 notified#5: lose-reply" {
		t.Fatalf("minimized to %q; want the notification recounted", got)
	}
}

// Two faults made one: a pause of c1 during a disconnect of c1 absorbed by
// the disconnect, lasting longer by as long as the pause; a crash and a
// partition that took the quorum away together made a crash of the leader
// over the while they overlapped.
func TestMinimizeMerges(t *testing.T) {
	sched := fault.MustParseSchedule("at 3.1s disconnect c1 for 3.2s; at 3.4s pause c1 910ms")
	fails := func(s fault.Schedule) bool { return len(s) == 2 || has(s, "at 3.1s disconnect c1 for 4.11s") }
	if got := FaultsLine(minimizeTimed(sched, fails, timedAt)); got != "at 3.1s disconnect c1 for 4.11s" {
		t.Fatalf("minimized to %q; want the pause absorbed", got)
	}
	sched = fault.MustParseSchedule("at 1s crash s2 for 5s; at 2s partition s1 s3 for 8s")
	fails = func(s fault.Schedule) bool { return len(s) == 2 || has(s, "at 2s crash leader for 4s") }
	if got := FaultsLine(minimizeTimed(sched, fails, timedAt)); got != "at 2s crash leader for 4s" {
		t.Fatalf("minimized to %q; want a leader crash", got)
	}
	apart := fault.MustParseSchedule("at 1s crash s2 for 1s; at 2s partition s1 s3 for 8s")
	if alts := merges(apart, []strike{{apart[0].String(), time.Second}, {apart[1].String(), 2 * time.Second}}); len(alts) != 0 {
		t.Fatalf("faults apart in time merged: %v", alts)
	}
}

// A fault made lighter is kept when it lets another go: a lost
// notification in place of a disconnect that needed a crash to keep the
// session, or a disconnect half as long that needs no crash. One that
// lets none go is not: the counterexample stays as found.
func TestMinimizeLightens(t *testing.T) {
	cut := "when c1 notified#5: disconnect c1 for 2.3s"
	crash := "at 18.9s crash s2 for 5.5s"
	fails := func(s fault.Schedule) bool {
		return has(s, "when c1 notified#5: lose-reply") || has(s, cut) && has(s, crash)
	}
	if got := FaultsLine(minimizeBy(fault.MustParseSchedule(cut+"; "+crash), fails)); got != "when c1 notified#5: lose-reply" {
		t.Fatalf("minimized to %q; want a lost notification alone", got)
	}
	fails = func(s fault.Schedule) bool {
		return has(s, crash) && (has(s, cut) || has(s, "when c1 notified#5: lose-reply"))
	}
	if got := FaultsLine(minimizeBy(fault.MustParseSchedule(crash+"; "+cut), fails)); got != crash+"; "+cut {
		t.Fatalf("minimized to %q; want it as found", got)
	}
	cut = "when c1 getData#9 applied: disconnect c1 for 2.3s"
	fails = func(s fault.Schedule) bool {
		return has(s, "when c1 getData#9 applied: disconnect c1 for 1.15s") || has(s, cut) && has(s, crash)
	}
	if got := FaultsLine(minimizeBy(fault.MustParseSchedule(cut+"; "+crash), fails)); got != "when c1 getData#9 applied: disconnect c1 for 1.15s" {
		t.Fatalf("minimized to %q; want the disconnect halved alone", got)
	}
}

// A timed fault is stretched in place of a hold-up removed: the failure
// needs c2's read inside s3's lag, and the delayed reply only moved the
// read into it; a lag from the run's start to where it ended plus the
// delay takes the read in without the delay. A removed fault that held
// nothing up stretches nothing.
func TestMinimizeStretches(t *testing.T) {
	lag, delay := "at 5s lag s3 for 1s", "when c2 getData#2 applied: delay 1.5s"
	fails := func(s fault.Schedule) bool {
		return has(s, lag) && has(s, delay) || has(s, "at 0s lag s3 for 7.5s")
	}
	if got := FaultsLine(minimizeBy(fault.MustParseSchedule(lag+"; "+delay), fails)); got != "at 0s lag s3 for 7.5s" {
		t.Fatalf("minimized to %q; want the lag stretched alone", got)
	}
	alts := stretched(fault.MustParseSchedule(lag+"; when c1 create#1 applied: lose-reply"), fault.MustParseSchedule(delay))
	if len(alts) != 2 || FaultsLine(alts[0]) != "at 5s lag s3 for 2.5s; when c1 create#1 applied: lose-reply" ||
		FaultsLine(alts[1]) != "at 0s lag s3 for 7.5s; when c1 create#1 applied: lose-reply" {
		t.Fatalf("stretched: %v", alts)
	}
	if alts := stretched(fault.MustParseSchedule(lag), fault.MustParseSchedule("when c1 create#1 applied: lose-reply")); len(alts) != 0 {
		t.Fatalf("stretched for a lost reply: %v", alts)
	}
}
