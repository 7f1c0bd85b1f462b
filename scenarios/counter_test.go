package scenarios

import (
	"strconv"
	"testing"

	"github.com/zksim/zksim/models"
)

// Without faults, with the defaults (four clients, four rounds), every add
// returns OK, the values they make are distinct, and the highest is the sum
// of the increments: 4 × 1 + 4 × 1 + 10 + 20 + 30 + 40 + (the same again).
func TestCounterRecipeHolds(t *testing.T) {
	for _, o := range holdsOnSeeds(t, Spec{Name: "counter", Kind: "counter"}, seedCount(20)) {
		seen := map[string]bool{}
		var high int64
		for _, op := range opsOf(o, models.Add) {
			if op.Result != models.OK || seen[op.OutData] {
				t.Fatalf("%s by c%d: want ok, each value made once:\n%s", models.Describe(op), op.Client+1, describeOutcome(o))
			}
			seen[op.OutData] = true
			v, _ := strconv.ParseInt(op.OutData, 10, 64)
			high = max(high, v)
		}
		if len(seen) != 16 || high != 2*(4+100) {
			t.Fatalf("%d adds, up to %d: want 16, up to %d:\n%s", len(seen), high, 2*(4+100), describeOutcome(o))
		}
		if len(opsOf(o, models.Count)) != 16 {
			t.Fatalf("want 16 counts:\n%s", describeOutcome(o))
		}
	}
}
