package reports

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/scenarios"
)

// goldenDir holds the golden scripts: each replays one run of interest
// and pins its transcript (timeline, verdict, trace hash).
var goldenDir = filepath.Join("testdata", "golden")

// The golden scripts pin what the simulator does, step by step: a change
// to the scheduler, the network, the server or a recipe that moves any
// event of these runs fails here. A deliberate change is made visible by
// regenerating them and reviewing the diff:
//
//	go test ./reports -run TestGolden -rewrite
//
// A script's command is
//
//	replay scenario=NAME seed=S [clients=N] [rounds=R]
//	FAULTS, one per line (none: no faults; nothing: the scenario's own)
//	----
//	the transcript
func TestGolden(t *testing.T) {
	datadriven.Walk(t, goldenDir, func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd != "replay" {
				d.Fatalf(t, "unknown command %q; want replay", d.Cmd)
			}
			spec, seed := goldenSpec(t, d)
			o, err := scenarios.Replay(spec, seed)
			if err != nil {
				d.Fatalf(t, "%v", err)
			}
			text, err := Transcript(o)
			if err != nil {
				d.Fatalf(t, "%v", err)
			}
			return text
		})
	})
}

// goldenSpec is the spec and seed a replay command names.
func goldenSpec(t *testing.T, d *datadriven.TestData) (scenarios.Spec, uint64) {
	var name string
	var seed uint64
	d.ScanArgs(t, "scenario", &name)
	d.ScanArgs(t, "seed", &seed)
	sc, err := scenarios.LoadScenario(name)
	if err != nil {
		d.Fatalf(t, "%v", err)
	}
	spec := sc.Spec
	if d.HasArg("clients") {
		d.ScanArgs(t, "clients", &spec.Clients)
	}
	if d.HasArg("rounds") {
		d.ScanArgs(t, "rounds", &spec.Workload.Rounds)
	}
	if faults := strings.TrimSpace(d.Input); faults != "" {
		line := strings.Join(strings.Split(faults, "\n"), "; ")
		if faults == "none" {
			line = ""
		}
		s, err := fault.ParseSchedule(line)
		if err != nil {
			d.Fatalf(t, "faults: %v", err)
		}
		spec.Faults, spec.Rates = s, nil
	}
	return spec, seed
}

// Every teaching variant has a golden script, its shrunk counterexample,
// and the script still breaks the check the variant's lesson names, with
// a violation that states its cause (no question mark).
func TestGoldenCoversEveryTeachingVariant(t *testing.T) {
	lib, err := scenarios.Library()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, sc := range lib {
		if sc.Expect.Pass {
			continue
		}
		n++
		path := filepath.Join(goldenDir, "variants", sc.Name+".txt")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: no golden script (%v)", sc.Name, err)
			continue
		}
		text := string(data)
		want := "VIOLATION " + sc.Expect.Check + " (" + string(sc.Expect.Kind) + ")"
		if !strings.Contains(text, "replay scenario="+sc.Name+" ") || !strings.Contains(text, want) {
			t.Errorf("%s: its script does not replay it or does not show %q", path, want)
		}
		for _, line := range strings.Split(text, "\n") {
			if strings.Contains(line, "VIOLATION") && strings.Contains(line, "?") {
				t.Errorf("%s: its violation guesses rather than names its cause: %s", path, strings.TrimSpace(line))
			}
		}
	}
	if n < 20 {
		t.Errorf("only %d teaching variants", n)
	}
}
