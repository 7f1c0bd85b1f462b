package sim

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/trace"
)

// shortenByText is how a record's short form was once made: its printed
// text parsed back with regular expressions. Trace.Short, made from the
// record's fields, must say the same.
func shortenByText(s string) string {
	var (
		sessionSuffix = regexp.MustCompile(`\s+\(session 0x[0-9a-f]+\)`)
		sessionState  = regexp.MustCompile(`^session 0x[0-9a-f]+ State(\w+)$`)
		applyZxid     = regexp.MustCompile(`^apply zxid=0x[0-9a-f]+ `)
		pathToken     = regexp.MustCompile(`/[^\s":]+`)
		guidPrefix    = regexp.MustCompile(`^(_c_)?[0-9a-f]{12,}-`)
		sequential    = regexp.MustCompile(`^(.*?)(\d{10})$`)
	)
	if m := sessionState.FindStringSubmatch(s); m != nil {
		return "session " + m[1]
	}
	s = sessionSuffix.ReplaceAllString(s, "")
	s = applyZxid.ReplaceAllString(s, "apply ")
	return pathToken.ReplaceAllStringFunc(s, func(p string) string {
		last := guidPrefix.ReplaceAllString(p[strings.LastIndexByte(p, '/')+1:], "")
		if m := sequential.FindStringSubmatch(last); m != nil {
			n, _ := strconv.Atoi(m[2])
			last = fmt.Sprintf("%s%d", m[1], n)
		}
		return "/" + last
	})
}

// Every record of runs under faults (sends, replies, notifications,
// applies, states, notes, roles, faults, exits) has the short form its
// printed text had.
func TestShortSaysWhatTheTextSaid(t *testing.T) {
	n := 0
	for seed := uint64(1); seed <= 20; seed++ {
		w, _ := randomWorkloadWithFaults(seed, 3, 15)
		w.Run()
		tr := w.Trace()
		for _, r := range tr.Records() {
			n++
			if got, want := tr.Short(&r), shortenByText(tr.Action(&r)); got != want {
				t.Fatalf("seed %d: %s: short form %q, want %q", seed, tr.Format(&r), got, want)
			}
		}
	}
	if n < 1000 {
		t.Fatalf("only %d records compared", n)
	}
}

// Free text (a note's, an error's, a fault's) in the short form keeps
// what is not a path and loses what names a session, as the text parsed
// back did.
func TestShortFreeText(t *testing.T) {
	tr := trace.New(true)
	for _, in := range []string{
		"session closed by its process (session 0x1f)", "a/b c", "x /a/b:c \"/d/e\" //", "(session 0x) /x", "no(session 0x3)",
		"lost /q/item-0000000012 (session 0xabc) and /r", "tab\t(session 0x2)", "/\n/a",
		"deleted /l/_c_c751deeb0235fdee5879d92336079fae-lock-0000000000 (session 0x2)",
	} {
		r := trace.Record{Kind: trace.KNote, Path: in}
		if got, want := tr.Short(&r), shortenByText(in); got != want {
			t.Errorf("the short form of %q is %q, want %q", in, got, want)
		}
	}
}

// Every fault record carries its fault: a fault struck from the schedule
// is one of its faults, printed as the schedule prints it; the end of an
// isolation or a disconnect is a heal of its target.
func TestFaultRecordsCarryTheirFault(t *testing.T) {
	seen := 0
	for seed := uint64(1); seed <= 20; seed++ {
		w, sched := randomWorkloadWithFaults(seed, 3, 15)
		w.Run()
		tr := w.Trace()
		for _, r := range tr.Records() {
			f, ok := tr.Fault(&r)
			if ok != (r.Kind == trace.KFault) {
				t.Fatalf("seed %d: %s: a fault %v", seed, tr.Format(&r), ok)
			}
			if !ok {
				continue
			}
			seen++
			switch {
			case strings.HasPrefix(r.Path, "heal ") && strings.HasSuffix(r.Path, " over)"):
				if f.Kind != fault.Heal || !strings.HasPrefix(r.Path, "heal "+f.A.String()+" (") {
					t.Fatalf("seed %d: %q carries %v", seed, r.Path, f)
				}
			case r.Path != f.String():
				t.Fatalf("seed %d: %q carries %q", seed, r.Path, f)
			}
			if f.Kind != fault.Heal && !slices.ContainsFunc(sched, f.Equal) {
				t.Fatalf("seed %d: %q is not in the schedule:\n%s", seed, f, sched)
			}
		}
	}
	if seen < 20 {
		t.Fatalf("only %d fault records", seen)
	}
}
