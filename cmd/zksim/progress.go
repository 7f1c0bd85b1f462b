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
	bar *progressbar.ProgressBar
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
