package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress shows long work on stderr: a bar with the seeds done, the
// violations found and the rate. It is off when stderr is not a terminal
// or the output is JSON, so logs and pipes get no control characters.
type progress struct {
	bar  *progressbar.ProgressBar
	line *progressLine
}

// progressLine is progress off a terminal: a plain line every few seconds
// (never within the first), for a log that must see long work move.
type progressLine struct {
	w          io.Writer
	what, unit string
	every      time.Duration
	start      time.Time
	next       time.Time
}

// newProgressLines shows progress on w as plain lines, every so often,
// when w is not a terminal (a bar when it is): "explore lock-faults: 1234
// schedules run, 0 failing, 10s".
func newProgressLines(w io.Writer, what, unit string, every time.Duration) *progress {
	if isTerminal(w) {
		return newProgress(w, -1, what, true)
	}
	now := time.Now()
	return &progress{line: &progressLine{w: w, what: what, unit: unit, every: every, start: now, next: now.Add(every)}}
}

// show prints the line if it is due.
func (l *progressLine) show(done, violations int) {
	if now := time.Now(); now.After(l.next) {
		l.next = now.Add(l.every)
		fmt.Fprintf(l.w, "%s: %d %s run, %d failing, %s\n", l.what, done, l.unit, violations,
			now.Sub(l.start).Round(time.Second))
	}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// newProgress starts a bar of total steps on w, if w is a terminal and on.
func newProgress(w io.Writer, total int, what string, on bool) *progress {
	if !on || !isTerminal(w) {
		return &progress{}
	}
	return &progress{bar: progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("seeds"),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)}
}

// set shows done steps and the violations found so far. It may be called
// from several goroutines at once.
func (p *progress) set(done, violations int) {
	if p.line != nil {
		p.line.show(done, violations)
		return
	}
	if p.bar == nil {
		return
	}
	if violations > 0 {
		p.bar.Describe(fmt.Sprintf("%d violations", violations))
	}
	_ = p.bar.Set(done)
}

// done clears the bar.
func (p *progress) done() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
