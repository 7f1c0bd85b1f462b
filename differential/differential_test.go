package differential

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/live"
)

var (
	diffPrograms = flag.Int("diff.programs", 30, "programs TestDifferentialSimAgainstLive runs; `make differential` runs 1000")
	diffSteps    = flag.Int("diff.steps", 60, "steps of each differential program")
)

// The same random programs, by one, two or three clients in a fixed
// interleaving, answer the same in the simulator and on a live ensemble,
// every field a client can observe (see Run.Render). The divergences
// are counted by the operation at which each program first diverged.
func TestDifferentialSimAgainstLive(t *testing.T) {
	if testing.Short() {
		t.Log("-short: the differential runs are in the full test")
		return
	}
	e := startEnsemble(t)
	var tl tally
	for seed := uint64(1); seed <= uint64(*diffPrograms); seed++ {
		clients := 1 + int(seed%3)
		root := fmt.Sprintf("/diff-%d", seed)
		tl.add(seed, clients, diffProgram(t, e, root, Program(root, seed, clients, *diffSteps), seed, clients))
	}
	tl.report(t)
}

// startEnsemble starts a local ensemble of three, with the differential's
// settings, stopped when t ends.
func startEnsemble(t *testing.T) *live.Ensemble {
	t.Helper()
	e, err := live.StartEnsemble(3, EnsembleOptions)
	if err != nil {
		t.Fatalf("a local ensemble: %v", err)
	}
	t.Cleanup(func() { e.Stop() })
	return e
}

// tally counts the programs that diverged by the operation at which each
// first did, and keeps the first few divergences.
type tally struct {
	programs int
	byOp     map[string]int
	first    []string
}

// add counts one program's outcome (d nil: it agreed throughout).
func (tl *tally) add(seed uint64, clients int, d *Divergence) {
	tl.programs++
	if d == nil {
		return
	}
	if tl.byOp == nil {
		tl.byOp = map[string]int{}
	}
	tl.byOp[d.Op]++
	if len(tl.first) < 5 {
		tl.first = append(tl.first, fmt.Sprintf("seed %d, %d clients, %s", seed, clients, d))
	}
}

// report logs the count of divergences by operation, and fails t with
// the first few when there are any.
func (tl *tally) report(t *testing.T) {
	t.Helper()
	n := 0
	for _, c := range tl.byOp {
		n += c
	}
	t.Logf("%d programs of %d steps: %d diverged", tl.programs, *diffSteps, n)
	for _, op := range slices.Sorted(maps.Keys(tl.byOp)) {
		t.Logf("  first divergence at %s: %d", op, tl.byOp[op])
	}
	if n > 0 {
		t.Errorf("%d of %d programs diverged; the first:\n%s", n, tl.programs, strings.Join(tl.first, "\n"))
	}
}

// diffProgram runs prog (under root) in the simulator and on e, and returns where they
// first answered differently (nil if nowhere).
func diffProgram(t *testing.T, e *live.Ensemble, root string, prog []Op, seed uint64, clients int) *Divergence {
	t.Helper()
	simRun, err := RunSim(root, prog, clients, seed)
	if err != nil {
		t.Fatalf("seed %d in the simulator: %v", seed, err)
	}
	return Compare(prog, simRun, runGoZK(t, e.ConnectString(), root, prog, seed, clients))
}

// runGoZK runs prog (under root) with go-zk sessions (live.Dial), one per
// client, on the servers at addrs, and returns what each step answered.
func runGoZK(t *testing.T, addrs []string, root string, prog []Op, seed uint64, clients int) Run {
	t.Helper()
	conns := make([]client.Conn, clients)
	for i := range conns {
		c, err := live.Dial(addrs, live.Options{})
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = c
	}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// A fresh root for each program (a run of the test before may have
	// left one).
	cleanTree(t, ctx, conns[0], root)
	run, err := RunProgram(ctx, root, prog, conns)
	if err != nil {
		t.Fatalf("seed %d on %v: %v", seed, addrs, err)
	}
	return run
}

// cleanTree deletes path and everything below it.
func cleanTree(t *testing.T, ctx context.Context, c client.Conn, path string) {
	kids, _, err := c.Children(ctx, path)
	if err != nil {
		return
	}
	for _, k := range kids {
		cleanTree(t, ctx, c, path+"/"+k)
	}
	_ = c.Delete(ctx, path, -1)
}
