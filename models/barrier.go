package models

import (
	"cmp"
	"fmt"
	"slices"
)

func init() {
	register(Checker{
		Name:  "barrier",
		Kind:  Safety,
		Doc:   "nobody passes a barrier while its node exists",
		Check: checkBarrier,
	})
}

// checkBarrier is the barrier checker. It judges the barrier's safety
// property, on each Path: nobody passes while the barrier node exists.
//
// A Pass that returned OK is early when a Raise had returned OK at or
// before the Pass was called (so the node existed when it started to
// wait), and no Lower that could have removed that node had been called by
// the time the Pass returned. A Lower could have removed it if it was
// called at or before the Pass returned and had not returned before that
// Raise was called (a Lower over before the Raise began removed an earlier
// node); a Lower of any result counts but Failed, which says it did not
// happen. Of several Raises before a Pass, the latest-called is judged: a
// Lower late enough for it is late enough for the others.
//
// A Raise, a Lower or a Pass that failed and that its client made again
// is one with its retry (withRetries), called at its first call: a Remove
// whose delete was applied before its connection was lost lowered the
// barrier from then, though only its retry returned OK, and a waiter's
// Wait made again waited from its first call.
//
// All the early Passes on one Path are one violation: the barrier let
// them through while it was up.
func checkBarrier(in *Input) []Violation {
	paths, byPath := opsByPath(in.Ops, Raise, Lower, Pass)
	var out []Violation
	for _, p := range paths {
		if v, ok := earlyPasses(in, p, withRetries(byPath[p])); ok {
			out = append(out, v)
		}
	}
	sortViolations(out)
	return out
}

// earlyPasses finds the Passes on one barrier that returned while it was up.
func earlyPasses(in *Input, path string, ops []Operation) (Violation, bool) {
	type early struct{ pass, raise Operation }
	var found []early
	for _, p := range ops {
		if p.Kind != Pass || p.Result != OK {
			continue
		}
		var raise Operation
		raised := false
		for _, r := range ops {
			if r.Kind == Raise && r.Result == OK && r.Return <= p.Call && (!raised || r.Call > raise.Call) {
				raise, raised = r, true
			}
		}
		if !raised {
			continue
		}
		lowered := slices.ContainsFunc(ops, func(l Operation) bool {
			return l.Kind == Lower && l.Result != Failed && l.Call <= p.Return && l.Return >= raise.Call
		})
		if !lowered {
			found = append(found, early{p, raise})
		}
	}
	if len(found) == 0 {
		return Violation{}, false
	}
	slices.SortStableFunc(found, func(a, b early) int {
		return cmp.Or(cmp.Compare(a.pass.Return, b.pass.Return), cmp.Compare(a.pass.Client, b.pass.Client))
	})
	first := found[0]
	msg := fmt.Sprintf("c%d passed %s at %s (called at %s), but c%d had raised it at %s and no Lower that could have removed it had been called: nobody may pass while the barrier node exists",
		first.pass.Client+1, path, in.Since(first.pass.Return), in.Since(first.pass.Call), first.raise.Client+1, in.Since(first.raise.Return))
	var ops2, passes []Operation
	for _, f := range found {
		passes = append(passes, f.pass)
		if !slices.Contains(ops2, f.raise) {
			ops2 = append(ops2, f.raise)
		}
	}
	msg += alsoClients(in, passes[1:])
	ops2 = append(ops2, passes...)
	sortOps(ops2)
	return Violation{Check: "barrier", Kind: Safety, Object: path, At: first.pass.Return - in.Start, Message: msg, Ops: ops2}, true
}
