package trace

import (
	"time"

	"github.com/zksim/zksim/client"
)

// Time is virtual time: nanoseconds since the start of a run.
type Time int64

// Std is t as a time.Duration since the start of the run.
func (t Time) Std() time.Duration { return time.Duration(t) }

// Wall is the wall-clock instant t stands for.
func (t Time) Wall() time.Time { return client.Epoch.Add(time.Duration(t)) }

// Millis is t as milliseconds since the Unix epoch, as ZooKeeper stores ctime
// and mtime.
func (t Time) Millis() int64 { return t.Wall().UnixMilli() }

// String renders t as the trace prints it: seconds truncated to the
// microsecond, fixed width (client.FormatTimeColumn).
func (t Time) String() string { return client.FormatTimeColumn(int64(t)) }
