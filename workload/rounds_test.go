package workload

import (
	"testing"
)

// Past the workload's rounds, the first client to ask about a round
// decides for all: a round granted stays granted to those who ask later,
// a round refused ends the rounds even when the world would go on by
// then, and without a world that wants more (the simulator) the rounds
// are the workload's.
func TestRoundGoesAgreesForEveryClient(t *testing.T) {
	sim := &runner{plan: Plan{Shape: Shape{Rounds: 2}}, world: roundsWorld{}}
	for k, want := range []bool{true, true, false, false} {
		if got := sim.roundGoes(k); got != want {
			t.Errorf("simulator: round %d goes %v, want %v", k, got, want)
		}
	}
	more := true
	r := &runner{plan: Plan{Shape: Shape{Rounds: 2}}, world: roundsWorld{func() bool { return more }}}
	if !r.roundGoes(2) || !r.roundGoes(3) {
		t.Fatal("rounds 2 and 3 refused while the world wants more")
	}
	more = false
	if !r.roundGoes(2) || !r.roundGoes(3) {
		t.Error("a round granted to one client was refused to another")
	}
	if !r.lastRound(3) {
		t.Error("round 3 is not the last once the world wants no more")
	}
	more = true
	if r.roundGoes(4) || r.roundGoes(5) {
		t.Error("a round past a refused one was granted")
	}
	if !r.roundGoes(0) || !r.roundGoes(1) {
		t.Error("the workload's own rounds were refused")
	}
	r2 := &runner{plan: Plan{Shape: Shape{Rounds: 1}}, world: roundsWorld{func() bool { return true }}}
	if r2.roundGoes(3) {
		t.Error("round 3 granted before rounds 1 and 2 were asked about")
	}
}

// roundsWorld is a world that wants more rounds while more says so (the
// simulator's never does: more nil).
type roundsWorld struct{ more func() bool }

func (roundsWorld) Spawn(string, []int, Body) {}
func (roundsWorld) Holds(int)                 {}
func (w roundsWorld) FaultsAhead() bool       { return w.more != nil && w.more() }
func (roundsWorld) Progressed()               {}
func (roundsWorld) Over() bool                { return false }
