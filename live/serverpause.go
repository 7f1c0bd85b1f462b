package live

import (
	"fmt"
	"syscall"
	"time"
)

// Pause stops server i's process (SIGSTOP) for d, then lets it go on
// (SIGCONT), as a long garbage-collection pause or a frozen virtual
// machine does: it reads and sends nothing meanwhile, heartbeats
// included, while its connections stay open and what it is sent waits for
// it. A server killed meanwhile stays dead (Kill works on a stopped
// process; the late SIGCONT finds it gone).
func (e *Ensemble) Pause(i int, d time.Duration) error {
	s := e.Servers[i]
	s.mu.Lock()
	cmd := s.cmd
	s.mu.Unlock()
	if cmd == nil {
		return fmt.Errorf("s%d is not running", s.ID)
	}
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		return fmt.Errorf("pausing s%d: %w", s.ID, err)
	}
	fmt.Fprintf(e.log, "live: s%d paused for %s\n", s.ID, d)
	time.AfterFunc(d, func() {
		if cmd.Process.Signal(syscall.SIGCONT) == nil {
			fmt.Fprintf(e.log, "live: s%d resumed\n", s.ID)
		}
	})
	return nil
}
