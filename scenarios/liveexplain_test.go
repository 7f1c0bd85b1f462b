package scenarios

import (
	"strings"
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
	want := "after that view: at 8s disconnect c1 for 8s (struck at 8.000000s); heal c1 (disconnect over) (struck at 16.000000s)"
	if got := afterViewStruck(injected, view); got != want {
		t.Errorf("view cause %q, want %q", got, want)
	}
	holders := []models.Operation{
		{Client: 0, Kind: models.Acquire, Path: "/l", Result: models.OK, Return: int64(500 * time.Millisecond)},
		{Client: 1, Kind: models.Acquire, Path: "/l", Result: models.OK, Return: int64(9 * time.Second)},
	}
	if got, want := meanwhileStruck(injected, holders),
		"meanwhile: at 1s crash s1 for 1s (struck at 1.000000s); at 8s disconnect c1 for 8s (struck at 8.000000s)"; got != want {
		t.Errorf("held cause %q, want %q", got, want)
	}
	// The questions are answered by the question, whatever the words.
	run := &liveEvidence{}
	vs := []models.Violation{
		{Check: "membership", Kind: models.Liveness, Object: "/g", Message: "words", Ops: []models.Operation{view},
			Question: models.Unconverged},
		{Check: "mutex", Kind: models.Safety, Object: "/l", Message: "other words", Ops: holders, Question: models.TwoHolders},
		{Check: "mutex", Kind: models.Safety, Object: "/l", Message: "c1 and c2 held it at once", Ops: holders},
	}
	run.explain(nil, injected, vs)
	if vs[0].Message != "words; "+want || vs[0].Cause != want {
		t.Errorf("explained: %+v", vs[0])
	}
	if !strings.HasPrefix(vs[1].Cause, "meanwhile: at 1s crash s1") || vs[2].Cause != "" || vs[2].Message != "c1 and c2 held it at once" {
		t.Errorf("explained: %+v, %+v", vs[1], vs[2])
	}
}
