package sim

import (
	"context"
	"time"
)

// virtualCtx is a context whose deadline is in virtual time. It is a standard
// cancelable context (so contexts derived from it with context.WithCancel are
// cancelled synchronously, without a goroutine), ended by a scheduler event
// instead of a real timer.
type virtualCtx struct {
	context.Context
	deadline time.Time
	expired  *bool
}

func (c *virtualCtx) Deadline() (time.Time, bool) { return c.deadline, true }

func (c *virtualCtx) Err() error {
	err := c.Context.Err()
	if err != nil && *c.expired {
		return context.DeadlineExceeded
	}
	return err
}

// withTimeout is context.WithTimeout in virtual time: the context ends d after
// now, or earlier with its parent.
func (s *Scheduler) withTimeout(parent context.Context, d Time) (context.Context, context.CancelFunc) {
	inner, cancel := context.WithCancelCause(parent)
	expired := new(bool)
	deadline := (s.now + d).Wall()
	if pd, ok := parent.Deadline(); ok && pd.Before(deadline) {
		deadline = pd
	}
	tm := s.timerAfter(d, func() {
		if inner.Err() == nil {
			*expired = true
			cancel(context.DeadlineExceeded)
		}
	})
	return &virtualCtx{Context: inner, deadline: deadline, expired: expired}, func() {
		s.stopTimer(tm)
		cancel(context.Canceled)
	}
}
