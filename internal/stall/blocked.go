package stall

import (
	"bytes"
	"fmt"
	"runtime"
	"strconv"
	"strings"
)

// Blocked says what a stalled client is doing, read from every
// goroutine's stack: the goroutine gid (the running task's, GoroutineID),
// or, with gid 0, the one whose stack runs through a function named
// marker (the simulator's task body) and is not parked as a coroutine (the
// other clients, handed back to the scheduler, are). It returns the
// runtime's word for its wait ("chan receive", "sync.Mutex.Lock", "sleep",
// "running" ...) in plain words, and the innermost frame of the client's
// own code (function, file and line), past the runtime's, sync's and
// time's. Both are "" when that goroutine is parked as a coroutine (it has
// handed control back), or, by marker, unless exactly one such goroutine
// is found (runs of other worlds in the same process, which a gid tells
// apart, would make it a guess).
func Blocked(gid uint64, marker string) (wait, where string) {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	return blockedIn(buf, gid, marker)
}

// blockedIn is Blocked on the dump of runtime.Stack(buf, true).
func blockedIn(dump []byte, gid uint64, marker string) (wait, where string) {
	found := 0
	for _, g := range bytes.Split(dump, []byte("\n\n")) {
		text := string(g)
		state, ok := goroutineState(text)
		if !ok || state == "coroutine" {
			continue
		}
		if gid != 0 {
			if id, _ := goroutineID(text); id == gid {
				return waitWords(state), ownFrame(text)
			}
			continue
		}
		if !strings.Contains(text, marker) {
			continue
		}
		if found++; found > 1 {
			return "", ""
		}
		wait, where = waitWords(state), ownFrame(text)
	}
	return wait, where
}

// GoroutineID is the calling goroutine's id, as stack dumps name it
// ("goroutine 23 [running]:"): a task records its own, so that Blocked
// reads its stack and no other run's.
func GoroutineID() uint64 {
	var buf [64]byte
	id, _ := goroutineID(string(buf[:runtime.Stack(buf[:], false)]))
	return id
}

// goroutineID is the id in a goroutine's header.
func goroutineID(g string) (uint64, bool) {
	rest, ok := strings.CutPrefix(g, "goroutine ")
	if !ok {
		return 0, false
	}
	digits, _, _ := strings.Cut(rest, " ")
	id, err := strconv.ParseUint(digits, 10, 64)
	return id, err == nil
}

// Waiting reports whether wait, as Blocked says it, is a wait outside the
// simulator (a Go channel or select, a sync primitive, a wall-clock
// sleep) rather than a computation or a system call.
func Waiting(wait string) bool {
	for _, p := range []string{"waits on a Go channel", "waits in a Go select", "waits on a sync primitive", "sleeps on the wall clock"} {
		if strings.HasPrefix(wait, p) {
			return true
		}
	}
	return false
}

// Sleeping reports whether wait, as Blocked says it, is a wall-clock
// sleep (time.Sleep): never a computation, nor a brief contention.
func Sleeping(wait string) bool { return strings.HasPrefix(wait, "sleeps on the wall clock") }

// goroutineState is the wait reason in a goroutine's header
// ("goroutine 23 [chan receive, 2 minutes]:" → "chan receive").
func goroutineState(g string) (string, bool) {
	header, _, _ := strings.Cut(g, "\n")
	open, close := strings.IndexByte(header, '['), strings.LastIndexByte(header, ']')
	if !strings.HasPrefix(header, "goroutine ") || open < 0 || close < open {
		return "", false
	}
	state, _, _ := strings.Cut(header[open+1:close], ",")
	return state, true
}

// waitWords says what the runtime's wait reason means for a client.
func waitWords(state string) string {
	switch {
	case strings.HasPrefix(state, "chan "):
		return "waits on a Go channel (" + state + ")"
	case strings.HasPrefix(state, "select"):
		return "waits in a Go select (" + state + ")"
	case strings.HasPrefix(state, "sync.") || state == "semacquire":
		return "waits on a sync primitive (" + state + ")"
	case state == "sleep":
		return "sleeps on the wall clock (time.Sleep)"
	case state == "running" || state == "runnable":
		return "runs without calling the Conn (a loop that never waits)"
	}
	return "is blocked (" + state + ")"
}

// ownFrame is the innermost frame of g's stack outside the runtime, sync,
// time and the iterator the simulator runs clients in: "function
// (file:line)".
func ownFrame(g string) string {
	lines := strings.Split(g, "\n")
	for i := 1; i+1 < len(lines); i += 2 {
		fn := strings.TrimSpace(lines[i])
		if fn == "" || systemFrame(fn) {
			continue
		}
		if paren := strings.LastIndexByte(fn, '('); paren > 0 {
			fn = fn[:paren]
		}
		file := strings.TrimSpace(lines[i+1])
		if sp := strings.IndexByte(file, ' '); sp > 0 {
			file = file[:sp]
		}
		return fmt.Sprintf("%s (%s)", fn, file)
	}
	return ""
}

// systemFrame reports whether a stack frame's function is Go's own.
func systemFrame(fn string) bool {
	for _, p := range []string{"runtime.", "internal/", "sync.", "sync/", "time.", "iter."} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}
