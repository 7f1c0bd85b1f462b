package scenarios

// LiveSeed is the seed a live run of sc takes when none is given: the
// first of the scenario's seeds whose run in the simulator reaches its
// expected verdict, so that the live run is compared with a simulated run
// of the same seed that shows what the scenario is about (a scenario that
// expects a violation finds it with some of its seeds, not with all), and
// 1 when none does or the scenario expects every check to hold. It says
// what the simulator concluded with that seed.
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
		if sc.Expect.Pass || sc.Expect.Met(o.Violations) {
			return s, o
		}
	}
	return 1, simulated
}
