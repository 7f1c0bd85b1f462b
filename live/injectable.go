package live

import (
	"fmt"

	"github.com/zksim/zksim/fault"
)

// Injectable reports whether the live world can inject f: a fault tied
// to a client's request or notification that its dialer can strike
// (World.Arm), or one at a time or on a holding that Timed allows.
func Injectable(f fault.Fault, local, proxied bool) bool {
	if t := f.When; t != nil && t.On != fault.OnHolds {
		switch {
		case f.Kind == fault.LoseReply && t.On == fault.OnApplied, f.Kind == fault.LoseRequest && t.On == fault.OnReceived,
			f.Kind == fault.Delay && t.On == fault.OnApplied, (f.Kind == fault.LoseReply || f.Kind == fault.Delay) && t.On == fault.OnNotified,
			(f.Kind == fault.LoseReply || f.Kind == fault.Delay) && t.On == fault.OnFailed,
			f.Kind == fault.Disconnect && (t.On == fault.OnApplied || t.On == fault.OnNotified):
			return true
		}
		return false
	}
	return Timed(f, local, proxied)
}

// NotInjectable is the error that refuses a fault the live world cannot
// inject.
func NotInjectable(f fault.Fault) error {
	return fmt.Errorf("faults: %q cannot be injected on a live ensemble here (live faults: crash sN|leader, "+
		"restart sN, pause cN|sN|leader, disconnect cN for D, partition A B, one-way sA sB, isolate sN, heal, spike EXTRA for D, "+
		"lag sN for D; lose-reply, delay and disconnect on a request applied or a notification, lose-reply and delay on a "+
		"request failed, lose-request on a request "+
		"received, expire cN; crashes, server pauses and links need the local ensemble)", f)
}

// Timed reports whether a fault at a time (or on a holding) can be
// struck live (World.Strike): on a local ensemble (local), whose links
// between servers are proxied (proxied).
func Timed(f fault.Fault, local, proxied bool) bool {
	switch f.Kind {
	case fault.Crash:
		return local && (f.A.Kind == fault.ServerT || f.A.Kind == fault.LeaderT)
	case fault.Restart:
		return local
	case fault.Pause:
		return f.A.Kind == fault.ClientT || local // a server's process: the local ensemble's
	case fault.Disconnect:
		return f.For > 0
	case fault.Expire: // through a second connection with each session's id and password
		return f.A.Kind == fault.ClientT
	case fault.Partition:
		// A client's link through its dialer (on a local ensemble, whose
		// servers' addresses it knows by index); between two servers
		// through the local ensemble's proxies.
		return local && (f.A.Kind == fault.ClientT || f.B.Kind == fault.ClientT || proxied)
	case fault.Isolate, fault.Heal, fault.Spike:
		return local && proxied
	case fault.OneWay: // between servers through their proxies; a client's link in its dialer
		return local && (proxied || f.A.Kind == fault.ClientT || f.B.Kind == fault.ClientT)
	case fault.Lag:
		// A follower's quorum link, held up; the leader has no such link,
		// so "lag leader" (or the applier, known only when it applies) is
		// the simulator's.
		return local && proxied && f.A.Kind == fault.ServerT
	}
	return false
}

// NeedsProxiedLinks reports whether faults, or random faults at rates
// (nil: none), act on the links between servers (a partition, an
// isolation, a heal, a latency spike, a lag): a local ensemble for them
// must be started with its links proxied (EnsembleOptions.ProxyPeers).
func NeedsProxiedLinks(faults []fault.Fault, rates *fault.Rates) bool {
	for _, f := range faults {
		switch f.Kind {
		case fault.Partition, fault.OneWay, fault.Isolate, fault.Heal, fault.Spike, fault.Lag:
			return true
		}
	}
	r := rates
	return r != nil && (r.Partition > 0 || r.Isolate > 0 || r.Spike > 0 || r.Lag > 0)
}
