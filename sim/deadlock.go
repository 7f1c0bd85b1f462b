package sim

import (
	"fmt"
	"strings"

	"github.com/zksim/zksim/client"
)

// DeadlockError reports a run in which no client could run and nothing that
// could wake one was pending. Waits says what each task of each client
// waited on: the reply, watch, session event or timer it waited for, or
// the mutex (and its holder), event, mailbox or task of its own process.
type DeadlockError struct {
	At    Time
	Waits []TaskWait
}

func (e *DeadlockError) Error() string {
	return fmt.Sprintf("deadlock at %s: no client can run and nothing pending can wake one%s",
		strings.TrimSpace(e.At.String()), waitLines(e.Waits))
}

// TaskWait is what one task waited on when its run ended: the task ("c2",
// or "c2/event-thread" for one it started with Go) and its wait in words
// ("waiting for event "wake" to be set").
type TaskWait struct {
	Task string
	Wait string
	// OnItsProcess: it waited only on its own process (a mutex, an event,
	// a mailbox, a task, or a Select of only those): nothing a server
	// does could have ended the wait, only another of its process's tasks.
	OnItsProcess bool
}

func (w TaskWait) String() string { return w.Task + ": " + w.Wait }

// waitLines is ws, one a line, each indented under the error's first line.
func waitLines(ws []TaskWait) string {
	var b strings.Builder
	for _, w := range ws {
		b.WriteString("\n  " + w.String())
	}
	return b.String()
}

// deadlock is the error of a run that can go no further: what every task
// not yet done waits on.
func (s *Scheduler) deadlock() error {
	d := &DeadlockError{At: s.now}
	for _, t := range s.tasks {
		if t.state == taskDone {
			continue
		}
		d.Waits = append(d.Waits, TaskWait{Task: t.name, Wait: t.waitingOn(), OnItsProcess: t.waitsOnItsProcess()})
	}
	return d
}

// waitsOnItsProcess reports whether t is parked on its own process's
// mutex, event, mailbox or task, or a Select of only those.
func (t *Task) waitsOnItsProcess() bool {
	if t.state != taskParked {
		return false
	}
	switch t.waitKind {
	case waitMutex, waitEvent, waitTask:
		return true
	case waitSelect:
		for _, w := range t.waitSet {
			if x, ok := w.(client.Waiter); ok {
				w = x.WaitsOn()
			}
			switch w.(type) {
			case *simEvent, *simTask:
			default:
				return false
			}
		}
		return len(t.waitSet) > 0
	}
	return false
}
