package live

import (
	"fmt"
	"sync"
)

// hostOrder is a zk.HostProvider that tries the servers in the order
// given, where the library's own shuffles them: the simulator's client
// tries an order drawn from the run's seed, and a live run that follows it
// (Options.InOrder) places each client on the server it has there. It
// moves on as the library's does: to the next server after a lost
// connection, and says when it has come back round to the one it last
// had a session with.
type hostOrder struct {
	mu         sync.Mutex
	servers    []string
	curr, last int
}

// newHostOrder tries servers in the order given.
func newHostOrder(servers []string) *hostOrder {
	return &hostOrder{servers: append([]string(nil), servers...)}
}

// Init starts a round of tries. The library hands it the servers
// shuffled; the order kept is the one given to newHostOrder.
func (h *hostOrder) Init(shuffled []string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(shuffled) != len(h.servers) {
		return fmt.Errorf("live: %d servers to try in order, the library has %d", len(h.servers), len(shuffled))
	}
	h.curr, h.last = -1, -1
	return nil
}

// Len is the number of servers.
func (h *hostOrder) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.servers)
}

// Next is the next server to try, and whether a round of tries without a
// connection begins again with it.
func (h *hostOrder) Next() (server string, retryStart bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.curr = (h.curr + 1) % len(h.servers)
	retryStart = h.curr == h.last
	if h.last == -1 {
		h.last = 0
	}
	return h.servers[h.curr], retryStart
}

// Connected notes that the server last tried gave a connection.
func (h *hostOrder) Connected() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.last = h.curr
}
