package models

import (
	"fmt"

	"github.com/zksim/zksim/client"
)

// queueMistake explains a queue that no linearization fits by the first
// thing the history shows that no queue allows: an item taken twice, an
// item taken that nobody put, or (fifo) an item taken while one put before
// it, whose put had returned before the other's was called, was still in
// the queue, or (priority) one taken while a more urgent one, put and
// returned before the take was called, was still there. It names the
// operations; "" when it cannot tell (the order is broken only among
// operations that overlap).
func queueMistake(ops []Operation, priority bool) (string, []Operation) {
	puts := map[string]Operation{}
	var putOrder []Operation // the puts in the history's order: the one named is the same on every run
	for _, p := range ops {
		if p.Kind == Put && p.Result != Failed {
			puts[p.Data] = p
			putOrder = append(putOrder, p)
		}
	}
	var takes []Operation
	for _, t := range ops {
		if t.Kind == Take && t.Result == OK {
			takes = append(takes, t)
		}
	}
	if why, named := takenTwice(takes, puts); why != "" {
		return why, named
	}
	for _, t := range takes {
		p, ok := puts[t.OutData]
		if !ok {
			return fmt.Sprintf("c%d took %q at %s, which nobody put", t.Client+1, t.OutData, client.FormatTime(t.Return)), []Operation{t}
		}
		for _, q := range putOrder {
			if q != puts[q.Data] {
				continue // put again later: the later put stands, as in the map
			}
			if q.Data == p.Data || q.Result != OK || q.Return >= t.Call || !stillThere(q, takes, t) {
				continue
			}
			switch {
			case !priority && q.Return < p.Call:
				return fmt.Sprintf("c%d took %q at %s, put by c%d at %s, while %q, put by c%d before that put was called "+
					"(returned at %s), was still in the queue: not first in, first out", t.Client+1, t.OutData,
					client.FormatTime(t.Return), p.Client+1, client.FormatTime(p.Call), q.Data, q.Client+1, client.FormatTime(q.Return)), []Operation{q, p, t}
			case priority && q.Priority < p.Priority:
				return fmt.Sprintf("c%d took %q (priority %d) at %s while %q (priority %d, more urgent), put by c%d and "+
					"returned at %s, before the take was called, was still in the queue", t.Client+1, t.OutData, p.Priority,
					client.FormatTime(t.Return), q.Data, q.Priority, q.Client+1, client.FormatTime(q.Return)), []Operation{q, p, t}
			}
		}
	}
	return "", nil
}

// takenTwice is the first item two takes returned.
func takenTwice(takes []Operation, puts map[string]Operation) (string, []Operation) {
	first := map[string]Operation{}
	for _, t := range takes {
		if a, dup := first[t.OutData]; dup {
			why := fmt.Sprintf("%q was taken twice: by c%d at %s and by c%d at %s", t.OutData, a.Client+1,
				client.FormatTime(a.Return), t.Client+1, client.FormatTime(t.Return))
			named := []Operation{a, t}
			if p, ok := puts[t.OutData]; ok {
				why += fmt.Sprintf(" (c%d put it with one call, at %s, %s)", p.Client+1, client.FormatTime(p.Call), putOutcome(p))
				named = append([]Operation{p}, named...)
			}
			return why, named
		}
		first[t.OutData] = t
	}
	return "", nil
}

// putOutcome says how a put ended, as its client saw it.
func putOutcome(p Operation) string {
	if p.Result == Unknown {
		return "and did not learn whether it went in: its reply was lost"
	}
	return "which returned " + string(p.Result)
}

// stillThere reports whether item q, put, had not been taken by the time
// take t was called (no take of it returned before then).
func stillThere(q Operation, takes []Operation, t Operation) bool {
	for _, o := range takes {
		if o.OutData == q.Data && o.Return < t.Call {
			return false
		}
	}
	return true
}
