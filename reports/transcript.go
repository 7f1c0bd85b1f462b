package reports

import (
	"fmt"
	"strings"

	"github.com/zksim/zksim/scenarios"
)

// Transcript is a run as text: its timeline (every event, a column per
// client and server), what the checks concluded, and its trace hash (a
// checksum of every decision the run made). It is what the golden scripts
// under testdata/golden pin, and what `zksim replay --trace --hash` shows.
// The outcome must have kept its trace.
func Transcript(o *scenarios.Outcome) (string, error) {
	tl, err := NewTimeline(o)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(tl.String())
	if o.Failed() {
		for _, v := range o.Violations {
			fmt.Fprintf(&b, "VIOLATION %s\n", v)
		}
	} else {
		fmt.Fprintf(&b, "every check held (%s)\n", strings.Join(o.Spec.Checks, ", "))
	}
	fmt.Fprintf(&b, "trace hash %s\n", scenarios.HashString(o.Result.Hash))
	return b.String(), nil
}
