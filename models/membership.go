package models

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

func init() {
	register(Checker{
		Name:  "membership",
		Kind:  Liveness,
		Doc:   "every watcher's member list converges to the live members within the bound",
		Check: checkMembership,
	})
}

// checkMembership is the membership checker. It judges group membership's
// liveness property, on each group (Path): the member list that watching
// clients see converges to the live members within the bound
// (Input.BoundOrDefault).
//
// The live members follow the changes, in time order (at one instant, in
// the order the history has them, never by a tie-break): a member (Data)
// becomes live when its Join returns OK, and stops being live when its
// Leave returns OK or at the Call of its Fail (a Join after those makes it
// live again). T is the time of the last change (a Join's or a Leave's
// Return, a Fail's Call; the run's start when there is none), and the live
// set is the members live after it.
//
// If the run ended before T plus the bound, the views cannot be judged:
// when a watcher had a view, the run is undecided (never a pass). Else
// each watcher (a client with a View that returned OK on the group, whose
// own process did not stop, by a Fail, before T plus the bound) must see
// the live set: its last View must list exactly the live members, and no
// View of it returning after T plus the bound may differ. One violation
// per watcher that did not converge, with its last view and the live set,
// shown at its first wrong View after the deadline, or at the deadline.
//
// A Join or Leave of Unknown result is not a change: the member may or may
// not be in the group, and a workload's Join retries until it knows. Nor
// is one that Failed (it returned an error: the workload records each
// call, and calls again after an error a caller must expect), nor a
// Failed View a view: it listed nothing.
func checkMembership(in *Input) []Violation {
	stops := stopTimes(in.Ops)
	paths, byPath := opsByPath(in.Ops, Join, Leave, Fail, View)
	var out []Violation
	for _, p := range paths {
		out = append(out, unconverged(in, p, byPath[p], stops)...)
	}
	sortViolations(out)
	return out
}

// memberChange is a change of a group's members.
type memberChange struct {
	at     int64
	member string
	live   bool
	op     Operation
}

// memberChanges are a group's changes, in time order; ops are in the
// history's order (sortOps: by call).
func memberChanges(ops []Operation) []memberChange {
	var out []memberChange
	for _, op := range ops {
		switch {
		case op.Kind == Join && op.Result == OK:
			out = append(out, memberChange{op.Return, op.Data, true, op})
		case op.Kind == Leave && op.Result == OK:
			out = append(out, memberChange{op.Return, op.Data, false, op})
		case op.Kind == Fail && op.Data != "":
			out = append(out, memberChange{op.Call, op.Data, false, op})
		}
	}
	// At one instant, in the history's order (ops come sorted by call): a
	// join answered at once, as an idempotent one is, at the instant of
	// the leave before it is the last change, and the member is in; a
	// leave called as a join returned is the last, and it is out.
	slices.SortStableFunc(out, func(a, b memberChange) int { return cmp.Compare(a.at, b.at) })
	return out
}

// memberList renders a set of members as a View's OutData does: sorted,
// comma-separated.
func memberList(members []string) string {
	slices.Sort(members)
	return strings.Join(slices.Compact(members), ",")
}

// viewDiff says how a View's OutData differs from the members of list:
// who is missing from it, who is in it and no member.
func viewDiff(view, list string) string {
	seen, want := map[string]bool{}, map[string]bool{}
	for _, m := range strings.Split(view, ",") {
		if m = strings.TrimSpace(m); m != "" {
			seen[m] = true
		}
	}
	var missing, extra []string
	for _, m := range strings.Split(list, ",") {
		if m != "" {
			want[m] = true
			if !seen[m] {
				missing = append(missing, m)
			}
		}
	}
	for m := range seen {
		if !want[m] {
			extra = append(extra, m)
		}
	}
	slices.Sort(extra)
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, strings.Join(missing, ", ")+" missing from the view")
	}
	if len(extra) > 0 {
		parts = append(parts, strings.Join(extra, ", ")+" in it and no member")
	}
	return strings.Join(parts, "; ")
}

// sameMembers says whether a View's OutData lists exactly the members of
// list (memberList), in whatever order.
func sameMembers(view, list string) bool {
	var seen []string
	for _, m := range strings.Split(view, ",") {
		if m = strings.TrimSpace(m); m != "" {
			seen = append(seen, m)
		}
	}
	return memberList(seen) == list
}

// unconverged finds the watchers of one group whose view did not converge.
func unconverged(in *Input, path string, ops []Operation, stops map[int]int64) []Violation {
	changes := memberChanges(ops)
	live := map[string]bool{}
	last := in.Start
	for _, c := range changes {
		live[c.member], last = c.live, c.at
	}
	bound := int64(in.BoundOrDefault())
	deadline := last + bound
	if in.End < deadline {
		return tooSoon(in, path, ops, changes)
	}
	var members []string
	for m, ok := range live {
		if ok {
			members = append(members, m)
		}
	}
	want := memberList(members)
	views := Of(okOps(ops), View)
	slices.SortStableFunc(views, func(a, b Operation) int { return cmp.Compare(a.Return, b.Return) })
	var out []Violation
	for _, w := range clientsOf(views) {
		if stoppedBy(stops, w, deadline) {
			continue
		}
		var lastView, wrong Operation
		late := false
		for _, v := range views {
			if v.Client != w {
				continue
			}
			lastView = v
			if !late && v.Return > deadline && !sameMembers(v.OutData, want) {
				wrong, late = v, true
			}
		}
		if !late && sameMembers(lastView.OutData, want) {
			continue
		}
		at := deadline
		if late {
			at = wrong.Return
		}
		change, shown := lastChange(in, changes)
		var msg string
		q := NoQuestion
		if sameMembers(lastView.OutData, want) {
			msg = fmt.Sprintf("c%d saw %q in %s at %s, more than the bound (%s) after %s, though the live members are %q: a view must not differ from them after the bound",
				w+1, wrong.OutData, path, in.Since(wrong.Return), time.Duration(bound), change, want)
			shown = append(shown, wrong)
		} else {
			// Unconverged: a run can tell what struck the watcher after that view.
			msg = fmt.Sprintf("c%d's last view of %s, at %s, was %q, but the live members are %q since %s (%s): it did not converge within the bound (%s)",
				w+1, path, in.Since(lastView.Return), lastView.OutData, want, change, viewDiff(lastView.OutData, want), time.Duration(bound))
			q = Unconverged
			if late && wrong != lastView {
				msg += fmt.Sprintf("; it saw %q at %s", wrong.OutData, in.Since(wrong.Return))
				shown = append(shown, wrong)
			}
		}
		shown = append(shown, lastView)
		sortOps(shown)
		out = append(out, Violation{Check: "membership", Kind: Liveness, Object: path, At: at - in.Start, Message: msg, Ops: shown,
			Question: q})
	}
	return out
}

// tooSoon is the undecided verdict on a group whose run ended before its
// deadline (the last change plus the bound), when some client watched it;
// nil when nobody did, as there is nothing to judge.
func tooSoon(in *Input, path string, ops []Operation, changes []memberChange) []Violation {
	if len(Of(okOps(ops), View)) == 0 {
		return nil
	}
	change, shown := lastChange(in, changes)
	msg := fmt.Sprintf("the run ended at %s, before %s plus the bound (%s): whether the watchers' views of %s "+
		"converged could not be judged", in.Since(in.End), change, time.Duration(in.BoundOrDefault()), path)
	return []Violation{{Check: "membership", Kind: Undecided, Object: path, At: in.End - in.Start, Message: msg, Ops: shown}}
}

// lastChange words a group's last change, from which the bound runs, and
// the operation that made it (none when no member changed).
func lastChange(in *Input, changes []memberChange) (string, []Operation) {
	if len(changes) == 0 {
		return "the start of the run (no member changed)", nil
	}
	c := changes[len(changes)-1]
	return fmt.Sprintf("the last change (c%d's %s of %q, at %s)", c.op.Client+1, c.op.Kind, c.member, in.Since(c.at)),
		[]Operation{c.op}
}
