package models

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

func init() {
	register(Checker{
		Name:  "naming",
		Kind:  Safety,
		Doc:   "no two clients own a name, a name owned resolves to its owner's value, and none is left registered by nobody who knows it",
		Check: checkNaming,
	})
}

// checkNaming is the naming checker. It judges a name service's registry
// (Path); a Register's Data is "name=value", a Resolve's Data the name and
// OutData the value. Each name is its own object, reported as Path/name.
//
//   - Safety: two clients never both own a name. Two Registers of a name
//     that returned OK, by different clients with different values, are a
//     violation, unless the earlier one's client stopped (a Fail, on any
//     Path) before the later one returned: an ephemeral name goes with its
//     owner's session, and then another may take it (when its session
//     expired is not judged). Two registrations with the same value are
//     one binding (a persistent registry cannot tell them apart, and need
//     not). The workload never unregisters: a history with unregistrations
//     would need an Unregister operation for this check to follow them.
//     One violation per name.
//   - Liveness: no orphaned registration. A Resolve that returned OK with a
//     value that only Registers told NodeExists wrote (no Register of that
//     name and value returned OK, or Unknown, or Failed) shows a name whose
//     registrant was told it was taken: nobody who knows owns it, and
//     nobody else can register it. One violation per name, at the first
//     Resolve that shows it. A Register that failed with an error (Failed;
//     this workload records one Unknown, with its error, but a history
//     from elsewhere may say Failed) is as ambiguous as one of unknown
//     outcome: the error may have come after its create was applied, and
//     its caller knows it may own the name, so its name seen registered is
//     not an orphan.
//   - Safety: a name once owned resolves to its owner's value. A Resolve
//     called after a Register returned OK, whose client had not stopped
//     by then, must return that Register's value: NoNode says the name
//     was lost, another value that someone else's registration overwrote
//     it (or that the Resolve read a server behind the registration: a
//     Resolve syncs first). One violation per name, at the first Resolve
//     that shows it.
func checkNaming(in *Input) []Violation {
	stops := stopTimes(in.Ops)
	paths, byPath := opsByPath(in.Ops, Register, Resolve)
	var out []Violation
	for _, p := range paths {
		ops := byPath[p]
		out = append(out, twoOwners(in, p, ops, stops)...)
		out = append(out, orphanedNames(in, p, ops)...)
		out = append(out, lostNames(in, p, ops, stops)...)
	}
	sortViolations(out)
	return out
}

// binding splits a Register's Data into the name and its value.
func binding(op Operation) (name, value string) {
	name, value, _ = strings.Cut(op.Data, "=")
	return name, value
}

// registrations groups the Registers of ops by name, and returns the names
// sorted.
func registrations(ops []Operation) ([]string, map[string][]Operation) {
	byName := map[string][]Operation{}
	var names []string
	for _, op := range Of(ops, Register) {
		n, _ := binding(op)
		if _, ok := byName[n]; !ok {
			names = append(names, n)
		}
		byName[n] = append(byName[n], op)
	}
	slices.Sort(names)
	return names, byName
}

// twoOwners finds the names of one registry that two clients were told
// they own at once.
func twoOwners(in *Input, path string, ops []Operation, stops map[int]int64) []Violation {
	names, byName := registrations(ops)
	var out []Violation
	for _, n := range names {
		owners := Of(okOps(byName[n]), Register)
		slices.SortStableFunc(owners, func(a, b Operation) int {
			return cmp.Or(cmp.Compare(a.Return, b.Return), cmp.Compare(a.Client, b.Client))
		})
		var first, second Operation
		found := false
		for j, later := range owners {
			for _, earlier := range owners[:j] {
				_, ev := binding(earlier)
				_, lv := binding(later)
				if earlier.Client != later.Client && ev != lv && !stoppedBy(stops, earlier.Client, later.Return) {
					first, second, found = earlier, later, true
					break
				}
			}
			if found {
				break
			}
		}
		if !found {
			continue
		}
		_, fv := binding(first)
		_, sv := binding(second)
		msg := fmt.Sprintf("c%d registered %q as %q at %s, and c%d registered it as %q at %s while c%d still owned it: two clients never both own a name",
			first.Client+1, n, fv, in.Since(first.Return), second.Client+1, sv, in.Since(second.Return), first.Client+1)
		sortOps(owners)
		out = append(out, Violation{Check: "naming", Kind: Safety, Object: path + "/" + n, At: second.Return - in.Start, Message: msg, Ops: owners})
	}
	return out
}

// orphanedNames finds the names of one registry resolved to a value that
// nobody who knows registered.
func orphanedNames(in *Input, path string, ops []Operation) []Violation {
	_, byName := registrations(ops)
	resolves := Of(okOps(ops), Resolve)
	slices.SortStableFunc(resolves, func(a, b Operation) int {
		return cmp.Or(cmp.Compare(a.Return, b.Return), cmp.Compare(a.Client, b.Client))
	})
	reported := map[string]bool{}
	var out []Violation
	for _, r := range resolves {
		n := r.Data
		if reported[n] {
			continue
		}
		var refused []Operation // the Registers of this value told it was taken
		mayOwn := false         // a Register of this value owns it, or may
		for _, reg := range byName[n] {
			if _, v := binding(reg); v != r.OutData {
				continue
			}
			switch reg.Result {
			case OK, Unknown, Failed:
				mayOwn = true
			case NodeExists:
				refused = append(refused, reg)
			}
		}
		if mayOwn || len(refused) == 0 {
			continue
		}
		reported[n] = true
		reg := refused[0]
		msg := fmt.Sprintf("c%d resolved %q to %q at %s, the value of c%d's Register called at %s, which was told the name was taken: nobody who knows owns the name, and nobody else can register it",
			r.Client+1, n, r.OutData, in.Since(r.Return), reg.Client+1, in.Since(reg.Call))
		shown := append(refused, r)
		sortOps(shown)
		out = append(out, Violation{Check: "naming", Kind: Liveness, Object: path + "/" + n, At: r.Return - in.Start, Message: msg, Ops: shown})
	}
	return out
}

// lostNames finds the names of one registry that a Resolve did not find
// bound to the value its owner was told it owns.
func lostNames(in *Input, path string, ops []Operation, stops map[int]int64) []Violation {
	_, byName := registrations(ops)
	resolves := slices.DeleteFunc(Of(ops, Resolve), func(r Operation) bool { return r.Result != OK && r.Result != NoNode })
	sortOps(resolves)
	reported := map[string]bool{}
	var out []Violation
	for _, r := range resolves {
		n := r.Data
		owner, ok := ownerAt(byName[n], r.Call, stops)
		if reported[n] || !ok {
			continue
		}
		_, want := binding(owner)
		if r.Result == OK && r.OutData == want {
			continue
		}
		reported[n] = true
		got := "was told there is no such name"
		if r.Result == OK {
			got = fmt.Sprintf("got %q", r.OutData)
		}
		msg := fmt.Sprintf("c%d registered %q as %q at %s, and c%d, resolving it at %s, %s: a name stays bound to its owner's value",
			owner.Client+1, n, want, in.Since(owner.Return), r.Client+1, in.Since(r.Call), got)
		out = append(out, Violation{Check: "naming", Kind: Safety, Object: path + "/" + n, At: r.Return - in.Start,
			Message: msg, Ops: []Operation{owner, r}})
	}
	return out
}

// ownerAt is the Register of regs that owned its name at t: the first to
// return OK by t whose client had not stopped by t.
func ownerAt(regs []Operation, t int64, stops map[int]int64) (Operation, bool) {
	var owner Operation
	found := false
	for _, reg := range regs {
		if reg.Result == OK && reg.Return < t && !stoppedBy(stops, reg.Client, t) && (!found || reg.Return < owner.Return) {
			owner, found = reg, true
		}
	}
	return owner, found
}
