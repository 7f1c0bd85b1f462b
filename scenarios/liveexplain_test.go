package scenarios

import (
	"testing"
	"time"

	"github.com/zksim/zksim/live"
	"github.com/zksim/zksim/models"
)

// A live membership violation whose watcher did not converge is told the
// faults injected after its last view, and only those; the held-at-once
// account takes those between the two holdings.
func TestLiveCausesNameTheFaultsStruck(t *testing.T) {
	injected := []live.StruckFault{
		{Text: "at 1s crash s1 for 1s", At: time.Second},
		{Text: "at 8s disconnect c1 for 8s", At: 8 * time.Second},
		{Text: "heal c1 (disconnect over)", At: 16 * time.Second},
	}
	view := models.Operation{Client: 0, Kind: models.View, Path: "/g", Result: models.OK, Call: int64(time.Second), Return: int64(1500 * time.Millisecond)}
	vs := []models.Violation{{Check: "membership", Kind: models.Liveness, Object: "/g",
		Message: "c1's last view ...: " + models.UnconvergedHint + " within the bound (28s)", Ops: []models.Operation{view}}}
	causes := liveViewFaults(injected, vs, nil)
	want := "after that view: at 8s disconnect c1 for 8s (struck at 8.000000s); heal c1 (disconnect over) (struck at 16.000000s)"
	if causes["view:/g"] != want {
		t.Errorf("view cause %q, want %q", causes["view:/g"], want)
	}
	explain(vs, causes)
	if got := vs[0].Message; got != "c1's last view ...: it did not converge within the bound (28s); "+want {
		t.Errorf("explained: %q", got)
	}
	held := []models.Violation{{Check: "mutex", Object: "/l", Message: "c1 and c2 " + heldHint, Ops: []models.Operation{
		{Client: 0, Kind: models.Acquire, Path: "/l", Result: models.OK, Return: int64(500 * time.Millisecond)},
		{Client: 1, Kind: models.Acquire, Path: "/l", Result: models.OK, Return: int64(9 * time.Second)},
	}}}
	if got, want := liveHolderFaults(injected, held, nil)["held:/l"],
		"meanwhile: at 1s crash s1 for 1s (struck at 1.000000s); at 8s disconnect c1 for 8s (struck at 8.000000s)"; got != want {
		t.Errorf("held cause %q, want %q", got, want)
	}
}
