package live

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// peerLinks puts every link between the ensemble's servers through a
// proxy zksim controls (toxiproxy, embedded): server i reaches server j's
// quorum and election ports through proxies of its own, one per direction
// and port, named in i's configuration in place of j's ports. So a
// partition of any set of links, and added latency, can be made and
// undone without privileges, as the simulator makes them: no iptables.
//
// A cut link black-holes its quorum connections (what goes either way is
// dropped, the connections stay open) and refuses election connections
// until it heals, as a real partition, whose packets vanish, would look to
// the servers: a follower cut from its leader notices only by its own
// timeout (syncLimit ticks) and serves its clients what it had meanwhile,
// as in the simulator. Healing closes the black-holed connections, and the
// servers connect again at once. Election connections are refused rather
// than black-holed: a server that kept "reaching" a peer whose bytes
// vanish would wait out a timeout before each new election, and a new
// leader could take a minute. A connection to a port not open yet waits
// for it to open (portWait), as a server's retries of a refused connection
// would.
type peerLinks struct {
	mu      sync.Mutex
	proxies map[[2]int][]*toxiproxy.Proxy // (from, to), 0-based: the quorum port's, then the election port's
	cut     map[[2]int]bool               // undirected links cut, smaller index first
	slow    time.Duration                 // latency added to every link, 0 for none
	waits   []*portWait                   // between the proxies and the servers' ports
}

// newPeerLinks makes the proxies of n servers: listen gives, for server i
// reaching server j, the two ports (quorum, election) i's configuration
// names; upstream, j's own two ports.
func newPeerLinks(n int, listen func(i, j int) [2]int, upstream func(j int) [2]int, waits [][2]*portWait) (*peerLinks, error) {
	server := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	l := &peerLinks{proxies: map[[2]int][]*toxiproxy.Proxy{}, cut: map[[2]int]bool{}}
	to := l.waitPorts(waits, upstream)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i == j {
				continue
			}
			from := listen(i, j)
			for k, kind := range []string{"quorum", "election"} {
				p := toxiproxy.NewProxy(server, fmt.Sprintf("s%d-s%d-%s", i+1, j+1, kind),
					fmt.Sprintf("127.0.0.1:%d", from[k]), to[j][k])
				if err := p.Start(); err != nil {
					l.close()
					return nil, fmt.Errorf("the proxy from s%d to s%d's %s port: %w", i+1, j+1, kind, err)
				}
				l.proxies[[2]int{i, j}] = append(l.proxies[[2]int{i, j}], p)
			}
		}
	}
	return l, nil
}

// newPortWaits makes the portWaits before n servers' two ports (quorum,
// election). They listen before the ensemble picks its free ports (which
// it releases for the servers and proxies to take), so that they cannot
// take one of those meanwhile.
func newPortWaits(n int) ([][2]*portWait, error) {
	out := make([][2]*portWait, n)
	for j := range out {
		for k := range out[j] {
			hello := forwardElectionHello
			if k == 0 {
				hello = nil // the quorum port
			}
			w, err := newPortWait(hello)
			if err != nil {
				closePortWaits(out)
				return nil, fmt.Errorf("the relay to s%d's ports: %w", j+1, err)
			}
			out[j][k] = w
		}
	}
	return out, nil
}

// closePortWaits closes the portWaits made.
func closePortWaits(waits [][2]*portWait) {
	for _, ws := range waits {
		for _, w := range ws {
			if w != nil {
				w.close()
			}
		}
	}
}

// waitPorts points each server's portWaits at its two ports and returns
// their addresses, server by server: the proxies' upstreams.
func (l *peerLinks) waitPorts(waits [][2]*portWait, upstream func(j int) [2]int) [][2]string {
	out := make([][2]string, len(waits))
	for j, ws := range waits {
		for k, port := range upstream(j) {
			ws[k].setUpstream(fmt.Sprintf("127.0.0.1:%d", port))
			l.waits = append(l.waits, ws[k])
			out[j][k] = ws[k].addr()
		}
	}
	return out
}

// close stops every proxy and relay.
func (l *peerLinks) close() {
	for _, ps := range l.proxies {
		for _, p := range ps {
			p.Stop()
		}
	}
	for _, w := range l.waits {
		w.close()
	}
}

// partition cuts (or, with cut false, heals) the link between servers a
// and b, both ways: their quorum connections black-holed, their election
// connections refused (see peerLinks).
func (l *peerLinks) partition(a, b int, cut bool) error {
	if a == b {
		return nil
	}
	key := [2]int{min(a, b), max(a, b)}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cut[key] == cut {
		return nil
	}
	l.cut[key] = cut
	for _, dir := range [][2]int{{a, b}, {b, a}} {
		quorum, election := l.proxies[dir][0], l.proxies[dir][1]
		if err := setToxic(quorum, "cut", cut, blackHole, "upstream", "downstream"); err != nil {
			return err
		}
		if cut {
			election.Stop()
		} else if err := election.Start(); err != nil {
			return fmt.Errorf("healing %s: %w", election.Name, err)
		}
	}
	return nil
}

// blackHole is the toxic that drops what a connection carries and keeps it
// open: a timeout toxic with no timeout. Removing it closes the connection.
const blackHole = `"type":"timeout","attributes":{"timeout":0}`

// healAll heals every link cut.
func (l *peerLinks) healAll() error {
	l.mu.Lock()
	var cut [][2]int
	for k, c := range l.cut {
		if c {
			cut = append(cut, k)
		}
	}
	l.mu.Unlock()
	for _, k := range cut {
		if err := l.partition(k[0], k[1], false); err != nil {
			return err
		}
	}
	for k := range l.proxies {
		if err := l.oneWay(k[0], k[1], false); err != nil {
			return err
		}
	}
	return nil
}

// latency adds d to every link, both ways (0 takes it off).
func (l *peerLinks) latency(d time.Duration) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	attrs := fmt.Sprintf(`"type":"latency","attributes":{"latency":%d,"jitter":0}`, d.Milliseconds())
	for _, ps := range l.proxies {
		for _, p := range ps {
			if err := setToxic(p, "slow", d > 0, attrs, "upstream", "downstream"); err != nil {
				return err
			}
		}
	}
	l.slow = d
	return nil
}

// oneWay drops (cut) or lets through what server a sends server b, on
// both ports, while what b sends a goes on: a black hole one way, which
// keeps the connections open as TCP does across a one-way loss; healing
// closes them, and the servers connect again.
func (l *peerLinks) oneWay(a, b int, cut bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range l.proxies[[2]int{a, b}] { // a's connections to b: upstream is toward b
		if err := setToxic(p, "oneway", cut, blackHole, "upstream"); err != nil {
			return err
		}
	}
	for _, p := range l.proxies[[2]int{b, a}] { // b's connections to a: downstream is from a
		if err := setToxic(p, "oneway", cut, blackHole, "downstream"); err != nil {
			return err
		}
	}
	return nil
}

// lag holds up what server j hears on its quorum links (from its leader:
// proposals, commits, pings) by d, until called again with 0, which lets
// it through at once: j falls behind, serving its clients what it had,
// and catches up when the lag ends. Its own messages (its acks) go at
// their speed, so the others commit without it.
func (l *peerLinks) lag(j int, d time.Duration) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	attrs := fmt.Sprintf(`"type":"latency","attributes":{"latency":%d,"jitter":0}`, d.Milliseconds())
	for dir, ps := range l.proxies {
		if dir[0] == j { // j's connection to another server's quorum port: its downstream is what j hears
			if err := setToxic(ps[0], "lag", d > 0, attrs, "downstream"); err != nil {
				return err
			}
		}
	}
	return nil
}

// setToxic adds (on) or removes the toxic named name on the streams of p
// named; spec is its type and attributes as toxiproxy's JSON has them.
func setToxic(p *toxiproxy.Proxy, name string, on bool, spec string, streams ...string) error {
	for _, stream := range streams {
		full := name + "-" + stream
		if p.Toxics.GetToxic(full) != nil {
			if err := p.Toxics.RemoveToxic(context.Background(), full); err != nil {
				return err
			}
		}
		if !on {
			continue
		}
		json := fmt.Sprintf(`{"name":%q,"stream":%q,"toxicity":1,%s}`, full, stream, spec)
		if _, err := p.Toxics.AddToxicJson(strings.NewReader(json)); err != nil {
			return fmt.Errorf("%s on %s: %w", name, p.Name, err)
		}
	}
	return nil
}

// proxyPeers makes the proxies between the ensemble's servers, listening
// on ports (two per ordered pair of servers).
func (e *Ensemble) proxyPeers(ports []int, waits [][2]*portWait) error {
	e.peerPorts = map[[2]int][2]int{}
	n := len(e.Servers)
	k := 0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i != j {
				e.peerPorts[[2]int{i, j}] = [2]int{ports[k], ports[k+1]}
				k += 2
			}
		}
	}
	links, err := newPeerLinks(n, func(i, j int) [2]int { return e.peerPorts[[2]int{i, j}] },
		func(j int) [2]int { return [2]int{e.Servers[j].PeerPort, e.Servers[j].ElectionPort} }, waits)
	if err != nil {
		return err
	}
	e.links = links
	return nil
}

// errNoProxies is the error of a link fault on an ensemble started
// without EnsembleOptions.ProxyPeers.
var errNoProxies = fmt.Errorf("the ensemble's links between servers are not proxied (EnsembleOptions.ProxyPeers)")

// LinksProxied reports whether the links between servers can be cut and
// slowed (the ensemble was started with ProxyPeers).
func (e *Ensemble) LinksProxied() bool { return e.links != nil }

// Partition cuts the link between servers a and b (0-based), both ways:
// what either sends the other is dropped until Heal.
func (e *Ensemble) Partition(a, b int) error {
	if e.links == nil {
		return errNoProxies
	}
	fmt.Fprintf(e.log, "live: s%d and s%d cut apart\n", a+1, b+1)
	return e.links.partition(a, b, true)
}

// Heal reopens the link between servers a and b, both ways.
func (e *Ensemble) Heal(a, b int) error {
	if e.links == nil {
		return errNoProxies
	}
	fmt.Fprintf(e.log, "live: s%d and s%d healed\n", a+1, b+1)
	return errors.Join(e.links.partition(a, b, false), e.links.oneWay(a, b, false), e.links.oneWay(b, a, false))
}

// HealAll reopens every link between servers.
func (e *Ensemble) HealAll() error {
	if e.links == nil {
		return errNoProxies
	}
	fmt.Fprintln(e.log, "live: every link between servers healed")
	return e.links.healAll()
}

// Isolate cuts server i from every other server (its clients are the
// dialer's to cut: ClientFaults.Cut).
func (e *Ensemble) Isolate(i int) error {
	for j := range e.Servers {
		if j != i {
			if err := e.Partition(i, j); err != nil {
				return err
			}
		}
	}
	return nil
}

// Slow adds d of latency to every link between servers, both ways (0
// takes it off).
func (e *Ensemble) Slow(d time.Duration) error {
	if e.links == nil {
		return errNoProxies
	}
	return e.links.latency(d)
}

// Lag holds up what server i hears from its leader for d, then lets it
// catch up at once (Lag(i, 0)): a server that applies nothing for a
// while and serves its clients what it had, as the simulator's "lag".
func (e *Ensemble) Lag(i int, d time.Duration) error {
	if e.links == nil {
		return errNoProxies
	}
	if d > 0 {
		fmt.Fprintf(e.log, "live: s%d lags %s behind\n", i+1, d)
	} else {
		fmt.Fprintf(e.log, "live: s%d catches up\n", i+1)
	}
	return e.links.lag(i, d)
}

// OneWay drops what server a sends server b (0-based) until Heal(a, b):
// a one-way loss, the other direction untouched.
func (e *Ensemble) OneWay(a, b int) error {
	if e.links == nil {
		return errNoProxies
	}
	fmt.Fprintf(e.log, "live: what s%d sends s%d is lost\n", a+1, b+1)
	return e.links.oneWay(a, b, true)
}
