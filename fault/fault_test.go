package fault

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// seeded is a Chooser from a seeded generator, as a world's is.
type seeded struct{ r *rand.Rand }

func (s seeded) Choose(n int) int {
	if n <= 1 {
		return 0
	}
	return s.r.IntN(n)
}

func newSeeded(seed uint64) seeded { return seeded{rand.New(rand.NewPCG(seed, 1))} }

// Kinds lists every kind once, each with its name.
func TestKinds(t *testing.T) {
	if got := len(Kinds()); got != len(faultNames) || got != len(KindNames()) {
		t.Fatalf("%d kinds, %d names", got, len(faultNames))
	}
	for _, k := range Kinds() {
		if k.String() == "" {
			t.Errorf("kind %d has no name", k)
		}
	}
}

func TestScheduleRoundTrip(t *testing.T) {
	text := `at 1.5s crash s2
at 3s restart s2
at 1s crash leader
at 2s partition s1 s3
at 2s partition s2 c1
at 2s isolate s1
at 4s heal s1 s3
at 5s heal
at 100ms pause c1 12s
at 1s pause s2 8s
at 2s pause leader 8s
at 2s one-way s1 s3 for 1s
at 2s one-way c1 s2
at 1s spike 50ms for 2s
when c2 create#1 applied: lose-reply
when c1 delete#1 failed: lose-reply
when c2 getData#2 failed: delay 300ms
when c1 delete#3 applied: crash applier
when c1 setData#2 applied: partition c1 s1
when c1 create#2 applied: crash applier for 2s
at 1s partition s1 s2 for 3s
at 1s isolate s3 for 500ms
when c1 holds#1: pause c1 15s
when c2 holds#3: crash leader for 2s`
	s, err := ParseSchedule(text)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.String(); got != text {
		t.Fatalf("printed schedule differs:\n%s\nwant\n%s", got, text)
	}
	again, err := ParseSchedule(s.String())
	if err != nil || again.String() != text {
		t.Fatalf("parsing the printed schedule: %v\n%s", err, again)
	}
	// Random schedules print and parse back alike, every kind and target.
	for seed := uint64(1); seed <= 50; seed++ {
		rs := RandomSchedule(newSeeded(seed), Rates{Crash: 2, LeaderCrash: 1, Partition: 2, Isolate: 1, Pause: 1, Spike: 1, LoseReply: 1}, 20*time.Second, 3, 3)
		back, err := ParseSchedule(rs.String())
		if err != nil || back.String() != rs.String() {
			t.Fatalf("seed %d: %v\n%s\nparsed back as\n%s", seed, err, rs, back)
		}
	}
	semi, err := ParseSchedule("at 1s crash s1; at 2s restart s1\n# a comment\n\n")
	if err != nil || len(semi) != 2 {
		t.Fatalf("';' separated: %v %v", semi, err)
	}
}

func TestScheduleParseErrors(t *testing.T) {
	cases := []struct{ text, want string }{
		{"crash s1", `line 1: "crash s1": want "at TIME FAULT"`},
		{"at soon crash s1", `time "soon"`},
		{"at 1s explode s1", `unknown fault "explode"`},
		{"at 1s crash", "crash: missing target"},
		{"at 1s crash c1", "crash: target c1 not allowed here"},
		{"at 1s crash applier", "only a fault tied to a request or a notification has an applier"},
		{"when c1 holds#1: crash applier", "only a fault tied to a request or a notification has an applier"},
		{"when c1 holds#1: lose-reply", "lose-reply: only a fault tied to a request applied"},
		{"when c1 holds#1: delay 1s", "delay: only a fault tied to a request applied"},
		{"when c1 holds#0: pause c1 1s", "want OP#K"},
		{"at 1s pause c1", "pause: missing duration"},
		{"at 1s pause c1 -3s", "positive duration"},
		{"at 1s partition c1 c2", "clients have no link between them"},
		{"at 1s lose-reply", "only a fault tied to a request applied"},
		{"when c1 create#1 received: lose-reply", "only a fault tied to a request applied"},
		{"when c1 delete#1 failed lose-reply", `want "at TIME FAULT"`},
		{"when c1 create#1 applied: lose-request", "only a fault tied to a request received"},
		{"at 1s delay 2s", "delay: only a fault tied to"},
		{"when c1 notified#1: delay", "delay: missing duration"},
		{"at 1s lag s1", "lag: want"},
		{"at 1s disconnect s1", "disconnect: target s1 not allowed"},
		{"at 1s expire", "expire: missing target"},
		{"when c1 notified#0: expire c1", "want OP#K"},
		{"when c1 create#1 sent: lose-request", "want \"at TIME FAULT\""},
		{"at 1s spike 10ms 2s", `want "spike EXTRA for HOW-LONG"`},
		{"at 1s restart s1 s2", `restart: unexpected "s2"`},
		{"at 1s crash s1 for", `crash: unexpected "for"`},
		{"at 1s crash s1 for ever", `crash: duration "ever"`},
		{"at 1s pause c1 2s for 3s", `pause: unexpected "for 3s"`},
		{"when c1 create applied: lose-reply", "want OP#K"},
		{"when c1 frobnicate#1 applied: lose-reply", `unknown request type "frobnicate"`},
		{"at 1s crash s1\nat 2s crash x9", `line 2: "at 2s crash x9": target "x9"`},
	}
	for _, tc := range cases {
		_, err := ParseSchedule(tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseSchedule(%q) = %v, want an error containing %q", tc.text, err, tc.want)
		}
	}
}

// The fault-schedule parser never panics, refuses with an error that says
// something, and what it accepts prints back as text it reads the same.
// The seed corpus: the faults of every built-in scenario and the examples
// of the parser's own tests.
func FuzzParseSchedule(f *testing.F) {
	files, _ := filepath.Glob("../scenarios/library/*.yaml")
	for _, p := range files {
		data, _ := os.ReadFile(p)
		for _, line := range strings.Split(string(data), "\n") {
			if text, ok := strings.CutPrefix(strings.TrimSpace(line), "- "); ok {
				f.Add(strings.Trim(text, `"`))
			}
		}
	}
	for _, s := range []string{"at 1s crash s1 for 2s; when c1 create#3 applied: lose-reply", "at 1s partition s1 s2",
		"when c2 notified#1: delay 5ms", "at -1s crash s1", "at 1s pause c1", "when c1 frobnicate#1 applied: lose-reply"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := ParseSchedule(text)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("%q: an empty error", text)
			}
			return
		}
		again, err := ParseSchedule(s.String())
		if err != nil {
			t.Fatalf("%q parsed, but its printing %q does not: %v", text, s.String(), err)
		}
		if again.String() != s.String() {
			t.Fatalf("%q: printed %q, read back as %q", text, s.String(), again.String())
		}
	})
}

// A random schedule holds no fault twice, and no two faults on one
// trigger, over many draws of every fault kind with the workload's
// repertoire left blind (so that triggers repeat most).
func TestRandomScheduleHoldsNoRepeats(t *testing.T) {
	r := EveryFault()
	r.SessionTimeout = 2 * time.Second
	for seed := uint64(1); seed <= 300; seed++ {
		s := RandomSchedule(newSeeded(seed), r, 60*time.Second, 3, 2)
		seen := map[string]bool{}
		for _, f := range s {
			key := f.String()
			if f.When != nil {
				key = f.When.String()
			}
			if seen[key] {
				t.Fatalf("seed %d: %q repeats a fault or its trigger:\n%s", seed, f, s)
			}
			seen[key] = true
		}
	}
}
