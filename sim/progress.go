package sim

import (
	"fmt"
	"strings"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/trace"
)

// Progress marks that a client made progress: the workload calls it when
// one of the recipe's operations returns (a lock acquired, an item taken).
// With Config.ProgressBound, a run in which no client makes progress and
// the data tree does not change for that long is ended (NoProgressError):
// clients that poll on timers instead of waiting on watches never
// deadlock, and would otherwise run to the virtual-time budget.
func (w *World) Progress() { w.progressAt = w.s.now }

// noteTreeChange counts a transaction a server applied now as progress if
// it changed the data tree: it succeeded, and is no session's opening or
// closing.
func (w *World) noteTreeChange(a *applied) {
	if a.res.code == trace.CodeOK && a.t.op != client.OpCreateSession && a.t.op != client.OpCloseSession {
		w.progressAt = w.s.now
	}
}

// watchProgress checks, as a background event, that something happened
// within the last ProgressBound: a client's progress or a change of the
// data tree.
func (w *World) watchProgress() {
	bound := Time(w.cfg.ProgressBound)
	var check func()
	check = func() {
		if w.s.live == 0 || w.s.failure != nil {
			return
		}
		if w.s.now-w.progressAt >= bound {
			d := w.s.deadlock().(*DeadlockError)
			w.s.record(trace.Record{Kind: trace.KNote, From: trace.WorldActor,
				Path: fmt.Sprintf("no progress for %s: the run ends", strings.TrimSpace(bound.String()))})
			w.s.failure = &NoProgressError{At: w.s.now, Since: w.progressAt, Bound: w.cfg.ProgressBound, Waits: d.Waits}
			return
		}
		w.s.background(w.progressAt+bound, check)
	}
	w.s.background(bound, check)
}

// NoProgressError reports a run ended because no client made progress and
// the data tree did not change for Bound (since Since): the clients were
// running, polling or waiting, but nothing they waited for could come.
// Waits says what each task was doing when it ended.
type NoProgressError struct {
	At, Since Time
	Bound     time.Duration
	Waits     []TaskWait
}

func (e *NoProgressError) Error() string {
	return fmt.Sprintf("no progress at %s: no client made progress and the data tree did not change for %s (since %s)%s",
		strings.TrimSpace(e.At.String()), e.Bound, strings.TrimSpace(e.Since.String()), waitLines(e.Waits))
}
