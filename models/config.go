package models

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

func init() {
	register(Checker{
		Name:  "config",
		Kind:  Safety,
		Doc:   "a reader never sees configuration versions go back, and hears of the latest within the bound",
		Check: checkConfig,
	})
}

// checkConfig is the config checker. It judges a configuration node (Path)
// and its readers:
//
//   - Safety: a reader never sees versions go back. For each reader client,
//     its Reads that returned OK, in the order they returned, never show a
//     lower OutVersion than an earlier one. One violation per reader and
//     Path: its first step back.
//   - Liveness: a reader hears of the latest configuration. If the
//     highest-version Write that returned OK did so at T, and the run went
//     on until T plus the bound (Input.BoundOrDefault), every reader (a
//     client with a Read on that Path, whose own process did not stop, by
//     a Fail, before T plus the bound) must have read that version or a
//     higher one. One violation per reader that did not, shown at T plus
//     the bound.
//
// A Write of Unknown result is not known to have written a version; it
// does not count as the latest.
func checkConfig(in *Input) []Violation {
	stops := stopTimes(in.Ops)
	paths, byPath := opsByPath(in.Ops, Write, Read)
	var out []Violation
	for _, p := range paths {
		ops := byPath[p]
		out = append(out, versionsBack(in, p, ops)...)
		out = append(out, unheardConfig(in, p, ops, stops)...)
	}
	sortViolations(out)
	return out
}

// readsOf is client's Reads of ops that returned OK, in the order they
// returned.
func readsOf(ops []Operation, client int) []Operation {
	var out []Operation
	for _, op := range ops {
		if op.Kind == Read && op.Result == OK && op.Client == client {
			out = append(out, op)
		}
	}
	slices.SortStableFunc(out, func(a, b Operation) int {
		return cmp.Or(cmp.Compare(a.Return, b.Return), cmp.Compare(a.Call, b.Call))
	})
	return out
}

// versionsBack finds the readers of one configuration that saw its version
// go back.
func versionsBack(in *Input, path string, ops []Operation) []Violation {
	var out []Violation
	for _, c := range clientsOf(Of(ops, Read)) {
		// newest: the newest read so far; back: the first read older than
		// one before it; before: the newest read when back came.
		var newest, before, back Operation
		wrong, more := false, 0
		for i, r := range readsOf(ops, c) {
			switch {
			case i == 0 || r.OutVersion > newest.OutVersion:
				newest = r
			case r.OutVersion == newest.OutVersion:
			case !wrong:
				before, back, wrong = newest, r, true
			default:
				more++
			}
		}
		if !wrong {
			continue
		}
		msg := fmt.Sprintf("c%d read version %d of %s at %s, after it had read version %d at %s: a reader must never go back to an older configuration",
			c+1, back.OutVersion, path, in.Since(back.Return), before.OutVersion, in.Since(before.Return))
		if more > 0 {
			msg += fmt.Sprintf(" (later, %d more of its reads were older than one it had read)", more)
		}
		out = append(out, Violation{Check: "config", Kind: Safety, Object: path, At: back.Return - in.Start, Message: msg,
			Ops: []Operation{before, back}})
	}
	return out
}

// unheardConfig finds the readers of one configuration that never read its
// latest version, though the run went on long enough after it; a run that
// ended sooner, with a reader that had not read it yet, is undecided.
func unheardConfig(in *Input, path string, ops []Operation, stops map[int]int64) []Violation {
	var latest Operation
	written := false
	for _, w := range ops {
		if w.Kind == Write && w.Result == OK && (!written || w.OutVersion > latest.OutVersion ||
			w.OutVersion == latest.OutVersion && w.Return < latest.Return) {
			latest, written = w, true
		}
	}
	bound := int64(in.BoundOrDefault())
	deadline := latest.Return + bound
	if !written {
		return nil
	}
	var out []Violation
	for _, c := range clientsOf(Of(ops, Read)) {
		if stoppedBy(stops, c, min(deadline, in.End)) {
			continue
		}
		reads := readsOf(ops, c)
		if slices.ContainsFunc(reads, func(r Operation) bool { return r.OutVersion >= latest.OutVersion }) {
			continue
		}
		if in.End < deadline {
			// Not heard of yet, and the run ended before the bound.
			return []Violation{{Check: "config", Kind: Undecided, Object: path, At: in.End - in.Start, Ops: []Operation{latest},
				Message: fmt.Sprintf("the run ended at %s, before the latest version of %s (%d, written by c%d at %s) plus "+
					"the bound (%s), and c%d had not read it: whether every reader hears of it could not be judged",
					in.Since(in.End), path, latest.OutVersion, latest.Client+1, in.Since(latest.Return), time.Duration(bound), c+1)}}
		}
		msg := fmt.Sprintf("c%d never read version %d of %s, which c%d wrote at %s", c+1, latest.OutVersion, path, latest.Client+1, in.Since(latest.Return))
		shown := []Operation{latest}
		if n := len(reads); n > 0 {
			msg += fmt.Sprintf("; its last read, at %s, was of version %d", in.Since(reads[n-1].Return), reads[n-1].OutVersion)
			shown = append(shown, reads[n-1])
		} else {
			msg += "; it read none at all"
		}
		msg += fmt.Sprintf(": a reader must hear of the latest configuration within the bound (%s)", time.Duration(bound))
		sortOps(shown)
		out = append(out, Violation{Check: "config", Kind: Liveness, Object: path, At: deadline - in.Start, Message: msg, Ops: shown})
	}
	return out
}
