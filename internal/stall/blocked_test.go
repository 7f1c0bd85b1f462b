package stall

import "testing"

const stuckDump = `goroutine 1 [chan receive]:
testing.(*T).Run(0x1, {0x2, 0x3})
	/go/src/testing/testing.go:2109 +0x4e5

goroutine 23 [sync.Mutex.Lock, 2 minutes]:
internal/sync.runtime_SemacquireMutex(0x1?, 0x0?, 0x0?)
	/go/src/runtime/sema.go:95 +0x25
sync.(*Mutex).Lock(...)
	/go/src/sync/mutex.go:46
example.com/app.(*Lock).Acquire(0x2)
	/src/app/lock.go:42 +0x19
github.com/zksim/zksim/sim.(*Scheduler).spawn.func1(0x3?)
	/src/sim/task.go:85 +0x72

goroutine 24 [coroutine]:
github.com/zksim/zksim/sim.(*Scheduler).spawn.func1(0x4?)
	/src/sim/task.go:85 +0x72
`

func TestBlockedIn(t *testing.T) {
	wait, where := blockedIn([]byte(stuckDump), 0, "zksim/sim.(*Scheduler).spawn.func1")
	if wait != "waits on a sync primitive (sync.Mutex.Lock)" || where != "example.com/app.(*Lock).Acquire (/src/app/lock.go:42)" {
		t.Fatalf("blockedIn = %q, %q", wait, where)
	}
	// Two stuck clients (two runs in one process): no guess.
	two := stuckDump + "\n" + `goroutine 30 [chan send]:
github.com/zksim/zksim/sim.(*Scheduler).spawn.func1(0x5?)
	/src/sim/task.go:85 +0x72
`
	if wait, where := blockedIn([]byte(two), 0, "zksim/sim.(*Scheduler).spawn.func1"); wait != "" || where != "" {
		t.Fatalf("blockedIn of two stuck clients = %q, %q; want no guess", wait, where)
	}
	if wait, _ := blockedIn([]byte(stuckDump), 0, "no such function"); wait != "" {
		t.Fatalf("blockedIn without the marker = %q", wait)
	}
}

// By its goroutine's id, a run's task is read among other runs' stuck
// tasks, and not at all once it has handed control back (a coroutine).
func TestBlockedInByGoroutine(t *testing.T) {
	two := stuckDump + "\n" + `goroutine 30 [sleep]:
time.Sleep(0x989680)
	/go/src/runtime/time.go:300 +0x10
example.com/app.(*Lock).Lock(0x2)
	/src/app/lock.go:17 +0x19
github.com/zksim/zksim/sim.(*Scheduler).spawn.func1(0x5?)
	/src/sim/task.go:85 +0x72
`
	if wait, where := blockedIn([]byte(two), 30, "unused"); wait != "sleeps on the wall clock (time.Sleep)" ||
		where != "example.com/app.(*Lock).Lock (/src/app/lock.go:17)" {
		t.Fatalf("blockedIn(30) = %q, %q", wait, where)
	}
	if wait, _ := blockedIn([]byte(two), 23, "unused"); wait != "waits on a sync primitive (sync.Mutex.Lock)" {
		t.Fatalf("blockedIn(23) = %q", wait)
	}
	if wait, where := blockedIn([]byte(two), 24, "unused"); wait != "" || where != "" {
		t.Fatalf("blockedIn of a coroutine = %q, %q; want nothing", wait, where)
	}
	if id := GoroutineID(); id == 0 {
		t.Fatal("GoroutineID = 0")
	}
}

// Waiting tells a wait outside the simulator from a computation.
func TestWaiting(t *testing.T) {
	for state, want := range map[string]bool{"chan receive": true, "select": true, "sync.Mutex.Lock": true, "semacquire": true,
		"sleep": true, "running": false, "runnable": false, "syscall": false, "IO wait": false} {
		if got := Waiting(waitWords(state)); got != want {
			t.Errorf("Waiting(%q) = %v, want %v", waitWords(state), got, want)
		}
	}
}
