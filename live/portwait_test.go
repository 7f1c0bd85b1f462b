package live

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"strconv"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// A connection made to a port before it opens reaches it once it does,
// as a connection whose refusals are retried would, instead of being
// accepted and closed at once; and closing the portWait ends every
// connection it relays and leaves nothing running.
func TestPortWaitWaitsForThePort(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	w, err := newPortWait(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
	port, err := freePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port[0]))
	w.setUpstream(addr)
	c, err := net.Dial("tcp", w.addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the port is still closed: the connection must survive this
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got := make([]byte, 4)
	if _, err := io.ReadFull(s, got); err != nil || string(got) != "ping" {
		t.Fatalf("the server read %q, %v; want the bytes sent before its port opened", got, err)
	}
	if _, err := s.Write([]byte("pong")); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(c, got); err != nil || string(got) != "pong" {
		t.Fatalf("the client read %q, %v", got, err)
	}
	w.close()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := c.Read(got); err == nil {
		t.Fatalf("read %d bytes after close; want the connection ended", n)
	}
}

// The first message to an election port goes on with the sender's id
// alone, whichever form it came in, and the rest of the stream unchanged.
func TestForwardElectionHello(t *testing.T) {
	id := func(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }
	withAddr := append(append(id(-65536), id(2)...), binary.BigEndian.AppendUint32(nil, 15)...)
	withAddr = append(withAddr, "127.0.0.1:40000"...)
	for name, hello := range map[string][]byte{"with its address": withAddr, "the id alone": id(2)} {
		c, peer := net.Pipe()
		up, server := net.Pipe()
		go func() {
			peer.Write(append(append([]byte{}, hello...), "rest"...))
			peer.Close()
		}()
		got := make(chan []byte)
		go func() { b, _ := io.ReadAll(server); got <- b }()
		if err := forwardElectionHello(c, up); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		io.Copy(up, c)
		up.Close()
		if b := <-got; !bytes.Equal(b, append(id(2), "rest"...)) {
			t.Errorf("%s: the server read %v; want the id 2 and the rest", name, b)
		}
	}
}
