package client

import (
	"strings"
	"testing"
)

// Both forms of a run's time, byte for byte: the messages' rounds to the
// microsecond (ties to even), the trace's column truncates and pads, and
// the two read alike, but for the padding, on a whole microsecond.
func TestFormatTime(t *testing.T) {
	cases := []struct {
		ns             int64
		message, trace string
	}{
		{0, "0.000000s", "   0.000000s"},
		{416_980_000, "0.416980s", "   0.416980s"},
		{12_500, "0.000013s", "   0.000012s"},                  // an eighth of 100µs: rounded, truncated
		{1_499, "0.000001s", "   0.000001s"},                   // below the half: both down
		{7_812_500, "0.007812s", "   0.007812s"},               // 1/128 s, an exact tie: to even
		{12_345_678_901_234, "12345.678901s", "12345.678901s"}, // past the padding
		{-500_000, "-0.000500s", "   0.-00500s"},               // before the start; never in a trace
	}
	for _, tc := range cases {
		if got := FormatTime(tc.ns); got != tc.message {
			t.Errorf("FormatTime(%d) = %q, want %q", tc.ns, got, tc.message)
		}
		if got := FormatTimeColumn(tc.ns); got != tc.trace {
			t.Errorf("FormatTimeColumn(%d) = %q, want %q", tc.ns, got, tc.trace)
		}
	}
	for us := int64(0); us < 100_000_000_000; us += 7_654_321 { // to 27h
		ns := us * 1000
		if m, c := FormatTime(ns), strings.TrimLeft(FormatTimeColumn(ns), " "); m != c {
			t.Fatalf("%dns, a whole microsecond: %q in messages, %q in the trace", ns, m, c)
		}
	}
}
