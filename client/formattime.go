package client

import (
	"fmt"
	"time"
)

// FormatTime renders a run's time, ns nanoseconds since its start, as
// seconds to the microsecond, rounded to the nearest (ties to even) and
// unpadded: "0.416980s", or "-0.000500s" before the start. It is the form
// of every message and view: the checks' violations, the explanations, the
// timeline, the steps, the space-time diagram.
//
// The simulator's trace writes its times in the other form,
// FormatTimeColumn. The two read alike for a time on a whole microsecond,
// but for the column's padding; one between two microseconds (the
// simulator's jitters are eighths of 100µs) reads a microsecond apart in
// them, as it always has: 12.5µs is "0.000013s" here, "   0.000012s" there.
func FormatTime(ns int64) string {
	return fmt.Sprintf("%.6fs", time.Duration(ns).Seconds())
}

// FormatTimeColumn renders a run's time as the simulator's trace prints it
// (trace.Time's String): truncated to the microsecond, the seconds padded to
// four places so that a trace's lines align, "   0.416980s"; the
// simulator's errors trim the padding. A trace's times are never negative,
// and a negative one prints malformed ("   0.-00500s").
func FormatTimeColumn(ns int64) string {
	us := ns / 1000
	return fmt.Sprintf("%4d.%06ds", us/1e6, us%1e6)
}
