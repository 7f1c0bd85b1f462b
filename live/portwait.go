package live

import (
	"io"
	"net"
	"sync"
	"time"
)

// portWait stands between the proxies of peerLinks and one server port,
// so that a connection to a port that is not open yet behaves as it
// does on a real network, not as a proxy makes it behave.
//
// A proxy accepts a connection before it dials the server: when the port
// is closed (a server that has just been elected opens its quorum port a
// few milliseconds after the others start following it), the connecting
// server sees its connection made and then closed at once. ZooKeeper
// takes that as a leader gone, not as a leader not yet there: the
// follower goes back to election while the new leader waits out initLimit
// ticks (20s by default) for followers that never come, and a quorum can
// stay without a leader for that long. On a network, the connection is
// refused and the follower tries again a second later. portWait keeps
// the accepted connection and dials the port until it opens (within
// portWaitLimit), which is what the follower's retries achieve, and only
// then relays bytes; a port that stays closed closes the connection.
type portWait struct {
	ln       net.Listener
	upstream string
	hello    func(c, up net.Conn) error // forwards the connection's first message, nil to copy it as is
	mu       sync.Mutex
	conns    map[net.Conn]bool
	done     bool
}

// portWaitLimit is how long portWait dials a closed port before it gives
// up: ZooKeeper's own connection timeout between servers (cnxTimeout).
const portWaitLimit = 5 * time.Second

// newPortWait listens on a free loopback port, for connections to the
// port setUpstream names (before any connection comes). hello, when not
// nil, forwards the first message of each connection.
func newPortWait(hello func(c, up net.Conn) error) (*portWait, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	w := &portWait{ln: ln, hello: hello, conns: map[net.Conn]bool{}}
	go w.accept()
	return w, nil
}

// setUpstream names the port the connections are for.
func (w *portWait) setUpstream(addr string) {
	w.mu.Lock()
	w.upstream = addr
	w.mu.Unlock()
}

// addr is where the proxies send their connections.
func (w *portWait) addr() string { return w.ln.Addr().String() }

// accept serves every connection until close.
func (w *portWait) accept() {
	for {
		c, err := w.ln.Accept()
		if err != nil {
			return
		}
		go w.relay(c)
	}
}

// relay dials the port for c, waiting for it to open, and copies bytes
// both ways until either side closes.
func (w *portWait) relay(c net.Conn) {
	if !w.track(c, true) {
		c.Close()
		return
	}
	defer w.track(c, false)
	defer c.Close()
	up := w.dial()
	if up == nil || !w.track(up, true) {
		return
	}
	defer w.track(up, false)
	defer up.Close()
	if w.hello != nil && w.hello(c, up) != nil {
		return
	}
	var once sync.Once
	both := func() { c.Close(); up.Close() }
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); io.Copy(up, c); once.Do(both) }()
	go func() { defer wg.Done(); io.Copy(c, up); once.Do(both) }()
	wg.Wait()
}

// dial connects to the port, trying again while it is closed, up to
// portWaitLimit; nil when it never opened or portWait closed.
func (w *portWait) dial() net.Conn {
	deadline := time.Now().Add(portWaitLimit)
	w.mu.Lock()
	upstream := w.upstream
	w.mu.Unlock()
	for {
		up, err := net.DialTimeout("tcp", upstream, portWaitLimit)
		if err == nil {
			return up
		}
		if time.Now().After(deadline) || w.closed() {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// track adds (or removes) a connection to those close ends; false when
// portWait is already closed.
func (w *portWait) track(c net.Conn, add bool) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !add {
		delete(w.conns, c)
		return true
	}
	if w.done {
		return false
	}
	w.conns[c] = true
	return true
}

func (w *portWait) closed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.done
}

// close stops listening and closes every connection relayed.
func (w *portWait) close() {
	w.mu.Lock()
	w.done = true
	for c := range w.conns {
		c.Close()
	}
	w.mu.Unlock()
	w.ln.Close()
}
