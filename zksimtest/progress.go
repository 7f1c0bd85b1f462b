package zksimtest

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// progressLine prints, every few seconds of a search, how far it got: a
// slow implementation shows that it is running, not hung.
type progressLine struct {
	mu     sync.Mutex
	out    io.Writer
	name   string
	what   string // what is counted: "seeds", "schedules", "shrinking runs"
	seeds  int    // how many there are to run; 0: not known
	start  time.Time
	last   time.Time
	runs   int
	failed int
	shown  bool
}

// progressEvery is how often the line is printed.
const progressEvery = 3 * time.Second

func newProgressLine(out io.Writer, name, what string, seeds int) *progressLine {
	now := time.Now()
	return &progressLine{out: out, name: name, what: what, seeds: seeds, start: now, last: now}
}

// seen is search.Sweep's Progress: called after each seed, from
// several goroutines.
func (p *progressLine) seen(done, failed int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.runs, p.failed = done, failed
	if now := time.Now(); now.Sub(p.last) >= progressEvery {
		p.last = now
		p.shown = true
		of := ""
		if p.seeds > 0 {
			of = fmt.Sprintf(" of %d", p.seeds)
		}
		fmt.Fprintf(p.out, "zksimtest: %s: %d%s %s, %d failing, %s\n",
			p.name, done, of, p.what, failed, now.Sub(p.start).Round(time.Second))
	}
}

// done ends the line, if it was ever shown.
func (p *progressLine) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprintf(p.out, "zksimtest: %s: done: %d %s, %d failing, in %s\n",
			p.name, p.runs, p.what, p.failed, time.Since(p.start).Round(time.Millisecond))
	}
}
