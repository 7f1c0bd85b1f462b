package serve

import (
	"net"
	"sync"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/jute"
	"github.com/zksim/zksim/sim"
)

// peer is one client connection to one simulated server: the socket (or
// an in-memory pipe), its reader and writer goroutines, and, once its
// connect request came, its sim.Wire. Its fields but the write queue
// belong to the loop's goroutine.
type peer struct {
	f      *Front
	id     int // in the order the loop took the connections, from 1 (opened)
	server int // 0-based
	as     int // the client it says it is (1-based, Options.Clients), 0 for none
	dial   int // its place among its client's connections (or all, for none), from 1
	nc     net.Conn
	wire   *sim.Wire
	client *sim.Outside
	closed bool
	// old is set for a client that sent no read-only flag: its connect
	// answer has none either.
	old bool
	// ops are the wire opcodes of the requests awaiting their answer, by
	// xid: a reply's body is the request's (getChildren and getChildren2
	// both reach the servers as getChildren, answered with or without
	// the Stat).
	ops map[int32]client.Op
	// closeAfter are the requests after whose answer the connection
	// closes (a type the server does not know).
	closeAfter map[int32]bool

	mu      sync.Mutex
	queue   [][]byte
	ending  bool          // write what is queued, then close
	wake    chan struct{} // a frame was queued, or the end
	stopped chan struct{} // the writer is done
}

func newPeer(f *Front, nc net.Conn, server int) *peer {
	return &peer{f: f, nc: nc, server: server, ops: map[int32]client.Op{}, closeAfter: map[int32]bool{},
		wake: make(chan struct{}, 1), stopped: make(chan struct{})}
}

// read reads frames until the connection ends, and hands each to the loop.
func (p *peer) read() {
	for {
		frame, err := jute.ReadFrame(p.nc, jute.MaxBuffer)
		ev := event{kind: evFrame, p: p, frame: frame}
		if err != nil {
			ev = event{kind: evGone, p: p, err: err}
		}
		select {
		case p.f.events <- ev:
		case <-p.f.done:
			return
		}
		if err != nil {
			return
		}
	}
}

// write writes the queued frames in order, until the connection ends.
func (p *peer) write() {
	defer close(p.stopped)
	for {
		p.mu.Lock()
		q, ending := p.queue, p.ending
		p.queue = nil
		p.mu.Unlock()
		for _, frame := range q {
			if err := jute.WriteFrame(p.nc, frame); err != nil {
				p.nc.Close()
				return
			}
		}
		if ending && len(q) == 0 {
			p.nc.Close()
			return
		}
		if len(q) == 0 {
			<-p.wake
		}
	}
}

// send queues frame for the client, and puts it on the tape.
func (p *peer) send(frame []byte) {
	if p.closed {
		return
	}
	p.f.sent(p, frame)
	if p.nc == nil {
		return // a replay: no client
	}
	p.mu.Lock()
	p.queue = append(p.queue, frame)
	p.mu.Unlock()
	p.signal()
}

// close ends the connection from the server's side, once what is queued
// is written.
func (p *peer) close() {
	if p.closed {
		return
	}
	p.closed = true
	delete(p.f.open, p.id)
	if p.wire != nil {
		delete(p.f.peers, p.wire)
	}
	if p.nc == nil {
		return
	}
	p.mu.Lock()
	p.ending = true
	p.mu.Unlock()
	p.signal()
}

func (p *peer) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// closePeers closes every connection still open, as the loop ends.
func (f *Front) closePeers() {
	for _, p := range f.open {
		p.close()
	}
}
