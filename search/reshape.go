package search

import (
	"slices"
	"time"

	"github.com/zksim/zksim/fault"
)

// The shrinker's moves beyond removing faults and renumbering triggers
// (minimize.go): each makes a schedule that minimize then runs, and keeps
// only if that run fails the same check.

// swapped are rest with two clients' names exchanged: for each client a
// removed fault was tied to or struck, and each other client the faults
// name. The clients of a workload do the same thing, and which of them
// comes first (wins a race for a lock, say) can hang on the faults
// removed: without them, the other client plays the part the remaining
// faults were aimed at.
func swapped(rest, removed fault.Schedule) []fault.Schedule {
	var named []int
	for _, f := range append(append(fault.Schedule{}, rest...), removed...) {
		named = append(named, clientsOf(f)...)
	}
	slices.Sort(named)
	named = slices.Compact(named)
	var out []fault.Schedule
	seen := map[[2]int]bool{}
	for _, r := range removed {
		for _, a := range clientsOf(r) {
			for _, b := range named {
				pair := [2]int{min(a, b), max(a, b)}
				if a == b || seen[pair] {
					continue
				}
				seen[pair] = true
				if alt, changed := relabeled(rest, a, b); changed {
					out = append(out, alt)
				}
			}
		}
	}
	return out
}

// clientsOf are the clients f is tied to or strikes (0-based).
func clientsOf(f fault.Fault) []int {
	var out []int
	if f.When != nil {
		out = append(out, f.When.Client)
	}
	for _, t := range []fault.Target{f.A, f.B} {
		if t.Kind == fault.ClientT {
			out = append(out, t.Index)
		}
	}
	return out
}

// relabeled is sched with clients a and b exchanged wherever a fault names
// them, and whether any does.
func relabeled(sched fault.Schedule, a, b int) (fault.Schedule, bool) {
	swap := func(c int) int {
		switch c {
		case a:
			return b
		case b:
			return a
		}
		return c
	}
	out := append(fault.Schedule{}, sched...)
	changed := false
	for i := range out {
		f := &out[i]
		for _, t := range []*fault.Target{&f.A, &f.B} {
			if t.Kind == fault.ClientT && swap(t.Index) != t.Index {
				t.Index, changed = swap(t.Index), true
			}
		}
		if f.When != nil && swap(f.When.Client) != f.When.Client {
			w := *f.When
			w.Client, f.When, changed = swap(w.Client), &w, true
		}
	}
	return out, changed
}

// draft is a schedule made from the counterexample's by removing faults
// and mending the rest, with the text each fault it keeps had there,
// position for position.
type draft struct {
	sched fault.Schedule
	was   []string
}

// timing compares a draft's run that did not fail (the probe) with the
// counterexample's (best): when the first removed fault struck in best
// (from), when each fault first struck in either, and the anchor: the
// draft's first trigger that struck in both at or after from.
type timing struct {
	from            time.Duration
	bestAt, probeAt map[string]time.Duration
	anchor          int
}

// timingOf is the timing of d's run probe against best, without the faults
// removed; false when none of those struck in best or no trigger kept
// struck after them in both runs.
func timingOf(d draft, removed fault.Schedule, best, probe []strike) (timing, bool) {
	tm := timing{bestAt: firstStrikes(best), probeAt: firstStrikes(probe), anchor: -1}
	struck := false
	for _, r := range removed {
		if at, ok := tm.bestAt[r.String()]; ok && (!struck || at < tm.from) {
			tm.from, struck = at, true
		}
	}
	for i, f := range d.sched {
		tb, inBest := tm.bestAt[d.was[i]]
		_, inProbe := tm.probeAt[f.String()]
		if !struck || f.When == nil || !inBest || !inProbe || tb < tm.from {
			continue
		}
		if tm.anchor < 0 || tb < tm.bestAt[d.was[tm.anchor]] {
			tm.anchor = i
		}
	}
	return tm, tm.anchor >= 0
}

// firstStrikes is when each fault (by its text) first struck.
func firstStrikes(struck []strike) map[string]time.Duration {
	at := map[string]time.Duration{}
	for _, s := range struck {
		if _, seen := at[s.text]; !seen {
			at[s.text] = s.at
		}
	}
	return at
}

// offsets are when d's fault i struck after the anchor, in best and in
// the probe, and whether it struck in both.
func (tm timing) offsets(d draft, i int) (time.Duration, time.Duration, bool) {
	tb, inBest := tm.bestAt[d.was[i]]
	tp, inProbe := tm.probeAt[d.sched[i].String()]
	a := tm.anchor
	return tb - tm.bestAt[d.was[a]], tp - tm.probeAt[d.sched[a].String()], inBest && inProbe
}

// retimed is d with its timed faults moved by as much as removing faults
// moved the run: a removed fault that held a client up (a lost
// connection, an expired session) delays all it does after, and the
// faults timed to strike among those doings strike elsewhere without it.
// The shift is how much sooner or later the anchor struck in the probe
// than in best; the timed faults from the first removed fault's strike on
// move by that much, and one moved before the run's start keeps what is
// left of it from 0, or goes. False when nothing moves.
func retimed(d draft, tm timing) (draft, bool) {
	a := tm.anchor
	shift := (tm.probeAt[d.sched[a].String()] - tm.bestAt[d.was[a]]).Round(time.Millisecond)
	if shift == 0 {
		return d, false
	}
	var out draft
	for i, f := range d.sched {
		if f.When == nil && f.At >= tm.from {
			var ok bool
			if f, ok = moved(f, shift); !ok {
				continue
			}
		}
		out.sched, out.was = append(out.sched, f), append(out.was, d.was[i])
	}
	return out, true
}

// recounted are d with one trigger after the anchor counting one or two
// events later, when in the probe it struck sooner after the anchor than
// in best, or earlier, when it struck later or not at all: removing a
// fault can leave a client with fewer requests to send again, or with
// more notifications (those it no longer missed while cut off), so a
// trigger's count can go either way. The anchor stays as it is.
func recounted(d draft, tm timing) []draft {
	var out []draft
	for i, f := range d.sched {
		ob, op, both := tm.offsets(d, i)
		if _, inBest := tm.bestAt[d.was[i]]; f.When == nil || i == tm.anchor || !inBest || ob < 0 {
			continue
		}
		dir := -1
		switch {
		case both && op < ob-time.Millisecond:
			dir = 1
		case both && op <= ob+time.Millisecond:
			continue // it struck where it did
		}
		for _, n := range []int{f.When.Nth + dir, f.When.Nth + 2*dir} {
			if n >= 1 {
				w := *f.When
				w.Nth = n
				alt := draft{append(fault.Schedule{}, d.sched...), d.was}
				alt.sched[i].When = &w
				out = append(out, alt)
			}
		}
	}
	return out
}

// moved is timed fault f struck d later (earlier, when negative). Moved
// before the run's start, it strikes at 0 for what is left of it, and is
// gone (false) when nothing is.
func moved(f fault.Fault, d time.Duration) (fault.Fault, bool) {
	f.At += d
	if f.At >= 0 {
		return f, true
	}
	n := length(f)
	switch {
	case n == 0:
		f.At = 0
	case f.At+n <= 0:
		return f, false
	default:
		f = withLength(f, f.At+n)
		f.At = 0
	}
	return f, true
}

// length is how long f lasts once struck: a pause's length, or how long
// until a crash, a cut or a slowdown is undone (0 for an instant, or for
// a fault never undone).
func length(f fault.Fault) time.Duration {
	switch f.Kind {
	case fault.Pause:
		return f.D
	case fault.Delay:
		return 0 // how late one message leaves, not a while
	}
	return f.For
}

// withLength is f lasting d (see length).
func withLength(f fault.Fault, d time.Duration) fault.Fault {
	if f.Kind == fault.Pause {
		f.D = d
	} else {
		f.For = d
	}
	return f
}

// merges are sched with two faults made one: one absorbed by the other,
// or two that take servers away replaced by a leader crash. Their windows
// (from when each struck in the counterexample's run to when it was
// undone) must overlap: it is together that they made the failure.
func merges(sched fault.Schedule, struck []strike) []fault.Schedule {
	at := firstStrikes(struck)
	var out []fault.Schedule
	for i, f := range sched {
		for j, g := range sched {
			fs, fe, ok1 := window(f, at)
			gs, ge, ok2 := window(g, at)
			if i == j || !ok1 || !ok2 || max(fs, gs) >= min(fe, ge) {
				continue
			}
			if absorbs(g, f) {
				out = append(out, absorbed(sched, i, j))
			}
			if i < j && takesServer(f) && takesServer(g) {
				out = append(out, leaderCrash(sched, i, j, max(fs, gs), min(fe, ge)))
			}
		}
	}
	return out
}

// window is when f struck in a run (by at) and when it was undone; false
// for a fault that did not strike or lasts no while.
func window(f fault.Fault, at map[string]time.Duration) (time.Duration, time.Duration, bool) {
	s, ok := at[f.String()]
	return s, s + length(f), ok && length(f) > 0
}

// absorbs says whether g can take over f: both act on the same client or
// server (a pause of c1 during a disconnect of c1).
func absorbs(g, f fault.Fault) bool {
	return f.A == g.A && (f.A.Kind == fault.ClientT || f.A.Kind == fault.ServerT)
}

// absorbed is sched without its fault i, and its fault j lasting longer
// by as long as i lasted: what i held up (a client's process, a server)
// stays held up as long, by j.
func absorbed(sched fault.Schedule, i, j int) fault.Schedule {
	out := append(fault.Schedule{}, sched...)
	out[j] = withLength(out[j], length(out[j])+length(out[i]))
	return append(out[:i], out[i+1:]...)
}

// takesServer says whether f takes a server away from the ensemble: a
// crash, an isolation, or a cut between two servers.
func takesServer(f fault.Fault) bool {
	server := func(t fault.Target) bool { return t.Kind == fault.ServerT || t.Kind == fault.LeaderT }
	switch f.Kind {
	case fault.Crash, fault.Isolate:
		return server(f.A)
	case fault.Partition, fault.OneWay:
		return server(f.A) && server(f.B)
	}
	return false
}

// leaderCrash is sched with its faults i and j (i < j), which took servers
// away together from 'from' to 'to', replaced by a crash of the leader
// over that while: either way the ensemble stops expiring sessions until a
// leader is elected again, and its clients lose their connections.
func leaderCrash(sched fault.Schedule, i, j int, from, to time.Duration) fault.Schedule {
	out := append(fault.Schedule{}, sched...)
	out[i] = fault.Fault{At: from.Round(time.Millisecond), Kind: fault.Crash, A: fault.Target{Kind: fault.LeaderT},
		For: (to - from).Round(time.Millisecond)}
	return append(out[:j], out[j+1:]...)
}

// lighter are lighter forms of f, the lightest first: a disconnect of the
// client whose request or notification triggers it made a lost reply (or
// a lost request: either drops the connection at once, and holds nothing
// up after), and f lasting half as long.
func lighter(f fault.Fault) []fault.Fault {
	var out []fault.Fault
	if w := f.When; w != nil && w.On != fault.OnHolds && f.Kind == fault.Disconnect &&
		f.A == (fault.Target{Kind: fault.ClientT, Index: w.Client}) {
		lost := fault.Fault{When: w, Kind: fault.LoseReply}
		if w.On == fault.OnReceived {
			lost.Kind = fault.LoseRequest
		}
		out = append(out, lost)
	}
	if half := (length(f) / 2).Round(time.Millisecond); half > 0 && half < length(f) {
		out = append(out, withLength(f, half))
	}
	return out
}

// stretched are rest with one of its timed faults that last a while made
// wider, when the fault removed held the run up (a delayed reply, a lost
// connection, a pause): that fault only moved when the clients did what
// they did, so that it fell inside the window of a fault kept (reads
// while a server lags, say); a wider window takes it in without the
// hold-up. Each such fault is tried lasting longer by the hold-up, and
// from the run's start until it ended plus the hold-up.
func stretched(rest, removed fault.Schedule) []fault.Schedule {
	var held time.Duration
	for _, r := range removed {
		held += holdUp(r)
	}
	if held == 0 {
		return nil
	}
	var out []fault.Schedule
	for i, f := range rest {
		n := length(f)
		if f.When != nil || n == 0 {
			continue
		}
		wider := []fault.Fault{withLength(f, n+held)}
		if f.At > 0 {
			from := withLength(f, f.At+n+held)
			from.At = 0
			wider = append(wider, from)
		}
		for _, g := range wider {
			alt := append(fault.Schedule{}, rest...)
			alt[i] = g
			out = append(out, alt)
		}
	}
	return out
}

// holdUp is how long f holds up what it strikes: a delayed reply's delay,
// or the while f lasts (length).
func holdUp(f fault.Fault) time.Duration {
	if f.Kind == fault.Delay {
		return f.D
	}
	return length(f)
}
