package scenarios

import (
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"github.com/zksim/zksim/fault"
)

// liveProgress tells, every few seconds of a live run, where it stands and
// what it still waits for: the clients still running, the faults still to
// strike, and the time bound, so that a long run is never silent.
type liveProgress struct {
	out      io.Writer
	start    time.Time
	deadline time.Time
	names    []string
	done     []atomic.Bool // by client
	ok       atomic.Int64  // operations that returned OK
	timed    []fault.Fault // the timed faults, in order of their time
	stop     chan struct{}
	// quiet, when set, says how long nothing has returned, and when the
	// run ends for it (liveQuiet).
	quiet *liveQuiet
}

// progressEvery is how often a live run says where it stands.
const progressEvery = 5 * time.Second

func newLiveProgress(out io.Writer, names []string, timed []fault.Fault, bound time.Duration) *liveProgress {
	now := time.Now()
	return &liveProgress{out: out, start: now, deadline: now.Add(bound), names: names,
		done: make([]atomic.Bool, len(names)), timed: timed, stop: make(chan struct{})}
}

// run writes a line every progressEvery until end is called.
func (p *liveProgress) run() {
	t := time.NewTicker(progressEvery)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			fmt.Fprintln(p.out, p.line(time.Now()))
		}
	}
}

func (p *liveProgress) end() { close(p.stop) }

// line says where the run stands at now.
func (p *liveProgress) line(now time.Time) string {
	var running []string
	for i, name := range p.names {
		if !p.done[i].Load() {
			running = append(running, name)
		}
	}
	elapsed := now.Sub(p.start)
	msg := fmt.Sprintf("live: %s: %d of %d clients done, %d operations", elapsed.Round(time.Second),
		len(p.names)-len(running), len(p.names), p.ok.Load())
	var waits []string
	if len(running) > 0 {
		waits = append(waits, "clients "+strings.Join(running, ", "))
	}
	pending := 0
	for _, f := range p.timed {
		if f.At > elapsed {
			pending++
		}
	}
	if pending > 0 {
		waits = append(waits, fmt.Sprintf("%d timed faults to strike", pending))
	}
	if len(waits) > 0 {
		msg += "; waiting for " + strings.Join(waits, " and ")
	}
	if q := p.quiet; q != nil && len(running) > 0 {
		if still := q.quietFor(now); still >= progressEvery {
			msg += fmt.Sprintf("; nothing has returned for %s: at %s (the liveness bound, %s, and a session timeout) "+
				"the run ends and judges its waits as they stand", still.Round(time.Second), q.window.Round(time.Second),
				q.bound.Round(time.Second))
		}
	}
	return msg + fmt.Sprintf(" (the run ends at %s at the latest)", p.deadline.Sub(p.start).Round(time.Second))
}
