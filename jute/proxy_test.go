package jute

import (
	"encoding/binary"
	"fmt"
	"net"
	"strconv"
	"sync"
	"testing"

	"github.com/zksim/zksim/client"
)

// proxy stands between the clients and the server and records every
// frame that passes, each with its connection, its kind and the step it
// belongs to.
type proxy struct {
	l      net.Listener
	server string

	mu     sync.Mutex
	step   string
	n      int // connections accepted
	frames []recorded
	conns  map[string]*proxied
	gate   chan struct{} // while not nil, a connection accepted waits for it to close
	wg     sync.WaitGroup
}

// recorded is one frame (or event: closed) as it passed.
type recorded struct {
	dir   byte // '>' client to server, '<' server to client
	conn  string
	kind  string // "connect", an opcode's name, "notification", "closed", "oversized"
	step  string
	frame []byte
}

// proxied is one connection through the proxy.
type proxied struct {
	name           string
	client, server net.Conn
	mu             sync.Mutex
	ops            map[int32]int32 // the requests' types by xid
	clientGone     bool            // the client closed its side first
}

func newProxy(t *testing.T, server string) *proxy {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{l: l, server: server, conns: map[string]*proxied{}}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

func (p *proxy) addr() string { return p.l.Addr().String() }

// setStep labels the frames from now on.
func (p *proxy) setStep(name string) {
	p.mu.Lock()
	p.step = name
	p.mu.Unlock()
}

func (p *proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		gate := p.gate
		p.mu.Unlock()
		if gate != nil {
			<-gate
		}
		up, err := net.Dial("tcp", p.server)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.n++
		pc := &proxied{name: fmt.Sprintf("c%d", p.n), client: c, server: up, ops: map[int32]int32{}}
		p.conns[pc.name] = pc
		p.mu.Unlock()
		p.wg.Add(2)
		go p.pump(pc, '>')
		go p.pump(pc, '<')
	}
}

// hold keeps connections accepted from now on waiting until release.
func (p *proxy) hold() (release func()) {
	gate := make(chan struct{})
	p.mu.Lock()
	p.gate = gate
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		p.gate = nil
		p.mu.Unlock()
		close(gate)
	}
}

// drop closes the connection named, both sides, as a network would.
func (p *proxy) drop(name string) {
	p.mu.Lock()
	pc := p.conns[name]
	p.mu.Unlock()
	pc.mu.Lock()
	pc.clientGone = true
	pc.mu.Unlock()
	pc.client.Close()
	pc.server.Close()
}

// lastConn is the name of the latest connection accepted.
func (p *proxy) lastConn() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return fmt.Sprintf("c%d", p.n)
}

func (p *proxy) close() {
	p.l.Close()
	p.mu.Lock()
	for _, pc := range p.conns {
		pc.client.Close()
		pc.server.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

func (p *proxy) record(r recorded) {
	p.mu.Lock()
	r.step = p.step
	p.frames = append(p.frames, r)
	p.mu.Unlock()
}

// pump copies one direction of pc, recording each frame as it passes. A
// length over jute.maxbuffer is recorded (its 4 bytes) as oversized and
// what follows copied as it comes. The server closing its side is
// recorded as closed.
func (p *proxy) pump(pc *proxied, dir byte) {
	defer p.wg.Done()
	from, to := pc.client, pc.server
	if dir == '<' {
		from, to = pc.server, pc.client
	}
	var buf []byte
	first, raw := true, false
	chunk := make([]byte, 64*1024)
	for {
		n, err := from.Read(chunk)
		if n > 0 {
			if _, werr := to.Write(chunk[:n]); werr != nil && err == nil {
				err = werr
			}
			if !raw {
				buf = append(buf, chunk[:n]...)
				buf, first, raw = p.cut(pc, dir, buf, first)
			}
		}
		if err != nil {
			break
		}
	}
	pc.mu.Lock()
	gone := pc.clientGone
	if dir == '>' {
		pc.clientGone = true
	}
	pc.mu.Unlock()
	if dir == '<' && !gone {
		p.record(recorded{dir: dir, conn: pc.name, kind: "closed"})
	}
	to.Close()
	if dir == '>' {
		from.Close()
	}
}

// cut records the whole frames at the start of buf and returns what is
// left of it.
func (p *proxy) cut(pc *proxied, dir byte, buf []byte, first bool) ([]byte, bool, bool) {
	for {
		if dir == '>' && len(buf) >= 4 && binary.BigEndian.Uint32(buf) > MaxBuffer {
			p.record(recorded{dir: dir, conn: pc.name, kind: "oversized", frame: buf[:4:4]})
			return nil, first, true
		}
		frame, rest, ok := CutFrame(buf)
		if !ok {
			return buf, first, false
		}
		kind := "connect"
		if !first {
			kind = pc.kindOf(dir, frame)
		}
		first = false
		p.record(recorded{dir: dir, conn: pc.name, kind: kind, frame: append([]byte(nil), frame...)})
		buf = rest
	}
}

// kindOf names a frame after the connect: a request by its type, a reply
// by its request's, a notification as such.
func (pc *proxied) kindOf(dir byte, frame []byte) string {
	if len(frame) < 8 {
		return "short"
	}
	xid := int32(binary.BigEndian.Uint32(frame))
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if dir == '>' {
		wire := int32(binary.BigEndian.Uint32(frame[4:]))
		pc.ops[xid] = wire
		return wireName(wire)
	}
	switch xid {
	case XidNotification:
		return OpName(OpNotification)
	case XidPing:
		return OpName(client.OpPing)
	}
	if op, ok := pc.ops[xid]; ok {
		return wireName(op)
	}
	return "?"
}

// wireName is an opcode's name (OpName), or its number beyond client.Op.
func wireName(op int32) string {
	if op != int32(client.Op(op)) {
		return strconv.Itoa(int(op))
	}
	return OpName(client.Op(op))
}
