package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/zksim/zksim/scenarios"
	"github.com/zksim/zksim/search"
)

// swarmResult is one teaching variant searched blind, under random faults
// alone (its scripted schedule set aside): the first seed that breaks it
// as its scenario expects, at the fixed mix of rates and with the swarm
// drawing each seed's own mix; 0 when none of the first Limit seeds does.
type swarmResult struct {
	Scenario string `json:"scenario"`
	Fixed    uint64 `json:"fixed_mix_seeds"`
	Swarm    uint64 `json:"swarm_seeds"`
	// FixedBreaks and SwarmBreaks are how many of the first RateSeeds
	// seeds break it at each mix: the steadier figure.
	FixedBreaks int `json:"fixed_mix_breaks"`
	SwarmBreaks int `json:"swarm_breaks"`
	RateSeeds   int `json:"rate_seeds"`
}

// sooner reports which mix is expected to break r sooner: -1 the fixed
// mix, 1 the swarm, 0 neither (the same count).
func (r swarmResult) sooner() int {
	switch {
	case r.SwarmBreaks > r.FixedBreaks:
		return 1
	case r.FixedBreaks > r.SwarmBreaks:
		return -1
	}
	return 0
}

// rare reports whether r needs more than ten seeds on average at either
// mix: the mistakes a mix of faults is chosen for.
func (r swarmResult) rare() bool {
	return 10*min(r.FixedBreaks, r.SwarmBreaks) < r.RateSeeds
}

// measureSwarm searches every teaching variant (the first only, when only
// is above zero) blind, at the fixed mix and with the swarm, up to limit
// seeds each, and counts the first rateSeeds seeds that break it at each.
func measureSwarm(limit, rateSeeds, only int) ([]swarmResult, error) {
	lib, err := scenarios.Library()
	if err != nil {
		return nil, err
	}
	var out []swarmResult
	for _, sc := range lib {
		if sc.Expect.Pass {
			continue
		}
		if only > 0 && len(out) == only {
			break
		}
		spec := search.RandomFaultsOnly(sc)
		r := swarmResult{Scenario: sc.Name, RateSeeds: rateSeeds}
		spec.Swarm = false
		if r.Fixed, r.FixedBreaks, err = search.Blind(context.Background(), spec, sc.Expect, limit, rateSeeds); err != nil {
			return nil, fmt.Errorf("%s: %w", sc.Name, err)
		}
		spec.Swarm = true
		if r.Swarm, r.SwarmBreaks, err = search.Blind(context.Background(), spec, sc.Expect, limit, rateSeeds); err != nil {
			return nil, fmt.Errorf("%s, swarm: %w", sc.Name, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// swarmRows sum the blind searches up, one row for each mix: the median
// and the worst seeds to a first counterexample over the variants (one
// not found within limit counts as more than limit), and how many
// variants each finds within limit; a row names the variants neither
// finds.
func swarmRows(rs []swarmResult, limit int) []benchRow {
	mix := func(name string, seeds func(swarmResult) uint64) benchRow {
		var ns []uint64
		found := 0
		for _, r := range rs {
			n := seeds(r)
			if n == 0 {
				n = uint64(limit) + 1
			} else {
				found++
			}
			ns = append(ns, n)
		}
		slices.Sort(ns)
		median, worst := ns[len(ns)/2], ns[len(ns)-1]
		return row("seeds to first counterexample, random faults only, "+name, float64(median), "seeds",
			fmt.Sprintf("median %s, worst %s; %d of %d found", seedCount(median, limit), seedCount(worst, limit), found, len(rs)),
			"", false, fmt.Sprintf("each teaching variant with its scripted faults set aside, at its scenario's rates or every fault kind's, "+
				"searched from seed 1 to the first seed that breaks it as its scenario expects, up to %s seeds", thousands(float64(limit))))
	}
	var neither []string
	for _, r := range rs {
		if r.Fixed == 0 && r.Swarm == 0 {
			neither = append(neither, r.Scenario)
		}
	}
	rows := []benchRow{
		mix("fixed mix", func(r swarmResult) uint64 { return r.Fixed }),
		mix("swarm", func(r swarmResult) uint64 { return r.Swarm }),
	}
	shown := "none"
	if len(neither) > 0 {
		shown = strings.Join(neither, ", ")
	}
	rows = append(rows, row("teaching variants neither mix finds", float64(len(neither)), "variants", shown, "", false,
		"the variants whose mistake random faults alone did not reach within the limit, at either mix (their scripted schedule does)"))
	var swarmMore, fixedMore, rare, rareSwarm, rareFixed int
	for _, r := range rs {
		switch r.sooner() {
		case 1:
			swarmMore++
		case -1:
			fixedMore++
		}
		if r.rare() {
			rare++
			rareSwarm += max(r.sooner(), 0)
			rareFixed += max(-r.sooner(), 0)
		}
	}
	return append(rows, row("teaching variants broken more often, swarm", float64(swarmMore), "variants",
		fmt.Sprintf("%d, fixed mix %d, even %d; of the %d rare, swarm %d, fixed mix %d", swarmMore, fixedMore, len(rs)-swarmMore-fixedMore,
			rare, rareSwarm, rareFixed), "", false,
		fmt.Sprintf("how many of the first %s seeds break each variant as expected, at either mix: the steadier figure, which chose the swarm "+
			"as the *-faults scenarios' default; rare: more than ten seeds a counterexample on average at either mix", thousands(float64(rs[0].RateSeeds)))))
}

// seedCount is n seeds as the swarm rows show it: "more than LIMIT" for
// one past the limit.
func seedCount(n uint64, limit int) string {
	if n > uint64(limit) {
		return "> " + wholeThousands(uint64(limit))
	}
	return wholeThousands(n)
}

// wholeThousands is a count with thousands separated by commas, and no
// decimal however small (thousands gives one below 10).
func wholeThousands(n uint64) string {
	if n < 10 {
		return fmt.Sprint(n)
	}
	return thousands(float64(n))
}

// printSwarm is the table of each teaching variant's blind searches.
func printSwarm(w io.Writer, rs []swarmResult) {
	if len(rs) == 0 {
		return
	}
	fmt.Fprintln(w, "\nUnder random faults only (scripted faults set aside): seeds to the first counterexample (-: none found), and seeds that break it:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TEACHING VARIANT\tFIXED MIX\tSWARM\tBREAKS, FIXED MIX\tBREAKS, SWARM")
	seeds := func(n uint64) string {
		if n == 0 {
			return "-"
		}
		return wholeThousands(n)
	}
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d of %d\t%d of %d\n", r.Scenario, seeds(r.Fixed), seeds(r.Swarm),
			r.FixedBreaks, r.RateSeeds, r.SwarmBreaks, r.RateSeeds)
	}
	tw.Flush()
}
