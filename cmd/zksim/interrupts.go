package main

import (
	"context"
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"
	"time"
)

// The command's interrupts. One SIGINT or SIGTERM stops the work, each
// command its own way (a search ends with the verdict of the seeds that
// ran, a live run ends its clients and reports them); a second one stops
// at once, exit 130. Signals that come within interruptWindow of the one
// before are the same interrupt: GNU timeout and many CI runners signal
// both the process and its group, so one interrupt arrives twice within
// milliseconds, and taking the second for "stop at once" lost the verdict
// the first was to keep.
//
// Once a command has listened for an interrupt, the process listens until
// it exits, so that a late copy of an interrupt already handled never
// meets Go's default action (to die of it, saying nothing); an interrupt
// that no one listens for ends the process with exit 130, as the default
// action would have, by its status.

// interruptWindow is how close together two signals are one interrupt.
const interruptWindow = 500 * time.Millisecond

// interrupts is the process's one listener for SIGINT and SIGTERM, and
// those it passes each interrupt on to.
var interrupts struct {
	once sync.Once
	mu   sync.Mutex
	subs []chan<- os.Signal
	last time.Time // when the last interrupt came
}

// notifyInterrupts has ch sent each interrupt (a signal within
// interruptWindow of the last is not sent again) until stop is called.
// ch should be buffered: an interrupt ch is not ready for is dropped.
func notifyInterrupts(ch chan<- os.Signal) (stop func()) {
	interrupts.once.Do(listenInterrupts)
	interrupts.mu.Lock()
	interrupts.subs = append(interrupts.subs, ch)
	interrupts.mu.Unlock()
	return func() {
		interrupts.mu.Lock()
		defer interrupts.mu.Unlock()
		if i := slices.Index(interrupts.subs, ch); i >= 0 {
			interrupts.subs = slices.Delete(interrupts.subs, i, i+1)
		}
	}
}

// listenInterrupts starts the process's listener.
func listenInterrupts() {
	raw := make(chan os.Signal, 8)
	signal.Notify(raw, os.Interrupt, syscall.SIGTERM)
	go func() {
		for s := range raw {
			deliverInterrupt(s, time.Now())
		}
	}()
}

// deliverInterrupt passes s, come at now, to the listeners, unless it is
// a copy of the last interrupt; with no listener, the process ends.
func deliverInterrupt(s os.Signal, now time.Time) {
	interrupts.mu.Lock()
	defer interrupts.mu.Unlock()
	if !interrupts.last.IsZero() && now.Sub(interrupts.last) < interruptWindow {
		return // the same interrupt, delivered to the process and to its group
	}
	interrupts.last = now
	if len(interrupts.subs) == 0 {
		os.Exit(130)
	}
	for _, ch := range interrupts.subs {
		select {
		case ch <- s:
		default:
		}
	}
}

// interruptContext is a context that ends at the next interrupt, or when
// stop is called (which stops listening), as signal.NotifyContext's does.
func interruptContext() (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 1)
	unsubscribe := notifyInterrupts(ch)
	done := make(chan struct{})
	go func() {
		select {
		case <-ch:
			cancel()
		case <-done:
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			unsubscribe()
			close(done)
			cancel()
		})
	}
}
