package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/models"
)

// Every malformed file in testdata/bad is refused with the message its
// first line gives ("# want: ..."): the file, the line, the field, and
// what was expected.
func TestMalformedScenarioFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/bad/*.yaml")
	if err != nil || len(files) < 15 {
		t.Fatalf("%d malformed files (%v)", len(files), err)
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(data), "\n")
		want, ok := strings.CutPrefix(first, "# want: ")
		if !ok {
			t.Fatalf("%s: no # want: line", path)
		}
		_, err = ParseScenario(filepath.Base(path), data)
		var fe *FileError
		if !errors.As(err, &fe) || err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s", path, err, want)
		}
	}
}

// A well-formed file gives the spec it states.
func TestParseScenario(t *testing.T) {
	sc, err := ParseScenario("x.yaml", []byte(`name: my-lock
description: a lock under lost replies
kind: lock
variant: lock-noguid
ensemble:
  servers: 5
  session_timeout: 6s
  extended_types: true
  container_check_interval: 2s
clients: 3
workload:
  rounds: 2
  step: 20ms
  fenced: true
  check_before_use: true
faults:
  - when c1 create#3 applied: lose-reply
  - at 1s crash leader for 2s; at 3s pause c2 1s
rates:
  lose_reply: 0.5
horizon: 2s
checks: [fenced-mutex, liveness]
bound: 40s
seeds: 25
expect:
  verdict: violation
  check: liveness
`))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Spec
	if sc.Name != "my-lock" || sc.Seeds != 25 || sc.Expect.Pass || sc.Expect.Check != "liveness" || sc.Expect.Kind != "liveness" ||
		s.Kind != "lock" || s.Variant != "lock-noguid" || s.Ensemble.Servers != 5 || s.Ensemble.SessionTimeout != 6*time.Second ||
		!s.Ensemble.ExtendedTypes || s.Ensemble.ContainerCheckInterval != 2*time.Second ||
		s.Clients != 3 || s.Workload.Rounds != 2 || s.Workload.Step != 20*time.Millisecond || !s.Workload.Fenced || !s.Workload.CheckBeforeUse ||
		len(s.Faults) != 3 || s.Rates == nil || s.Rates.LoseReply != 0.5 || s.Horizon != 2*time.Second ||
		len(s.Checks) != 2 || s.Bound != 40*time.Second {
		t.Fatalf("%+v\n%+v", sc, s)
	}
	if sc.Expect.String() != "liveness violation (liveness)" {
		t.Fatal(sc.Expect)
	}
	// A delay's 0s means none, not the default, and survives a replay
	// line; an absent delay takes the default.
	none, err := ParseScenario("none.yaml", []byte("kind: lock\nensemble: {jitter: 0s, latency: 1ms}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if e := none.Spec.Ensemble; e.Jitter >= 0 || e.Latency != time.Millisecond || e.DiskDelay != 0 {
		t.Fatalf("jitter: 0s, latency: 1ms gave %+v", e)
	}
	line := OptionsLine(none.Spec)
	back, err := WithOptionsLine(Spec{Kind: "lock"}, line)
	if err != nil || back.Ensemble.Jitter != none.Spec.Ensemble.Jitter || back.Ensemble.Latency != time.Millisecond {
		t.Fatalf("options line %q read back as %+v (%v)", line, back.Ensemble, err)
	}
	min, err := ParseScenario("min.yaml", []byte("kind: queue\n"))
	if err != nil || min.Name != "queue" || !min.Expect.Pass || min.Spec.Kind != "queue" {
		t.Fatalf("%+v %v", min, err)
	}
}

// The decoder never panics, and every refusal is a FileError naming the
// file.
func FuzzParseScenario(f *testing.F) {
	files, _ := filepath.Glob("testdata/bad/*.yaml")
	for _, p := range files {
		data, _ := os.ReadFile(p)
		f.Add(data)
	}
	f.Add([]byte("kind: lock\nclients: 3\nfaults: [at 1s crash s1]\nexpect: {verdict: violation, check: mutex}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := ParseScenario("f.yaml", data)
		if err == nil {
			return
		}
		var fe *FileError
		if !errors.As(err, &fe) || fe.Msg == "" || !strings.HasPrefix(err.Error(), "f.yaml") {
			t.Fatalf("%q: %v is not a clear FileError", data, err)
		}
	})
}

// A scenario may require its kind's situations, and not another kind's.
func TestRequireTheKindsOwnSituations(t *testing.T) {
	if _, err := ParseScenario("x.yaml", []byte("kind: lock\nrequire: [acquires that waited for a holder]\n")); err != nil {
		t.Error(err)
	}
	if _, err := ParseScenario("x.yaml", []byte("kind: lock\nrequire: [transactions committed]\n")); err == nil {
		t.Error("a lock scenario may require a 2pc situation")
	}
}

// An expectation is met by its violation, whatever less serious ones show
// beside it, and not when a more serious one shows too.
func TestExpectationMetOnlyWithoutSomethingWorse(t *testing.T) {
	stuck := models.Violation{Check: "liveness", Kind: models.Liveness}
	twoHolders := models.Violation{Check: "mutex", Kind: models.Safety}
	herd := models.Violation{Check: "herd", Kind: models.Herd}
	e := Expectation{Check: "liveness", Kind: models.Liveness}
	for _, c := range []struct {
		vs   []models.Violation
		want bool
	}{
		{[]models.Violation{stuck}, true},
		{[]models.Violation{stuck, herd}, true},
		{[]models.Violation{herd, stuck, twoHolders}, false},
		{[]models.Violation{herd}, false},
		{nil, false},
	} {
		if got := e.Met(c.vs); got != c.want {
			t.Errorf("expecting %s, Met(%v) = %v, want %v", e, c.vs, got, c.want)
		}
	}
	if !(Expectation{Check: "mutex", Kind: models.Safety}).Met([]models.Violation{twoHolders, stuck}) {
		t.Error("a safety expectation was not met beside a liveness violation")
	}
}
