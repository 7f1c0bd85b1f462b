package models

import (
	"fmt"
	"path"
	"strings"
)

func init() {
	register(Checker{
		Name:  "leaks",
		Kind:  Safety,
		Doc:   "no node is left behind by a client that finished and closed its session (its recipe's directories aside)",
		Check: checkLeaks,
	})
}

// Leftover is a node still there at the end of a run whose maker closed
// its session, as the world that ran the history saw it. Closed is on the
// history's clock.
type Leftover struct {
	Path    string `json:"path"`
	Creator int64  `json:"creator_session"`
	Client  int    `json:"client"`
	Closed  int64  `json:"closed_ns"`
}

// checkLeaks is the leaks checker, a check a user requires of a recipe that
// promises to clean up after itself: every node left at the end of the run
// (Input.Leftovers) by a client that had finished and closed its session
// is reported, with the session that made it, except the recipe's
// objects and the directories above them (a Path of the history, or an
// ancestor of one: the lock node, the queue node, which the clients
// share). One violation per object (the history Path the node is under,
// else its parent), naming the first nodes.
func checkLeaks(in *Input) []Violation {
	objects := map[string]bool{}
	for _, op := range in.Ops {
		for p := op.Path; p != "" && p != "/" && p != "."; p = path.Dir(p) {
			objects[p] = true
		}
	}
	byObject := map[string][]Leftover{}
	var order []string
	for _, l := range in.Leftovers {
		if objects[l.Path] {
			continue
		}
		obj := objectOf(l.Path, objects)
		if _, ok := byObject[obj]; !ok {
			order = append(order, obj)
		}
		byObject[obj] = append(byObject[obj], l)
	}
	var out []Violation
	for _, obj := range order {
		ls := byObject[obj]
		var named []string
		for _, l := range ls[:min(len(ls), 3)] {
			named = append(named, fmt.Sprintf("%s (made by %s's session %#x, closed at %s)", l.Path,
				sessionClient(l.Client), l.Creator, in.Since(l.Closed)))
		}
		msg := fmt.Sprintf("%d %s left behind by clients that had finished and closed their sessions: %s",
			len(ls), plural(len(ls), "node was", "nodes were"), strings.Join(named, ", "))
		if len(ls) > 3 {
			msg += fmt.Sprintf(", and %d more", len(ls)-3)
		}
		out = append(out, Violation{Check: "leaks", Kind: Safety, Object: obj, At: in.End - in.Start, Message: msg})
	}
	sortViolations(out)
	return out
}

// objectOf is the nearest ancestor of p among objects, or p's parent.
func objectOf(p string, objects map[string]bool) string {
	for q := path.Dir(p); q != "/" && q != "."; q = path.Dir(q) {
		if objects[q] {
			return q
		}
	}
	return path.Dir(p)
}
