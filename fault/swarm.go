package fault

// Swarm testing: a fixed mix of fault rates finds some mistakes fast and
// starves others (a mistake that needs a long quiet stretch after a lag
// is drowned by crashes; one that needs two lost replies in a row is
// diluted by every other kind). A swarm draws, for each seed, its own mix
// from the rates it is given: which kinds are on, and how often each of
// those strikes. The seeds together cover many mixes, among them the few
// that a given mistake needs.

// swarmFactors are the multiples of a kind's rate a swarm draws from: a
// kind on strikes from a quarter as often to four times as often as the
// rates given.
var swarmFactors = [...]float64{0.25, 0.5, 1, 2, 4}

// Swarm is the mix one seed draws from r, from src: each kind whose rate
// in r is above zero is on with even odds, at its rate times a factor
// from a quarter to four; at least one kind is on (one drawn at random
// when the coin turned every kind off). A kind off is zero, and a kind at
// zero in r stays so. The session timeout is r's. The same src gives the
// same mix, so that a seed's mix is part of what the seed decides.
func Swarm(src Chooser, r Rates) Rates {
	out := r
	kinds, rates := out.kinds(), r.kinds()
	var given []int // the kinds r has, by index
	on := 0
	for i, k := range kinds {
		if *k == 0 {
			continue
		}
		given = append(given, i)
		if src.Choose(2) == 0 {
			*k = 0
			continue
		}
		*k *= swarmFactors[src.Choose(len(swarmFactors))]
		on++
	}
	if on == 0 && len(given) > 0 {
		// Every coin came up off: one kind of r, at its own rate.
		i := given[src.Choose(len(given))]
		*kinds[i] = *rates[i]
	}
	return out
}

// kinds are r's rates, one pointer per kind of fault, in a fixed order
// (the order Swarm draws them in: a kind added later goes at the end, so
// that the mixes drawn for the others stay as they were).
func (r *Rates) kinds() []*float64 {
	return []*float64{&r.Crash, &r.LeaderCrash, &r.Partition, &r.Isolate, &r.Pause, &r.Spike, &r.LoseReply,
		&r.Disconnect, &r.Outage, &r.Expire, &r.ShortPause, &r.Lag, &r.LoseRequest, &r.Triggered, &r.OneWay}
}
