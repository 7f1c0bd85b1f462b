package models

// timeSpan is the virtual time [from, to): a span during which a wait is
// blocked. math.MinInt64 and math.MaxInt64 stand for "since ever" and "for
// ever".
type timeSpan struct{ from, to int64 }

// covers says whether t is in s.
func (s timeSpan) covers(t int64) bool { return s.from <= t && t < s.to }
