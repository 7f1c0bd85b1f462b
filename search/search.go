package search

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/scenarios"
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

// Sweep runs a spec on a range of seeds, in parallel.
type Sweep struct {
	Spec scenarios.Spec
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
	// StopAtFirst stops at the first run that broke a safety or liveness
	// check (models.ViolationKind.Dangerous), or found a violation of a
	// kind in StopAlso: a herd, a cost, does not stop it otherwise, so
	// that a cheaper finding never hides a dangerous one in the seeds
	// after it. The search still reports the lowest failing seed among
	// those it ran, and the first of each check (Found).
	StopAtFirst bool
	// StopAlso are the kinds of violation besides the dangerous ones that
	// stop a search with StopAtFirst (a scenario that expects a herd
	// stops at its first).
	StopAlso []models.ViolationKind
	// Keep is how many failing seeds are kept whole, the lowest (default
	// DefaultKeep): a search whose every seed fails holds as many
	// failures as seeds, each with its violations' operations, and a
	// million of them would not fit. The others are counted
	// (Result.Failed) and their checks and kinds noted
	// (Result.Found), so the verdict is the same.
	Keep int
	// Progress, when set, is called after each seed, from the goroutine
	// that ran it (calls may come from several at once).
	Progress func(done, failed int)
}

// DefaultKeep is Sweep.Keep's default.
const DefaultKeep = 1000

// Found is a check and a kind of violation some run found, and the lowest
// seed that found it.
type Found struct {
	Check string               `json:"check"`
	Kind  models.ViolationKind `json:"kind"`
	// Seed is the lowest seed run whose run found it; its failure is among
	// Result.Failures.
	Seed uint64 `json:"first_seed"`
}

// Failure is a seed whose run broke a check.
type Failure struct {
	Seed       uint64             `json:"seed"`
	Violations []models.Violation `json:"violations"`
	// Schedule is the run's faults, each as the schedule syntax writes it.
	Schedule  []string `json:"schedule"`
	TraceHash string   `json:"trace_hash"`
}

// Result is what a sweep found.
type Result struct {
	// First and Seeds are the range run (after sharding).
	First uint64 `json:"first"`
	Seeds int    `json:"seeds"`
	// Ran is how many seeds ran (fewer than Seeds when stopped early).
	Ran int `json:"ran"`
	// Failures, by seed: the lowest Sweep.Keep failing seeds, and the
	// first of each check and kind found. Failed counts every failing
	// seed, and Found is every check and kind of violation any of them
	// found, the most serious kind first (safety, liveness, herd,
	// undecided: models.ViolationKind.Rank), then by check.
	Failures []Failure `json:"failures"`
	Failed   int       `json:"failed"`
	Found    []Found   `json:"found"`
	// Ops is the simulated client operations of every run.
	Ops uint64 `json:"ops"`
	// Simulated and Checked add up the runs' time in the simulator and in
	// checking (Outcome.Simulated, Outcome.Checked), over every worker:
	// CPU time, more or less, not the search's wall time.
	Simulated time.Duration `json:"-"`
	Checked   time.Duration `json:"-"`
	// Coverage is what the runs exercised, added up.
	Coverage scenarios.Coverage `json:"coverage"`
}

// Run runs the search. It stops early when ctx ends (returning what it
// found so far with ctx's error) or when a run cannot be made at all.
func (s Sweep) Run(ctx context.Context) (*Result, error) {
	if s.First == 0 {
		s.First = 1
	}
	if s.Seeds == 0 {
		s.Seeds = 100
	}
	if s.Keep <= 0 {
		s.Keep = DefaultKeep
	}
	first, count := s.Shard.Range(s.First, s.Seeds)
	workers := s.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, max(count, 1))
	if _, err := s.Spec.WithDefaults(); err != nil {
		return nil, err
	}
	sw := &sweeper{Sweep: s, first: first, count: count, firsts: map[Found]Failure{}, res: Result{Coverage: scenarios.Coverage{}}}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sw.work(ctx)
		}()
	}
	wg.Wait()
	res := &sw.res
	res.First, res.Seeds, res.Ran, res.Ops = first, count, int(sw.done.Load()), sw.ops.Load()
	res.Simulated, res.Checked = time.Duration(sw.simulated.Load()), time.Duration(sw.checked.Load())
	sw.finish()
	if sw.runErr != nil {
		return res, sw.runErr
	}
	return res, ctx.Err()
}

// sweeper is a search under way, its workers taking seeds in turn: the
// totals, and under mu what the finished seeds found and covered.
type sweeper struct {
	Sweep
	first uint64
	count int

	next, done, failed atomic.Int64
	ops                atomic.Uint64
	simulated, checked atomic.Int64
	stop               atomic.Bool
	errOnce            sync.Once
	runErr             error

	mu  sync.Mutex
	res Result // Failures (the lowest Keep, give or take), Failed, Coverage
	// firsts is, by check and kind found (Seed unset), the lowest seed's
	// failure.
	firsts map[Found]Failure
}

// work runs the next seed not yet taken, until none is left, the search
// stops (an error, or the first violation with StopAtFirst) or ctx ends.
func (sw *sweeper) work(ctx context.Context) {
	stopped := func() bool { return ctx.Err() != nil }
	for !sw.stop.Load() && ctx.Err() == nil {
		i := int(sw.next.Add(1) - 1)
		if i >= sw.count {
			return
		}
		seed := sw.first + uint64(i)
		o, err := scenarios.Run(sw.Spec, seed, scenarios.Options{CheckLimit: sw.CheckLimit, Stop: stopped})
		if errors.Is(err, scenarios.ErrStopped) {
			return // interrupted: the seed did not finish, and is not counted
		}
		if err != nil {
			sw.errOnce.Do(func() { sw.runErr = fmt.Errorf("seed %d: %w", seed, err) })
			sw.stop.Store(true)
			return
		}
		sw.ops.Add(o.Result.Ops)
		sw.simulated.Add(int64(o.Simulated))
		sw.checked.Add(int64(o.Checked))
		sw.record(o)
		if o.Failed() {
			sw.failed.Add(1)
			if sw.StopAtFirst && sw.stops(o.Violations) {
				sw.stop.Store(true)
			}
		}
		d := sw.done.Add(1)
		if sw.Progress != nil {
			sw.Progress(int(d), int(sw.failed.Load()))
		}
	}
}

// record adds a finished run's coverage and, when it failed, its failure:
// kept whole among the lowest seeds, its checks and kinds noted.
func (sw *sweeper) record(o *scenarios.Outcome) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	sw.res.Coverage.Add(o.Coverage)
	if !o.Failed() {
		return
	}
	sw.res.Failed++
	f := Failure{Seed: o.Seed, Violations: o.Violations, Schedule: o.Schedule.Texts(), TraceHash: scenarios.HashString(o.Result.Hash)}
	for _, v := range o.Violations {
		key := Found{Check: v.Check, Kind: v.Kind}
		if first, ok := sw.firsts[key]; !ok || o.Seed < first.Seed {
			sw.firsts[key] = f
		}
	}
	sw.res.Failures = append(sw.res.Failures, f)
	if len(sw.res.Failures) >= 2*sw.Keep {
		sw.trim(sw.Keep)
	}
}

// stops reports whether a run that found violations stops a search with
// StopAtFirst (stopsAt).
func (sw *sweeper) stops(violations []models.Violation) bool { return stopsAt(violations, sw.StopAlso) }

// stopsAt reports whether a run that found violations ends a search that
// stops at its first finding: one is dangerous (safety or liveness), or
// of a kind in also. A cost (a herd) alone does not: a cheaper finding
// must never hide a dangerous one in the runs after it.
func stopsAt(violations []models.Violation, also []models.ViolationKind) bool {
	return slices.ContainsFunc(violations, func(v models.Violation) bool {
		return v.Kind.Dangerous() || slices.Contains(also, v.Kind)
	})
}

// finish completes the result: the kept failures (the lowest Keep, and the
// first of each check and kind found, which Keep may have trimmed), and
// what was found, the most serious first.
func (sw *sweeper) finish() {
	sw.trim(sw.Keep)
	for key, f := range sw.firsts {
		if !slices.ContainsFunc(sw.res.Failures, func(g Failure) bool { return g.Seed == f.Seed }) {
			sw.res.Failures = append(sw.res.Failures, f)
		}
		key.Seed = f.Seed
		sw.res.Found = append(sw.res.Found, key)
	}
	slices.SortFunc(sw.res.Failures, func(a, b Failure) int { return cmp.Compare(a.Seed, b.Seed) })
	SortFound(sw.res.Found)
}

// SortFound sorts found the most serious kind first, then by check.
func SortFound(found []Found) {
	slices.SortFunc(found, func(a, b Found) int {
		return cmp.Or(cmp.Compare(a.Kind.Rank(), b.Kind.Rank()), cmp.Compare(a.Check, b.Check), cmp.Compare(a.Kind, b.Kind))
	})
}

// Worst is the failure to show first: the lowest seed that found the most
// serious kind of violation found (a run with two leaders before a run
// that herded, whatever their seeds); the lowest failing seed when what
// was found is not known. false when nothing failed.
func (r *Result) Worst() (Failure, bool) {
	if len(r.Failures) == 0 {
		return Failure{}, false
	}
	if len(r.Found) == 0 {
		return r.Failures[0], true
	}
	first := r.Found[0].Seed
	for _, f := range r.Found[1:] {
		if f.Kind == r.Found[0].Kind {
			first = min(first, f.Seed)
		}
	}
	for _, f := range r.Failures {
		if f.Seed == first {
			return f, true
		}
	}
	return r.Failures[0], true
}

// trim sorts the kept failures by seed and keeps the lowest keep.
func (sw *sweeper) trim(keep int) {
	fs := sw.res.Failures
	slices.SortFunc(fs, func(a, b Failure) int { return cmp.Compare(a.Seed, b.Seed) })
	clear(fs[min(keep, len(fs)):])
	sw.res.Failures = fs[:min(keep, len(fs))]
}
