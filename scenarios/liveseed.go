package scenarios

// LiveSeed is the seed a live run of sc takes when none is given: the
// first of the scenario's seeds whose run in the simulator reaches its
// expected verdict, so that the live run is compared with a simulated run
// of the same seed that shows what the scenario is about (a scenario that
// expects a violation finds it with some of its seeds, not with all), and
// 1 when none does. A scenario that expects every check to hold under
// random faults takes the first seed whose faults all strike in the
// simulator (a fault tied to a request or a notification may name one
// that the faulted run never makes), so that its live run meets every one
// of them; 1 when none of its seeds has them all strike. It says what the
// simulator concluded with that seed.
func LiveSeed(sc *Scenario) (seed uint64, simulated *Outcome) {
	n := max(sc.Seeds, 1)
	for s := uint64(1); s <= uint64(n); s++ {
		o, err := Run(sc.Spec, s, Options{})
		if err != nil {
			break
		}
		if s == 1 {
			simulated = o
		}
		switch {
		case sc.Expect.Pass && sc.Spec.Rates != nil:
			if o.Coverage[CovNeverStruck] == 0 {
				return s, o
			}
		case sc.Expect.Pass || sc.Expect.Met(o.Violations):
			return s, o
		}
	}
	return 1, simulated
}
