package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/zksim/zksim/scenarios"
	"github.com/zksim/zksim/search"
)

func mergeCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "merge SHARD.json...",
		Short: "Combine the JSON of a sharded run's shards into the JSON of the whole run",
		Long: `merge reads what zksim run --shard I/N --json printed for each shard of one
seed range (on as many machines or CI jobs as there were shards) and prints
the JSON of the whole run: the same seeds, violations, coverage, verdict and
exit status as one unsharded run of the range.

Exit status: 0 when the whole run's outcome is the scenario's expect:, 1 when
it is not, 2 for bad input: a file that is not a run's JSON, shards of
different scenarios or expectations or shard counts, a shard given twice, a
shard missing, an interrupted shard.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			shards, err := readShards(args)
			if err != nil {
				return usageError{err}
			}
			o := mergeShards(shards)
			if err := printJSON(cmd.OutOrStdout(), o); err != nil {
				return err
			}
			if !o.AsExpected {
				return errNotAsExpected
			}
			return nil
		},
	}
}

// readShards reads the shards' JSON and checks that they are the shards
// of one run, each once, covering its range: sorted by their first seed.
func readShards(files []string) ([]runOutput, error) {
	var shards []runOutput
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var o runOutput
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&o); err != nil {
			return nil, fmt.Errorf("%s: not what zksim run --json prints (%v)", f, err)
		}
		if o.Scenario == "" {
			return nil, fmt.Errorf("%s: not what zksim run --json prints (no \"scenario\" field)", f)
		}
		sh, err := search.ParseShard(o.Shard)
		if err != nil {
			return nil, fmt.Errorf("%s: not a shard (zksim run --shard I/N --json): %v", f, err)
		}
		if o.StoppedAtFirst {
			return nil, fmt.Errorf("%s: shard %s stopped at its first violation (--stop-at-first): it ran %d of its %d seeds, so no merge is the whole run", f, sh, o.Ran, o.Seeds)
		}
		if o.Interrupted || o.Ran != o.Seeds {
			return nil, fmt.Errorf("%s: shard %s was interrupted: it ran %d of its %d seeds", f, sh, o.Ran, o.Seeds)
		}
		o.arg = f
		shards = append(shards, o)
	}
	slices.SortFunc(shards, func(a, b runOutput) int { return cmpUint(a.First, b.First) })
	first := shards[0]
	n := mustShard(first.Shard).N
	seen := map[int]string{}
	for i, s := range shards {
		sh := mustShard(s.Shard)
		switch {
		case s.Scenario != first.Scenario || s.Expected != first.Expected:
			return nil, fmt.Errorf("%s is a shard of %s (expecting %s), %s of %s (expecting %s): not one run",
				s.arg, s.Scenario, s.Expected, first.arg, first.Scenario, first.Expected)
		case sh.N != n || s.Kept != first.Kept:
			return nil, fmt.Errorf("%s is shard %s, %s shard %s: not one run's shards", s.arg, s.Shard, first.arg, first.Shard)
		case seen[sh.I] != "":
			return nil, fmt.Errorf("shard %s given twice: %s and %s", s.Shard, seen[sh.I], s.arg)
		}
		seen[sh.I] = s.arg
		if i > 0 {
			prev := shards[i-1]
			end := prev.First + uint64(prev.Seeds)
			switch {
			case s.First < end:
				return nil, fmt.Errorf("%s (seeds %d to %d) overlaps %s (seeds %d to %d)", s.arg, s.First,
					s.First+uint64(s.Seeds)-1, prev.arg, prev.First, end-1)
			case s.First > end:
				return nil, fmt.Errorf("seeds %d to %d are in no shard given: between %s and %s", end, s.First-1, prev.arg, s.arg)
			}
		}
	}
	for i := 1; i <= n; i++ {
		if seen[i] == "" {
			return nil, fmt.Errorf("shard %d/%d is missing", i, n)
		}
	}
	return shards, nil
}

func mustShard(s string) search.Shard {
	sh, _ := search.ParseShard(s)
	return sh
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// lowestSeeds keeps the violations of the lowest keep seeds, as a run
// keeps its failures: each shard kept its own lowest, among which the
// whole run's lowest are.
func lowestSeeds(vs []runViolation, keep int) []runViolation {
	var seeds []uint64
	for _, v := range vs {
		if len(seeds) == 0 || seeds[len(seeds)-1] != v.Seed {
			seeds = append(seeds, v.Seed)
		}
	}
	slices.Sort(seeds)
	seeds = slices.Compact(seeds)
	if keep <= 0 || len(seeds) <= keep {
		return vs
	}
	last := seeds[keep-1]
	return slices.DeleteFunc(vs, func(v runViolation) bool { return v.Seed > last })
}

// mergeShards is the JSON of the whole run the shards are parts of, its
// verdict judged again on the union of their violations and coverage.
func mergeShards(shards []runOutput) runOutput {
	first := shards[0]
	o := runOutput{Scenario: first.Scenario, Expected: first.Expected, Expect: first.Expect, Require: first.Require,
		First: first.First, Violations: []runViolation{}, Coverage: scenarios.Coverage{}, Kept: first.Kept}
	found := map[search.Found]uint64{} // by check and kind, the lowest seed of any shard

	for _, s := range shards {
		o.Seeds += s.Seeds
		o.Ran += s.Ran
		o.Ops += s.Ops
		o.SimMs += s.SimMs
		o.CheckMs += s.CheckMs
		o.WallMs = max(o.WallMs, s.WallMs) // the shards ran side by side
		o.Violations = append(o.Violations, s.Violations...)
		o.FailingSeeds += s.FailingSeeds
		for _, f := range s.Found {
			key := search.Found{Check: f.Check, Kind: f.Kind}
			if seed, ok := found[key]; !ok || f.Seed < seed {
				found[key] = f.Seed
			}
		}
		for k, v := range s.Coverage {
			o.Coverage[k] += v
		}
		o.Report = append(o.Report, s.Report...)
		if o.Shrunk == nil && s.Shrunk != nil {
			o.Shrunk = s.Shrunk // the first shard's with a violation: the lowest seed's
		}
	}
	if total := o.SimMs + o.CheckMs; total > 0 {
		o.CheckShare = float64(o.CheckMs) / float64(total)
	}
	if o.SimMs > 0 {
		o.OpsPerSec = float64(o.Ops) / (float64(o.SimMs) / 1000)
	}
	o.Violations = lowestSeeds(o.Violations, o.Kept)
	o.Found = nil
	for key, seed := range found {
		key.Seed = seed
		o.Found = append(o.Found, key)
	}
	search.SortFound(o.Found)
	if o.Found == nil {
		o.Found = []search.Found{}
	}
	all := search.FoundViolations(o.Found)
	o.Got = search.Conclusion(all)
	for _, r := range o.Require {
		if o.Coverage[r] == 0 {
			o.Weak = append(o.Weak, r)
		}
	}
	o.AsExpected = o.Expect.Met(all) && len(o.Weak) == 0
	return o
}
