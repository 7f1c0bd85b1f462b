package live

import (
	"fmt"
	"time"
)

// leadHighest makes the highest-numbered server the ensemble's leader, as
// it is in the simulator when a run starts: a scenario that names its
// servers ("partition s1 s3", the leader s3 cut from a follower) then means
// the same in both worlds. A fresh ensemble elects the highest id when all
// its servers vote together, but one that starts late finds a quorum
// already formed and follows. Then the leader is killed: the servers left,
// every one with the same history, elect the highest id among them, which
// is the highest of all; the killed server is restarted as a follower.
func (e *Ensemble) leadHighest(ready time.Duration) error {
	top := len(e.Servers) - 1
	for attempt := 1; top > 0; attempt++ {
		l := e.Leader()
		if l == top {
			return nil
		}
		if attempt > 3 {
			return fmt.Errorf("s%d leads after %d elections, not s%d as in the simulator (logs in %s)", l+1, attempt-1, top+1, e.Dir)
		}
		fmt.Fprintf(e.log, "live: s%d leads; the simulator starts with s%d: a new election\n", l+1, top+1)
		if l >= 0 {
			if err := e.Kill(l); err != nil {
				return err
			}
			if err := e.WaitReady(ready); err != nil {
				return err
			}
			if err := e.Restart(l); err != nil {
				return err
			}
		}
		if err := e.WaitReady(ready); err != nil {
			return err
		}
	}
	return nil
}
