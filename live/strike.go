package live

import (
	"fmt"
	"slices"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
)

// StruckFault is a fault a live run injected: the fault (read by its
// fields), its text (as the schedule prints it), and when it struck, on
// the run's clock (from its clients' start) and on the wall clock.
type StruckFault struct {
	Fault fault.Fault   `json:"-"`
	Text  string        `json:"fault"`
	At    time.Duration `json:"-"`
	AtMs  float64       `json:"at_ms"`
	Wall  time.Time     `json:"wall"`
}

// struckFault is f, struck at wall on a run that began at origin.
func struckFault(f fault.Fault, wall, origin time.Time) StruckFault {
	at := wall.Sub(origin)
	return StruckFault{Fault: f, Text: f.String(), At: at, AtMs: float64(at.Microseconds()) / 1000, Wall: wall}
}

// Arm arms a fault tied to a client's request or notification in that
// client's dialer, where the live world can: a lost reply, request or
// notification, a delayed reply or notification, a disconnect as one
// arrives. It reports whether it did.
func (w *World) Arm(f fault.Fault) (bool, error) {
	t := f.When
	if t == nil {
		return false, nil
	}
	if t.Client >= len(w.procs) {
		return false, fmt.Errorf("no client c%d", t.Client+1)
	}
	faults := w.procs[t.Client].faults
	switch {
	case f.Kind == fault.LoseReply && t.On == fault.OnApplied:
		return true, faults.LoseReply(t.Op, t.Nth)
	case f.Kind == fault.LoseRequest && t.On == fault.OnReceived:
		return true, faults.LoseRequest(t.Op, t.Nth)
	case f.Kind == fault.Delay && t.On == fault.OnApplied:
		return true, faults.DelayReply(t.Op, t.Nth, f.D)
	case f.Kind == fault.LoseReply && t.On == fault.OnFailed:
		return true, faults.LoseFailedReply(t.Op, t.Nth)
	case f.Kind == fault.Delay && t.On == fault.OnFailed:
		return true, faults.DelayFailedReply(t.Op, t.Nth, f.D)
	case (f.Kind == fault.LoseReply || f.Kind == fault.Delay) && t.On == fault.OnNotified:
		faults.Notification(t.Nth, f.D) // D is 0 for a loss
		return true, nil
	case f.Kind == fault.Disconnect && t.On == fault.OnApplied:
		return true, faults.Disconnect(t.Op, t.Nth, f.For)
	case f.Kind == fault.Disconnect && t.On == fault.OnNotified:
		faults.DisconnectOnNotification(t.Nth, f.For)
		return true, nil
	}
	return false, nil
}

// StrikeOnTime sets a timer for each fault of timed at a time, from the
// run's origin, and returns what stops them.
func (w *World) StrikeOnTime(timed []fault.Fault) (stop func()) {
	var timers []*time.Timer
	for _, f := range timed {
		if f.When == nil {
			timers = append(timers, time.AfterFunc(f.At, func() { w.Strike(f) }))
		}
	}
	return func() {
		for _, t := range timers {
			t.Stop()
		}
	}
}

// HoldsHook is what a workload tells of its holdings: the faults of timed
// tied to "cN holds#K" strike when client N holds for the Kth time. The
// workload calls it with the world's lock held, one client at a time.
func (w *World) HoldsHook(timed []fault.Fault) func(client int) {
	counts := make([]int, len(w.procs))
	return func(i int) {
		counts[i]++
		for _, f := range timed {
			if t := f.When; t != nil && t.On == fault.OnHolds && t.Client == i && t.Nth == counts[i] {
				w.Strike(f)
			}
		}
	}
}

// FaultsPending says whether a workload should go on past its rounds:
// until every fault of timed has struck and been undone, and settle more
// has passed for the ensemble and the sessions to recover, so that every
// fault strikes while clients are at work (nil when timed is empty). The
// caller passes the session timeout as settle; 0, a run that named none,
// settles for client.DefaultSessionTimeout, what its sessions asked for.
func (w *World) FaultsPending(timed []fault.Fault, settle time.Duration) func() bool {
	if len(timed) == 0 {
		return nil
	}
	if settle == 0 {
		settle = client.DefaultSessionTimeout
	}
	return func() bool {
		now := time.Since(w.origin)
		w.struckMu.Lock()
		defer w.struckMu.Unlock()
		for _, f := range timed {
			at := f.At
			if f.When != nil { // tied to a holding: when it struck, if it has
				i := slices.IndexFunc(w.struck, func(s StruckFault) bool { return s.Fault.Equal(f) })
				if i < 0 {
					return true
				}
				at = w.struck[i].At
			}
			if now < at+f.For+f.D+settle {
				return true
			}
		}
		return false
	}
}

// Tally sorts the run's faults into those that struck, with when, in the
// order they did, and those that did not.
func (w *World) Tally(timed, armed []fault.Fault) (injected []StruckFault, never fault.Schedule) {
	w.struckMu.Lock()
	struck := slices.Clone(w.struck)
	w.struckMu.Unlock()
	for _, f := range timed {
		i := slices.IndexFunc(struck, func(s StruckFault) bool { return s.Fault.Equal(f) })
		if i < 0 {
			never = append(never, f)
			continue
		}
		injected = append(injected, struck[i])
		struck = slices.Delete(struck, i, i+1)
	}
	for _, f := range armed {
		t := f.When
		faults := w.procs[t.Client].faults
		at, hit := faults.StruckAt(t.Op, t.Nth)
		switch t.On {
		case fault.OnNotified:
			at, hit = faults.NotificationStruckAt(t.Nth)
		case fault.OnFailed:
			at, hit = faults.FailedStruckAt(t.Op, t.Nth)
		}
		if !hit {
			never = append(never, f)
			continue
		}
		injected = append(injected, struckFault(f, at, w.origin))
	}
	slices.SortStableFunc(injected, func(a, b StruckFault) int { return a.Wall.Compare(b.Wall) })
	return injected, never
}

// Strike carries out a fault at a time, or tied to a holding, now.
func (w *World) Strike(f fault.Fault) {
	e := w.ensemble
	fmt.Fprintf(w.log, "live fault at %s: %s\n", time.Since(w.origin).Round(time.Millisecond), f)
	w.struckMu.Lock()
	w.struck = append(w.struck, struckFault(f, time.Now(), w.origin))
	w.struckMu.Unlock()
	server := func(t fault.Target) int {
		if t.Kind == fault.LeaderT {
			return e.Leader()
		}
		return t.Index
	}
	switch f.Kind {
	case fault.Crash:
		i := server(f.A)
		if i < 0 || i >= len(e.Servers) {
			return
		}
		_ = e.Kill(i)
		if f.For > 0 {
			time.AfterFunc(f.For, func() { _ = e.Restart(i) })
		}
	case fault.Restart:
		if f.A.Index < len(e.Servers) {
			_ = e.Restart(f.A.Index)
		}
	case fault.Pause:
		if f.A.Kind != fault.ClientT {
			if i := server(f.A); i >= 0 && i < len(e.Servers) {
				_ = e.Pause(i, f.D)
			}
		} else if f.A.Index < len(w.procs) {
			w.procs[f.A.Index].Pause(f.D)
		}
	case fault.Expire:
		if f.A.Index < len(w.procs) {
			w.procs[f.A.Index].expireAll(w.log)
		}
	case fault.Disconnect:
		// The process's cable pulled: nothing passes, no connection is
		// made, for every session of the process (they share the dialer);
		// the connections stay open, and the library notices the silence
		// when its read deadline passes, as a simulated client does.
		if f.A.Index < len(w.procs) && f.For > 0 {
			w.procs[f.A.Index].faults.Silence(f.For)
		}
	default:
		w.strikeLinks(f, e)
	}
}

// strikeLinks carries out a fault on links: a partition between two
// servers or between a client and a server, a server isolated, links
// healed, every link between servers slowed. Links between servers go
// through the local ensemble's proxies (peerlinks.go), a client's
// through its dialer.
func (w *World) strikeLinks(f fault.Fault, e *Ensemble) {
	undo := func(fn func()) {
		if f.For > 0 {
			time.AfterFunc(f.For, fn)
		}
	}
	switch f.Kind {
	case fault.Partition:
		a, b := f.A, f.B
		if a.Kind == fault.ClientT {
			w.procs[a.Index].faults.Cut(e.Servers[b.Index].Addr(), f.For)
			return
		}
		if b.Kind == fault.ClientT {
			w.procs[b.Index].faults.Cut(e.Servers[a.Index].Addr(), f.For)
			return
		}
		w.note(e.Partition(a.Index, b.Index))
		undo(func() { w.note(e.Heal(a.Index, b.Index)) })
	case fault.Isolate:
		i := f.A.Index
		w.note(e.Isolate(i))
		for _, p := range w.procs {
			p.faults.Cut(e.Servers[i].Addr(), f.For)
		}
		undo(func() {
			for j := range e.Servers {
				if j != i {
					w.note(e.Heal(i, j))
				}
			}
		})
	case fault.OneWay:
		switch {
		case f.A.Kind == fault.ClientT: // what the client sends the server
			w.procs[f.A.Index].faults.OneWay(e.Servers[f.B.Index].Addr(), true, f.For)
		case f.B.Kind == fault.ClientT: // what the server sends the client
			w.procs[f.B.Index].faults.OneWay(e.Servers[f.A.Index].Addr(), false, f.For)
		default:
			w.note(e.OneWay(f.A.Index, f.B.Index))
			undo(func() { w.note(e.Heal(f.A.Index, f.B.Index)) })
		}
	case fault.Heal:
		w.heal(f, e)
	case fault.Lag:
		if i := f.A.Index; f.A.Kind == fault.ServerT && i < len(e.Servers) {
			w.note(e.Lag(i, f.For))
			time.AfterFunc(f.For, func() { w.note(e.Lag(i, 0)) })
		}
	case fault.Spike:
		w.note(e.Slow(f.D))
		time.AfterFunc(f.For, func() { w.note(e.Slow(0)) })
		until := time.Now().Add(f.For)
		for _, p := range w.procs {
			p.faults.Slow(f.D, until) // the clients' links too, as in the simulator
		}
	}
}

// heal reopens the links a heal names (every link when it names none).
func (w *World) heal(f fault.Fault, e *Ensemble) {
	a, b := f.A, f.B
	switch {
	case a.Kind == fault.NoTarget:
		w.note(e.HealAll())
		for _, p := range w.procs {
			p.faults.Uncut("")
		}
	case a.Kind == fault.ClientT || b.Kind == fault.ClientT:
		if a.Kind != fault.ClientT {
			a, b = b, a
		}
		w.procs[a.Index].faults.Uncut(e.Servers[b.Index].Addr())
	default:
		w.note(e.Heal(a.Index, b.Index))
	}
}

// note logs an error a fault's action met (the run goes on: a fault that
// could not be made shows in what the run did).
func (w *World) note(err error) {
	if err != nil {
		fmt.Fprintf(w.log, "live fault: %v\n", err)
	}
}
