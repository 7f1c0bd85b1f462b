package live

import "time"

// heldKey is one direction of a client's link to the server at addr.
type heldKey struct {
	addr     string
	toServer bool
}

// OneWay holds one direction of the client's link to the server at addr
// for d (0: until Uncut): what the client sends it (toServer) or what it
// sends the client waits, the other direction going on, the connection
// staying open, as TCP keeps retransmitting across a one-way loss. The
// library notices a held link from the server as a silent one, when its
// read deadline passes (silence.go).
func (f *ClientFaults) OneWay(addr string, toServer bool, d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	until := time.Time{}
	if d > 0 {
		until = time.Now().Add(d)
	}
	if f.held == nil {
		f.held = map[heldKey]time.Time{}
	}
	f.held[heldKey{addr, toServer}] = until
}

// isHeld reports whether that direction of the link to addr is held now
// (OneWay, or every link while the cable is pulled: Silence).
func (f *ClientFaults) isHeld(addr string, toServer bool) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	until, ok := f.held[heldKey{addr, toServer}]
	return f.silent() || ok && (until.IsZero() || time.Now().Before(until))
}
