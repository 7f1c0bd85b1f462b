package zksimtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"testing"
	"testing/cryptotest"
	"testing/synctest"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/reports"
	"github.com/zksim/zksim/scenarios"
	"github.com/zksim/zksim/serve"
	"github.com/zksim/zksim/sim"
)

// Go code written against go-zookeeper/zk's *zk.Conn, checked as it is:
// each client's zk.Connect gets a dialer that returns in-memory
// connections to the simulated servers (package serve), inside a
// testing/synctest bubble, so that go-zk's timers and the front end's
// pacing run on the bubble's clock: seconds of simulated time in
// milliseconds. What the bubble does not make deterministic (which of
// several goroutines runs first at one instant) is measured, not hidden:
// each seed runs Options.Runs times and the trace hashes are compared;
// a violation says how many of its seed's runs found it.
//
// go-zk shuffles the servers of a connect string with the global
// math/rand before any host provider sees them, so the dialer places
// each connection itself: client i's k-th dial goes to the k-th server of
// an order drawn from the seed, as a simulated client's host order is.

// GoZKLocker is a lock written against go-zookeeper/zk; zk.Lock is one.
type GoZKLocker interface {
	Lock() error
	Unlock() error
}

// GoZKOptions choose a go-zk program's experiment. Zero values take the
// defaults.
type GoZKOptions struct {
	// Clients is the number of clients, each its own zk.Connect (default 2).
	Clients int
	// Seeds is how many seeds to run (default 10).
	Seeds int
	// Runs is how many times each seed runs (default 2): a seed whose
	// runs' trace hashes differ is reported as not replaying exactly.
	Runs int
	// Rounds is how many times each client takes the lock (default 2).
	Rounds int
	// Hold is how long a holder keeps the lock, acting on the resource
	// it protects every Step of it (default 2s in steps of 500ms).
	Hold, Step time.Duration
	// Faults, in the schedule syntax, strike in every run; clients are
	// c1.. in the order of their zk.Connect calls.
	Faults string
	// SessionTimeout is what each client asks for (default 4s: the least
	// a server with the default tick grants).
	SessionTimeout time.Duration
	// Ensemble configures the simulated ensemble (servers, timing).
	Ensemble sim.Config
}

func (o GoZKOptions) withDefaults() GoZKOptions {
	o.Clients = max(o.Clients, 2)
	if o.Seeds <= 0 {
		o.Seeds = 10
	}
	if o.Runs <= 0 {
		o.Runs = 2
	}
	if o.Rounds <= 0 {
		o.Rounds = 2
	}
	if o.Hold <= 0 {
		o.Hold = 2 * time.Second
	}
	if o.Step <= 0 {
		o.Step = 500 * time.Millisecond
	}
	if o.SessionTimeout <= 0 {
		o.SessionTimeout = 4 * time.Second
	}
	return o
}

// GoZKLock checks a lock written against go-zookeeper/zk, unmodified:
// newLock makes each client's lock on path from its *zk.Conn. Each
// client takes the lock Rounds times and, holding it, acts on the
// resource it protects every Step; the mutex check judges the history (one
// holder at a time, as the uses show), the ownership check the servers'
// side. On a violation the test fails with the first failing seed, its
// timeline, how many of the seed's runs found it, and the line that runs
// it again.
func GoZKLock(t *testing.T, newLock func(conn *zk.Conn, path string) GoZKLocker, opt GoZKOptions) {
	t.Helper()
	opt = opt.withDefaults()
	sched, err := fault.ParseSchedule(opt.Faults)
	if err != nil {
		t.Fatalf("zksimtest: GoZKOptions.Faults: %v", err)
	}
	seeds := seedRange(opt.Seeds)
	exact := 0
	for _, seed := range seeds {
		runs := make([]goZKRun, opt.Runs)
		for i := range runs {
			runs[i] = runGoZKLock(t, seed, sched, newLock, opt)
		}
		if sameHashes(runs) {
			exact++
		}
		if failing := firstFailing(runs); failing != nil {
			reportGoZK(t, seed, failing, runs, opt)
			return
		}
	}
	t.Logf("zksimtest: %d seeds of %d go-zk clients, %d runs each, held; %d of %d seeds replayed exactly (the same trace hash each run)",
		len(seeds), opt.Clients, opt.Runs, exact, len(seeds))
}

// seedRange is the seeds to run: -zksim.seed alone, else 1..n
// (-zksim.seeds in place of n).
func seedRange(n int) []uint64 {
	if *flagSeed != 0 {
		return []uint64{*flagSeed}
	}
	if *flagSeeds > 0 {
		n = *flagSeeds
	}
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = uint64(i + 1)
	}
	return seeds
}

// goZKRun is one run of a seed: its outcome, judged.
type goZKRun struct {
	o   *scenarios.Outcome
	err error
}

// runGoZKLock runs one seed of the lock experiment in a bubble of its own.
func runGoZKLock(t *testing.T, seed uint64, sched fault.Schedule, newLock func(*zk.Conn, string) GoZKLocker, opt GoZKOptions) goZKRun {
	t.Helper()
	var run goZKRun
	synctest.Test(t, func(t *testing.T) {
		cfg := opt.Ensemble
		cfg.Seed = seed
		front, err := serve.New(serve.Options{Config: cfg, Faults: sched, Clients: opt.Clients, Name: t.Name(), Settle: synctest.Wait})
		if err != nil {
			run.err = err
			return
		}
		ctx, cancel := context.WithCancel(context.Background())
		type ended struct {
			res sim.Result
			err error
		}
		done := make(chan ended, 1)
		go func() {
			res, err := front.Run(ctx)
			done <- ended{res, err}
		}()
		// go-zk draws a protected create's guid from crypto/rand: drawn from
		// the seed, in the order the clients draw them.
		cryptotest.SetGlobalRandom(t, seed)
		rec := &goZKRecorder{now: func() int64 { return int64(front.Now()) }}
		var wg sync.WaitGroup
		for i := range opt.Clients {
			wg.Go(func() { goZKHolder(front, seed, i, rec, newLock, opt) })
		}
		wg.Wait()
		cancel()
		e := <-done
		if e.err != nil {
			run.err = e.err
			return
		}
		run.o, run.err = scenarios.Served(scenarios.ServedRun{Name: t.Name(), World: front.World(), Result: e.res, Schedule: sched,
			Checks: []string{"mutex", "ownership"}, Ops: rec.history(int64(e.res.End)), SessionTimeout: opt.SessionTimeout})
	})
	return run
}

// goZKHolder is client i: it connects, takes the lock Rounds times and
// uses the resource while it holds it, and closes its session.
func goZKHolder(front *serve.Front, seed uint64, i int, rec *goZKRecorder, newLock func(*zk.Conn, string) GoZKLocker, opt GoZKOptions) {
	// The clients start apart, in order, as the simulator's workloads
	// do: c1 is the first to ask, and no two draw their first guid at
	// one instant.
	time.Sleep(time.Duration(i) * startGap)
	conn, events, err := zk.Connect(fakeServers(front.Servers()), opt.SessionTimeout,
		zk.WithDialer(placedDialer(front, seed, i)), zk.WithLogInfo(false), zk.WithLogger(silent{}))
	if err != nil {
		return
	}
	defer conn.Close()
	go func() { // go-zk drops events nobody reads; read them all the same
		for range events {
		}
	}()
	const path = "/zksim/lock"
	lock := newLock(conn, path)
	for range opt.Rounds {
		a := rec.begin(i, models.Acquire, path)
		if err := lock.Lock(); err != nil {
			rec.end(a, models.Failed, err)
			continue
		}
		rec.end(a, models.OK, nil)
		for held := time.Duration(0); held < opt.Hold; held += opt.Step {
			time.Sleep(opt.Step)
			rec.instant(models.Operation{Client: i, Kind: models.Use, Path: path, Result: models.OK})
		}
		r := rec.begin(i, models.Release, path)
		if err := lock.Unlock(); err != nil {
			rec.end(r, models.Failed, err)
			continue
		}
		rec.end(r, models.OK, nil)
	}
}

// startGap is how far apart the clients start.
const startGap = 5 * time.Millisecond

// fakeServers is a connect string go-zk resolves without DNS; the
// dialer, not the address, says which server a connection reaches.
func fakeServers(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("127.0.0.1:%d", i+1)
	}
	return out
}

// placedDialer is client i's dialer: its k-th connection goes to the
// k-th server of an order drawn from the seed.
func placedDialer(front *serve.Front, seed uint64, i int) zk.Dialer {
	hosts := rand.New(rand.NewPCG(seed, uint64(i)+1)).Perm(front.Servers())
	var mu sync.Mutex
	dials := 0
	return func(_, _ string, _ time.Duration) (net.Conn, error) {
		mu.Lock()
		k := dials
		dials++
		mu.Unlock()
		return front.PipeAs(i+1, hosts[k%len(hosts)])
	}
}

// goZKRecorder records the clients' operations on the world's clock,
// from their goroutines.
type goZKRecorder struct {
	mu  sync.Mutex
	now func() int64
	ops []models.Operation
}

func (r *goZKRecorder) begin(c int, k models.OpKind, path string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ops = append(r.ops, models.Operation{Client: c, Kind: k, Path: path, Result: models.Pending, Call: r.now()})
	return len(r.ops) - 1
}

func (r *goZKRecorder) end(i int, res models.Result, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	op := &r.ops[i]
	op.Result, op.Return = res, r.now()
	if err != nil {
		op.Error = err.Error()
	}
}

func (r *goZKRecorder) instant(op models.Operation) {
	r.mu.Lock()
	defer r.mu.Unlock()
	op.Call = r.now()
	op.Return = op.Call
	r.ops = append(r.ops, op)
}

// history is the operations, a pending one ending at end.
func (r *goZKRecorder) history(end int64) []models.Operation {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]models.Operation, len(r.ops))
	for i, op := range r.ops {
		if op.Result == models.Pending {
			op.Return = end
		}
		out[i] = op
	}
	return out
}

// sameHashes reports whether every run of a seed has one trace hash.
func sameHashes(runs []goZKRun) bool {
	for _, r := range runs {
		if r.o == nil || r.o.Result.Hash != runs[0].o.Result.Hash {
			return false
		}
	}
	return true
}

// firstFailing is the first run of a seed that failed or found a
// violation.
func firstFailing(runs []goZKRun) *goZKRun {
	for i := range runs {
		if runs[i].err != nil || runs[i].o.Failed() {
			return &runs[i]
		}
	}
	return nil
}

// reportGoZK fails t with a seed's violation: what was found, the
// timeline, how many of the seed's runs found it, and how to run it again.
func reportGoZK(t *testing.T, seed uint64, failing *goZKRun, runs []goZKRun, opt GoZKOptions) {
	t.Helper()
	if failing.err != nil {
		t.Fatalf("zksimtest: seed %d: %v", seed, failing.err)
	}
	found := 0
	for _, r := range runs {
		if r.o != nil && r.o.Failed() {
			found++
		}
	}
	o := failing.o
	msg := fmt.Sprintf("zksimtest: seed %d of %d go-zk clients: %s violation (%s): %s\n",
		seed, opt.Clients, o.Violations[0].Kind, o.Violations[0].Check, o.Violations[0].Message)
	if tl, err := reports.NewTimeline(o); err == nil {
		msg += "\n" + tl.String() + "\n"
	}
	msg += fmt.Sprintf("found in %d of the seed's %d runs (go-zk's goroutines are not replayed: the servers' side is)\n", found, len(runs))
	msg += fmt.Sprintf("run it again: go test -run '^%s$' -zksim.seed=%d", t.Name(), seed)
	t.Fatal(msg)
}

// silent is a go-zk logger that says nothing: the timeline says it all.
type silent struct{}

func (silent) Printf(string, ...any) {}
