package sim

import "github.com/zksim/zksim/trace"

// Time is virtual time, nanoseconds since the start of a run: the trace's
// (trace.Time), which stamps every record. The world's clock, timers,
// timeouts and events all speak it; an alias, so that they need not say
// trace.Time each time.
type Time = trace.Time
