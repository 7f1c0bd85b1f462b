package differential

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/zksim/zksim/serve"
	"github.com/zksim/zksim/sim"
)

var diffTapes = flag.String("diff.tapes", "", "directory where TestDifferentialFrontEndAgainstLive keeps each program's tape (serve.CreateTape), to decode a divergence's frames")

// The same random programs, run by the same client code (go-zk, through
// live.Dial) against zksim serve's front end and against a live
// ensemble, answer the same, every field Run.Render shows: the server side
// is the only difference, so a divergence is the front end's (its codec,
// its sessions) or the simulator's. The "sim" side of a divergence is the
// front end's answer.
func TestDifferentialFrontEndAgainstLive(t *testing.T) {
	if testing.Short() {
		t.Log("-short: the differential runs are in the full test")
		return
	}
	e := startEnsemble(t)
	var tl tally
	for seed := uint64(1); seed <= uint64(*diffPrograms); seed++ {
		clients := 1 + int(seed%3)
		root := fmt.Sprintf("/diff-%d", seed)
		prog := Program(root, seed, clients, *diffSteps)
		served := runServed(t, root, prog, seed, clients)
		tl.add(seed, clients, Compare(prog, served, runGoZK(t, e.ConnectString(), root, prog, seed, clients)))
	}
	tl.report(t)
}

// runServed runs prog with go-zk against a front end of the simulated
// ensemble the differential configures for seed (SimConfig), on
// 127.0.0.1, and returns what each step answered. With -diff.tapes the
// run's tape is kept there.
func runServed(t *testing.T, root string, prog []Op, seed uint64, clients int) Run {
	t.Helper()
	opts := serve.Options{Config: SimConfig(seed), Name: fmt.Sprintf("differential seed %d", seed)}
	if *diffTapes != "" {
		tape, err := serve.CreateTape(filepath.Join(*diffTapes, fmt.Sprintf("seed-%d.tape", seed)), opts)
		if err != nil {
			t.Fatal(err)
		}
		opts.Tape = tape
	}
	f, err := serve.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	addrs, err := f.Listen()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	type ran struct {
		res sim.Result
		err error
	}
	done := make(chan ran, 1)
	go func() {
		res, err := f.Run(ctx)
		done <- ran{res, err}
	}()
	run := runGoZK(t, addrs, root, prog, seed, clients)
	cancel()
	if r := <-done; r.err != nil {
		t.Fatalf("seed %d: the front end: %v", seed, r.err)
	}
	return run
}
