package scenarios

import (
	"testing"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/workload"
)

// lastReads is each reader's last Read of o, by client.
func lastReads(o *Outcome) map[int]models.Operation {
	out := map[int]models.Operation{}
	for _, op := range opsOf(o, models.Read) {
		if last, ok := out[op.Client]; !ok || op.Return >= last.Return {
			out[op.Client] = op
		}
	}
	return out
}

// The recipe passes the config check (readers never go back, and hear of
// the latest version within the bound) without faults and under every
// fault that matters to it. Without faults, with the defaults (c1 and c2
// read, c3 and c4 write five configurations each), both readers end on
// the tenth version, the last written, and go on for the bound after it.
func TestConfigRecipeHolds(t *testing.T) {
	for _, o := range holdsOnSeeds(t, Spec{Name: "config", Kind: "config"}, seedCount(20)) {
		writes := opsOf(o, models.Write)
		if len(writes) != 10 {
			t.Fatalf("%d writes, want 10:\n%s", len(writes), describeOutcome(o))
		}
		var last models.Operation
		for _, w := range writes {
			if w.Result != models.OK {
				t.Fatalf("%s: want ok without faults", models.Describe(w))
			}
			if w.OutVersion > last.OutVersion {
				last = w
			}
		}
		reads := lastReads(o)
		if len(reads) != 2 || last.OutVersion != 9 || reads[0].OutVersion != 9 || reads[1].OutVersion != 9 ||
			reads[0].OutData != last.Data || reads[1].OutData != last.Data {
			t.Fatalf("last reads %v, last write %s: want both readers to read it:\n%s", reads, models.Describe(last), describeOutcome(o))
		}
		if o.Input.End < last.Return+int64(30*time.Second) {
			t.Fatalf("the run ended at %s, before the bound (30s) after the last write:\n%s", client.FormatTime(o.Input.End), describeOutcome(o))
		}
	}
	// Ten writes each, a quarter of a second apart, while the faults strike.
	spec := Spec{Name: "config under faults", Kind: "config", Rates: &workloadFaults, Horizon: 3 * time.Second,
		Workload: workload.Shape{Rounds: 10, Step: 250 * time.Millisecond}}
	holdsOnSeeds(t, spec, seedCount(20))
}

// config-read-once and config-oneshot-watch: the readers stop hearing of
// changes (after the first configuration, after the first change), and
// the config check catches them as liveness violations: they never read
// the latest version.
func TestConfigVariantsCaught(t *testing.T) {
	for _, v := range []string{"config-read-once", "config-oneshot-watch"} {
		o := caughtOnSomeSeed(t, Spec{Name: v, Kind: "config", Variant: v}, 3, "config", models.Liveness)
		for c, r := range lastReads(o) {
			if r.OutVersion >= 9 {
				t.Fatalf("%s: c%d read version %d, the latest: want it stuck on an early one", v, c+1, r.OutVersion)
			}
		}
	}
}

// Runs repeat exactly: the same seed, the same run.
func TestConfigDeterministic(t *testing.T) {
	sameTwice(t, Spec{Name: "config under faults", Kind: "config", Rates: &workloadFaults}, 3)
}
