package recipes_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/trace"
)

const doubleBarrierPath = "/app/db"

// doubleBarrierNew makes one process's handle on a double barrier.
type doubleBarrierNew = func(conn client.Conn, path, name string, size int) *recipes.NodeDoubleBarrier

// doubleBarrierProc is what one process of a double barrier run did.
type doubleBarrierProc struct {
	client       int           // its client index (c1 is 0)
	enterAt      time.Duration // its first call to Enter
	computeStart time.Duration // Enter returned
	computeEnd   time.Duration // its computation ended
	leftAt       time.Duration // Leave returned nil
	left         bool
	vanished     bool // Leave said its node had vanished
	computing    bool
}

// doubleBarrierProcess is process i of size: it starts after start, enters
// (again after a faulty error), computes for compute, and leaves.
func doubleBarrierProcess(newDB doubleBarrierNew, p *doubleBarrierProc, i, size int, start, compute time.Duration) body {
	return func(ctx context.Context, conn client.Conn) error {
		if err := conn.Sleep(ctx, start); err != nil {
			return err
		}
		db := newDB(conn, doubleBarrierPath, fmt.Sprintf("p%02d", i), size)
		p.enterAt = barrierNow(conn)
		for {
			err := db.Enter(ctx)
			if err == nil {
				break
			}
			if !faulty(err) {
				return fmt.Errorf("enter: %w", err)
			}
		}
		p.computeStart, p.computing = barrierNow(conn), true
		if err := conn.Sleep(ctx, compute); err != nil {
			return err
		}
		p.computeEnd, p.computing = barrierNow(conn), false
		switch err := db.Leave(ctx); {
		case err == nil:
			p.leftAt, p.left = barrierNow(conn), true
		case errors.Is(err, recipes.ErrNodeVanished):
			p.vanished = true
		default:
			return fmt.Errorf("leave: %w", err)
		}
		return nil
	}
}

// doubleBarrierSpawn spawns size processes, process i starting after
// start(i) and computing for compute(i).
func doubleBarrierSpawn(w *sim.World, newDB doubleBarrierNew, size int, start, compute func(int) time.Duration) []*doubleBarrierProc {
	procs := make([]*doubleBarrierProc, size)
	for i := range size {
		procs[i] = &doubleBarrierProc{client: i}
		w.Spawn("", doubleBarrierProcess(newDB, procs[i], i, size, start(i), compute(i)))
	}
	return procs
}

// doubleBarrierLost is when each client first had a session of its expire
// (absent: never).
func doubleBarrierLost(w *sim.World) map[int]time.Duration {
	owner := map[int64]int{}
	lost := map[int]time.Duration{}
	for _, r := range w.Trace().Records() {
		switch r.Kind {
		case trace.KState:
			if r.Sess != 0 {
				owner[r.Sess] = int(r.From) - int(trace.ClientActor(0))
			}
		case trace.KExpire:
			c, ok := owner[r.Sess]
			if _, seen := lost[c]; ok && !seen {
				lost[c] = r.At.Std()
			}
		}
	}
	return lost
}

// doubleBarrierCheck checks the double barrier's properties:
//
//   - nobody computes before every process has called Enter;
//   - nobody returns from Leave before every process has finished its
//     computation, except a process that had lost a session by then (its
//     node went with it, so the others do not wait for it);
//   - every process that never lost a session left (Leave returned nil).
func doubleBarrierCheck(w *sim.World, procs []*doubleBarrierProc) error {
	lost := doubleBarrierLost(w)
	var lastEnter time.Duration
	for _, p := range procs {
		lastEnter = max(lastEnter, p.enterAt)
	}
	for _, p := range procs {
		if p.computeStart < lastEnter {
			return fmt.Errorf("c%d started computing at %v, before the last process entered at %v",
				p.client+1, p.computeStart, lastEnter)
		}
		if _, ok := lost[p.client]; !ok && !p.left {
			return fmt.Errorf("c%d never lost its session but did not leave (vanished %v)", p.client+1, p.vanished)
		}
	}
	for _, q := range procs {
		if !q.left {
			continue
		}
		for _, p := range procs {
			if at, ok := lost[p.client]; ok && at <= q.leftAt {
				continue
			}
			if p.computing || p.computeEnd > q.leftAt {
				return fmt.Errorf("c%d left at %v while c%d, whose session lived, computed until %v",
					q.client+1, q.leftAt, p.client+1, p.computeEnd)
			}
		}
	}
	return nil
}

// doubleBarrierLeaveNotifications counts the notifications of the Leave
// phase: every one but those of the ready node.
func doubleBarrierLeaveNotifications(w *sim.World) int {
	n := 0
	for _, r := range w.Trace().Records() {
		if r.Kind == trace.KNotify && r.Path != doubleBarrierPath+"/ready" {
			n++
		}
	}
	return n
}

// Without faults, on 20 seeds with 5 processes entering at different times
// and computing for different lengths: nobody computes before all entered,
// nobody leaves before all finished, everybody leaves.
func TestDoubleBarrierSynchronises(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		w := newWorld(t, seed, 3)
		procs := doubleBarrierSpawn(w, recipes.NewDoubleBarrier, 5,
			func(i int) time.Duration { return time.Duration((int(seed)*7+i*13)%20) * time.Millisecond },
			func(i int) time.Duration { return time.Duration(1+(int(seed)*3+i*11)%30) * time.Millisecond })
		run(t, w)
		if err := doubleBarrierCheck(w, procs); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for _, p := range procs {
			if !p.left {
				t.Fatalf("seed %d: c%d did not leave", seed, p.client+1)
			}
		}
	}
}

// Under crashes, leader crashes, partitions, pauses (some past the session
// timeout), latency spikes and lost replies of the processes' creates and
// deletes, on 40 seeds: the same properties, where a process that lost its
// session is let go (the others may leave before it finishes, and it may
// itself leave with ErrNodeVanished), and every other process leaves.
func TestDoubleBarrierUnderFaults(t *testing.T) {
	rates := fault.Rates{Crash: 0.2, LeaderCrash: 0.2, Partition: 0.3, Pause: 0.3, Spike: 0.2, LoseReply: 2}
	expired := 0
	for seed := uint64(1); seed <= 40; seed++ {
		w := newWorld(t, seed, 3)
		procs := doubleBarrierSpawn(w, recipes.NewDoubleBarrier, 4,
			func(i int) time.Duration { return time.Duration((int(seed)*7+i*13)%10) * 100 * time.Millisecond },
			func(i int) time.Duration { return time.Duration(1+(int(seed)*3+i*11)%20) * 100 * time.Millisecond })
		sched := fault.RandomSchedule(sim.NewSeeded(seed), rates, 4*time.Second, 3, 4)
		if err := w.Inject(sched); err != nil {
			t.Fatal(err)
		}
		run(t, w)
		if err := doubleBarrierCheck(w, procs); err != nil {
			t.Fatalf("seed %d: %v\nschedule:\n%s\n%s", seed, err, sched, traceTail(w, 60))
		}
		expired += len(doubleBarrierLost(w))
	}
	if expired == 0 {
		t.Fatal("no session expired in 40 seeds: the faults did not test the failed-process case")
	}
}

// A lost create() reply, deterministically: c1's process node is created
// but the reply is lost. c1 creates it again, gets NodeExists, finds the
// node owned by its own session, and everyone goes through.
func TestDoubleBarrierLostCreateReply(t *testing.T) {
	// create#1 is /app, create#2 is /app/db, create#3 c1's process node.
	w := newWorld(t, 2, 3)
	procs := doubleBarrierSpawn(w, recipes.NewDoubleBarrier, 3,
		func(i int) time.Duration { return 0 },
		func(i int) time.Duration { return 10 * time.Millisecond })
	inject(t, w, "when c1 create#3 applied: lose-reply")
	run(t, w)
	var codes []int32 // s1's applies of creates of c1's node
	for _, r := range w.Trace().Records() {
		if r.Kind == trace.KApply && r.From == trace.ServerActor(0) && r.Op == client.OpCreate && r.Path == doubleBarrierPath+"/p00" {
			codes = append(codes, r.Code)
		}
	}
	if len(codes) != 2 || codes[0] != 0 || codes[1] == 0 {
		t.Fatalf("creates of c1's node: %v, want one applied, then one refused (NodeExists)", codes)
	}
	if err := doubleBarrierCheck(w, procs); err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		if !p.left {
			t.Fatalf("c%d did not leave", p.client+1)
		}
	}
}

// The failed-process scenario: 4 processes p00..p03. p00, the lowest, is
// paused at 500ms for 40s, mid-computation: its session expires about 10s
// later and its node with it. p01 and p03 finish at 1s and wait on p00's
// node; p02 computes until 20s.
//
// The recipe: when p00's node goes, p01 and p03 read the children again and
// wait on p02; all three leave at 20s, not held by the failed p00, which
// then learns it was dropped (ErrNodeVanished). The trusting variant: p01
// and p03 leave as soon as p00's node goes, while p02 still computes.
func TestDoubleBarrierFailedProcess(t *testing.T) {
	scenario := func(newDB doubleBarrierNew) ([]*doubleBarrierProc, error) {
		w := newWorld(t, 4, 3)
		procs := doubleBarrierSpawn(w, newDB, 4,
			func(i int) time.Duration { return 0 },
			func(i int) time.Duration {
				if i == 2 {
					return 20 * time.Second
				}
				return time.Second
			})
		inject(t, w, "at 500ms pause c1 40s")
		run(t, w)
		if lost := doubleBarrierLost(w); len(lost) != 1 || lost[0] == 0 {
			t.Fatalf("sessions lost: %v, want only c1's", lost)
		}
		return procs, doubleBarrierCheck(w, procs)
	}
	procs, err := scenario(recipes.NewDoubleBarrier)
	if err != nil {
		t.Fatalf("recipe: %v", err)
	}
	if !procs[0].vanished {
		t.Fatal("recipe: the failed process was not told its node vanished")
	}
	for _, p := range procs[1:] {
		if !p.left || p.leftAt < 20*time.Second || p.leftAt > 21*time.Second {
			t.Fatalf("recipe: c%d left %v at %v, want at about 20s (when p02 is done, before p00 resumes)",
				p.client+1, p.left, p.leftAt)
		}
	}
	if _, err := scenario(recipes.NewTrustingDoubleBarrier); err == nil ||
		!strings.Contains(err.Error(), "while c3, whose session lived, computed until 20") {
		t.Fatalf("trusting variant: %v, want someone leaving while c3 computes", err)
	}
}

// The recipe's exit wakes one process per deletion, except the last, which
// wakes everyone: with x = 8 processes finishing one after another, at
// most (x-1)+(x-1) notifications for x deletions. The herd variant, every
// process watching the barrier node's children, wakes every waiter at every
// deletion: x(x-1)/2.
func TestDoubleBarrierHerdFreeExit(t *testing.T) {
	const x = 8
	leave := func(newDB doubleBarrierNew, seed uint64) int {
		w := newWorld(t, seed, 3)
		procs := doubleBarrierSpawn(w, newDB, x,
			func(i int) time.Duration { return 0 },
			func(i int) time.Duration { return time.Duration(10*(1+(i*5+int(seed))%x)) * time.Millisecond })
		run(t, w)
		if err := doubleBarrierCheck(w, procs); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		return doubleBarrierLeaveNotifications(w)
	}
	var recipe, herd []int
	for seed := uint64(1); seed <= 5; seed++ {
		recipe = append(recipe, leave(recipes.NewDoubleBarrier, seed))
		herd = append(herd, leave(recipes.NewHerdDoubleBarrier, seed))
	}
	t.Logf("notifications while leaving, for %d deletions: recipe %v, herd %v", x, recipe, herd)
	if slices.Max(recipe) > 2*(x-1) {
		t.Fatalf("recipe: %v notifications, want at most %d: one per deletion, and x-1 for the last", recipe, 2*(x-1))
	}
	if slices.Min(herd) < 3*x {
		t.Fatalf("herd variant: %v notifications, want about x(x-1)/2 = %d, at least %d", herd, x*(x-1)/2, 3*x)
	}
}

// Counting the ready node as a process: entering works, leaving never
// ends, as the lowest process waits for ready to be deleted.
func TestDoubleBarrierCountingReadyNeverLeaves(t *testing.T) {
	w := newWorld(t, 1, 3)
	procs := doubleBarrierSpawn(w, recipes.NewReadyCountingDoubleBarrier, 3,
		func(i int) time.Duration { return time.Duration(i) * time.Millisecond },
		func(i int) time.Duration { return 10 * time.Millisecond })
	res := w.Run()
	var d *sim.DeadlockError
	if !errors.As(res.Err, &d) || !strings.Contains(d.Error(), "c1: waiting on a watch (set by exists) on "+doubleBarrierPath+"/ready") {
		t.Fatalf("the ready-counting variant ended with %v, want p00 deadlocked waiting on the ready node", res.Err)
	}
	for _, p := range procs {
		if p.computeStart == 0 || p.left {
			t.Fatalf("c%d: computed from %v, left %v: want everyone in, nobody out", p.client+1, p.computeStart, p.left)
		}
	}
}

// An Enter whose context ends removes the process node it created, so the
// process stops counting; a second process under a name already in use is
// refused.
func TestDoubleBarrierCancelledEnterAndNameInUse(t *testing.T) {
	w := newWorld(t, 1, 3)
	var enterErr, dupErr error
	var left []string
	w.Spawn("", func(ctx context.Context, conn client.Conn) error {
		db := recipes.NewDoubleBarrier(conn, doubleBarrierPath, "p00", 3)
		tctx, cancel := conn.WithTimeout(ctx, time.Second)
		defer cancel()
		enterErr = db.Enter(tctx)
		kids, _, err := conn.Children(ctx, doubleBarrierPath)
		left = kids
		return err
	})
	w.Spawn("", func(ctx context.Context, conn client.Conn) error {
		if err := conn.Sleep(ctx, 100*time.Millisecond); err != nil {
			return err
		}
		dupErr = recipes.NewDoubleBarrier(conn, doubleBarrierPath, "p00", 3).Enter(ctx)
		return nil
	})
	run(t, w)
	if !errors.Is(enterErr, context.DeadlineExceeded) {
		t.Fatalf("Enter with too few processes ended with %v, want its deadline", enterErr)
	}
	if len(left) != 0 {
		t.Fatalf("after the cancelled Enter the barrier node holds %v, want nothing", left)
	}
	if !errors.Is(dupErr, recipes.ErrBarrierNameTaken) {
		t.Fatalf("a second p00 entered with %v, want ErrBarrierNameTaken", dupErr)
	}
}
