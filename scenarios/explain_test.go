package scenarios

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/recipes"
)

// A lock's liveness violation names its cause from what the run shows,
// no longer guessing: the node that heads the queue, whose it is, the
// fault that orphaned it, and who waits behind it.
func TestLockLivenessNamesItsCause(t *testing.T) {
	for _, tc := range []struct {
		scenario string
		want     []string
	}{
		{"lock-noguid-lost-reply", []string{"is headed by", "whose create's reply was lost (when c1 create#3 applied: lose-reply)",
			"c1 queued again as", "waits behind its own node"}},
		{"lock-noguid", []string{"is headed by", "whose create's reply was lost"}},
		{"lock-release-trusts-connection-loss", []string{"whose delete was lost (when c1 delete#1 received: lose-request)"}},
		{"lock-leaks-old-session", []string{"belongs to a session c2 gave up, which the servers still hold"}},
		{"lock-requeues-on-disconnect", []string{"c2 queued again as", "waits behind its own node"}},
		{"lock-impatient-create", []string{"c1 queued again as"}},
		{"shared-lock-readers-queue", []string{"only reads hold it or wait: a read waits for the writes before it"}},
	} {
		sc, err := LoadScenario(tc.scenario)
		if err != nil {
			t.Fatal(err)
		}
		o := firstFailure(t, sc.Spec, max(sc.Seeds, 1))
		if o == nil {
			t.Fatalf("%s: no violation on %d seeds", tc.scenario, max(sc.Seeds, 1))
		}
		msg := o.Violations[0].Message
		if strings.Contains(msg, "?") {
			t.Errorf("%s guesses: %s", tc.scenario, msg)
		}
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s does not say %q:\n%s", tc.scenario, w, msg)
			}
		}
	}
}

// A stale read names the server it came from and the faults that had
// struck that server, in the run's words and, read back from its
// history, in check's: a partition, or a one-way loss from the leader.
func TestStaleReadNamesItsServer(t *testing.T) {
	for name, want := range map[string]string{
		"stale-read":         "from s1, which had not applied the write yet (at 500ms partition s1 s3)",
		"stale-read-one-way": "from s1, which had not applied the write yet (at 500ms one-way s3 s1)",
	} {
		sc, err := LoadScenario(name)
		if err != nil {
			t.Fatal(err)
		}
		o, err := Run(sc.Spec, 1, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(o.Violations) == 0 || !strings.Contains(o.Violations[0].Message, want) {
			t.Fatalf("%s: %v; want it to say %q", name, o.Violations, want)
		}
		if vs := judgedAgain(t, o); len(vs) == 0 || vs[0].Message != o.Violations[0].Message {
			t.Errorf("%s read back: %v; want %s", name, vs, o.Violations[0].Message)
		}
	}
}

// Two holders at once: the message says what struck between the first
// holding and the second (the pause, and the session's expiry it caused),
// in run's words and check's.
func TestTwoHoldersNameWhatStruck(t *testing.T) {
	sc, err := LoadScenario("lock-unfenced-pause")
	if err != nil {
		t.Fatal(err)
	}
	o, err := Run(sc.Spec, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "; meanwhile: when c1 holds#1: pause c1 15s (struck at 0.005865s); the servers expired c1's session at 12.000000s"
	if len(o.Violations) == 0 || !strings.HasSuffix(o.Violations[0].Message, want) {
		t.Fatalf("%v; want it to end %q", o.Violations, want)
	}
	if vs := judgedAgain(t, o); len(vs) == 0 || vs[0].Message != o.Violations[0].Message {
		t.Errorf("read back: %v; want %s", vs, o.Violations[0].Message)
	}
}

// judgedAgain is how o's history judges once written out and read back,
// as zksim check reads history.json.
func judgedAgain(t *testing.T, o *Outcome) []models.Violation {
	t.Helper()
	data, err := json.Marshal(o.History)
	if err != nil {
		t.Fatal(err)
	}
	h, err := ParseHistory(data)
	if err != nil {
		t.Fatal(err)
	}
	vs, err := h.Judge()
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

// A watcher whose view did not converge is told what happened after its
// last view: membership-cache-no-resync's c1 was cut off when c6's session
// expired, the deletion sent to it was lost, and once back it trusted its
// persistent watch and never listed the group again. The explanation
// survives the history written out and judged again.
func TestUnconvergedViewNamesWhatFollowed(t *testing.T) {
	sc, err := LoadScenario("membership-cache-no-resync")
	if err != nil {
		t.Fatal(err)
	}
	o, err := Run(sc.Spec, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "; after that view: at 8s disconnect c1 for 8s (struck at 8.000000s); the servers expired c6's session at 12.000000s; " +
		"s2 sent c1 NodeDeleted /zksim/group/c6 at 12.000750s; heal c1 (disconnect over) (struck at 16.000000s); " +
		"c1 had its session back at 16.336246s; c1 did not list /zksim/group again"
	if len(o.Violations) == 0 || !strings.HasSuffix(o.Violations[0].Message, want) {
		t.Fatalf("%v; want it to end %q", o.Violations, want)
	}
	if vs := judgedAgain(t, o); len(vs) == 0 || vs[0].Message != o.Violations[0].Message {
		t.Errorf("read back: %v; want %s", vs, o.Violations[0].Message)
	}
	// The recipe's cache, which lists the group again once back, is not
	// accused.
	spec := sc.Spec
	spec.Variant, spec.Impl = "", &recipes.Implementation{
		Membership: func(c client.Conn, p, name string) recipes.Membership { return recipes.NewCachedGroup(c, p, name) }}
	o, err = Run(spec, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if o.Failed() {
		t.Errorf("the cached group: %v", o.Violations)
	}
}
