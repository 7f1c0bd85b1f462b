package scenarios

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/sim"
)

// Shard is one of N deterministic parts of a seed range, so that several
// machines or CI jobs search disjoint seeds: part I (1-based) of N takes
// a contiguous block, and the N blocks cover the range exactly.
type Shard struct{ I, N int }

// ParseShard reads "I/N", 1 <= I <= N.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("shard %q: want I/N with 1 <= I <= N, such as 2/4", s)
	}
	return Shard{I: i, N: n}, nil
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.I, s.N) }

// Range is this shard's part of the seeds first, first+1, ...,
// first+count-1: its first seed and how many it takes. The zero Shard is
// the whole range.
func (s Shard) Range(first uint64, count int) (uint64, int) {
	if s.N <= 1 {
		return first, count
	}
	lo := count * (s.I - 1) / s.N
	hi := count * s.I / s.N
	return first + uint64(lo), hi - lo
}

// Search runs a spec on a range of seeds, in parallel.
type Search struct {
	Spec Spec
	// First is the first seed (default 1); Seeds how many (default 100).
	First uint64
	Seeds int
	// Shard, when set, keeps only this shard's part of the range.
	Shard Shard
	// Workers run seeds in parallel (default: every core).
	Workers int
	// CheckLimit bounds porcupine's search of each object's history in
	// each run (Options.CheckLimit; zero: no limit).
	CheckLimit time.Duration
	// StopAtFirst stops at the first violation found (the search still
	// reports the lowest failing seed among those it ran).
	StopAtFirst bool
	// Progress, when set, is called after each seed, from the goroutine
	// that ran it (calls may come from several at once).
	Progress func(done, failed int)
}

// Failure is a seed whose run broke a check.
type Failure struct {
	Seed       uint64             `json:"seed"`
	Violations []models.Violation `json:"violations"`
	Schedule   string             `json:"schedule"`
	TraceHash  string             `json:"trace_hash"`
}

// SearchResult is what a search found.
type SearchResult struct {
	// First and Seeds are the range run (after sharding).
	First uint64 `json:"first"`
	Seeds int    `json:"seeds"`
	// Ran is how many seeds ran (fewer than Seeds when stopped early).
	Ran int `json:"ran"`
	// Failures, by seed.
	Failures []Failure `json:"failures"`
	// Ops is the simulated client operations of every run.
	Ops uint64 `json:"ops"`
	// Simulated and Checked add up the runs' time in the simulator and in
	// checking (Outcome.Simulated, Outcome.Checked), over every worker:
	// CPU time, more or less, not the search's wall time.
	Simulated time.Duration `json:"-"`
	Checked   time.Duration `json:"-"`
	// Coverage is what the runs exercised, added up.
	Coverage Coverage `json:"coverage"`
}

// HashString renders a trace hash as the tool prints it.
func HashString(h uint64) string { return fmt.Sprintf("%016x", h) }

// Run runs the search. It stops early when ctx ends (returning what it
// found so far with ctx's error) or when a run cannot be made at all.
func (s Search) Run(ctx context.Context) (*SearchResult, error) {
	if s.First == 0 {
		s.First = 1
	}
	if s.Seeds == 0 {
		s.Seeds = 100
	}
	first, count := s.Shard.Range(s.First, s.Seeds)
	workers := s.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, max(count, 1))
	if _, _, err := s.Spec.withDefaults(); err != nil {
		return nil, err
	}
	sw := &sweep{Search: s, first: first, results: make([]*Failure, count), ran: make([]bool, count), covs: make([]Coverage, count)}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sw.work(ctx)
		}()
	}
	wg.Wait()
	res := &SearchResult{First: first, Seeds: count, Ops: sw.ops.Load(), Coverage: Coverage{},
		Simulated: time.Duration(sw.simulated.Load()), Checked: time.Duration(sw.checked.Load())}
	for i := range sw.results {
		if sw.ran[i] {
			res.Ran++
			res.Coverage.add(sw.covs[i])
		}
		if sw.results[i] != nil {
			res.Failures = append(res.Failures, *sw.results[i])
		}
	}
	if sw.runErr != nil {
		return res, sw.runErr
	}
	return res, ctx.Err()
}

// sweep is a search under way: each seed's result, by its index from
// first, and the totals, written by every worker at once.
type sweep struct {
	Search
	first   uint64
	results []*Failure
	ran     []bool
	covs    []Coverage

	next, done, failed atomic.Int64
	ops                atomic.Uint64
	simulated, checked atomic.Int64
	stop               atomic.Bool
	errOnce            sync.Once
	runErr             error
}

// work runs the next seed not yet taken, until none is left, the search
// stops (an error, or the first violation with StopAtFirst) or ctx ends.
func (sw *sweep) work(ctx context.Context) {
	for !sw.stop.Load() && ctx.Err() == nil {
		i := int(sw.next.Add(1) - 1)
		if i >= len(sw.results) {
			return
		}
		seed := sw.first + uint64(i)
		o, err := Run(sw.Spec, seed, Options{CheckLimit: sw.CheckLimit})
		if err != nil {
			sw.errOnce.Do(func() { sw.runErr = fmt.Errorf("seed %d: %w", seed, err) })
			sw.stop.Store(true)
			return
		}
		sw.ran[i] = true
		sw.covs[i] = o.Coverage
		sw.ops.Add(o.Result.Ops)
		sw.simulated.Add(int64(o.Simulated))
		sw.checked.Add(int64(o.Checked))
		if o.Failed() {
			sw.results[i] = &Failure{Seed: seed, Violations: o.Violations, Schedule: o.Schedule.String(),
				TraceHash: HashString(o.Result.Hash)}
			sw.failed.Add(1)
			if sw.StopAtFirst {
				sw.stop.Store(true)
			}
		}
		d := sw.done.Add(1)
		if sw.Progress != nil {
			sw.Progress(int(d), int(sw.failed.Load()))
		}
	}
}

// Replay runs one seed of spec again, keeping its trace: the run a
// Failure names, exactly.
func Replay(spec Spec, seed uint64) (*Outcome, error) {
	return Run(spec, seed, Options{KeepTrace: true})
}

// withSchedule is spec with its faults replaced by sched (and no random
// ones): the spec a shrunk or explored counterexample replays with.
func withSchedule(spec Spec, sched sim.Schedule) Spec {
	spec.Faults, spec.Rates = sched, nil
	return spec
}
