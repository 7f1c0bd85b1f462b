package fault

import (
	"slices"
	"testing"
	"time"
)

// A swarm's mix is drawn from its source alone, keeps every kind r has
// not at zero, puts each kind it keeps at r's rate times one of its
// factors, keeps at least one, and over many seeds turns each kind on
// about half the time, at every factor, and leaves the session timeout
// as it was.
func TestSwarmDrawsAMixPerSeed(t *testing.T) {
	r := EveryFault()
	r.SessionTimeout = 2 * time.Second
	given := r.kinds()
	on := make([]int, len(given))
	factors := map[float64]bool{}
	const seeds = 2000
	for seed := uint64(1); seed <= seeds; seed++ {
		mix := Swarm(newSeeded(seed), r)
		if again := Swarm(newSeeded(seed), r); again != mix {
			t.Fatalf("seed %d drew %+v, then %+v", seed, mix, again)
		}
		if mix.SessionTimeout != r.SessionTimeout {
			t.Fatalf("seed %d: session timeout %v", seed, mix.SessionTimeout)
		}
		someOn := false
		for i, k := range mix.kinds() {
			switch {
			case *given[i] == 0 && *k != 0:
				t.Fatalf("seed %d: kind %d is at zero in the rates and %v in the mix", seed, i, *k)
			case *k == 0:
				continue
			}
			someOn = true
			on[i]++
			f := *k / *given[i]
			if !slices.Contains(swarmFactors[:], f) {
				t.Fatalf("seed %d: kind %d at %v, %v times its rate", seed, i, *k, f)
			}
			factors[f] = true
		}
		if !someOn {
			t.Fatalf("seed %d turned every kind off", seed)
		}
	}
	for i, n := range on {
		if *given[i] == 0 {
			continue
		}
		if n < seeds*4/10 || n > seeds*6/10 {
			t.Errorf("kind %d is on in %d of %d seeds; want about half", i, n, seeds)
		}
	}
	if len(factors) != len(swarmFactors) {
		t.Errorf("the mixes drew %d of the %d factors", len(factors), len(swarmFactors))
	}
}

// When the coins turn every kind off, one kind of the rates is on at its
// own rate: a rates with one kind always gives that kind.
func TestSwarmOfOneKindKeepsIt(t *testing.T) {
	r := Rates{LoseReply: 2}
	for seed := uint64(1); seed <= 200; seed++ {
		mix := Swarm(newSeeded(seed), r)
		if mix.LoseReply == 0 {
			t.Fatalf("seed %d turned the only kind off: %+v", seed, mix)
		}
		mix.LoseReply = 0
		if mix != (Rates{}) {
			t.Fatalf("seed %d turned on a kind the rates do not have: %+v", seed, mix)
		}
	}
}
