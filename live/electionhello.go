package live

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"time"
)

// forwardElectionHello copies the first message of a connection to a
// server's election port, from c to up, without the address it names.
//
// A server that opens a connection to a peer's election port starts with
// its id and its own election address. When its id is the lower, the peer
// closes that connection and connects back to the address named in it:
// the server's own port, not the proxy the peer's configuration names for
// it, so that connection would bypass peerLinks and no partition could
// cut it (a leader cut from its followers would keep telling them it
// leads, and they would keep trying to follow it instead of electing
// another). Sent without the address (the id alone, the form ZooKeeper
// still accepts from older servers), the message makes the peer connect
// back through its configuration, that is, through the proxies.
func forwardElectionHello(c, up net.Conn) error {
	c.SetReadDeadline(time.Now().Add(portWaitLimit))
	defer c.SetReadDeadline(time.Time{})
	var head [8]byte
	if _, err := io.ReadFull(c, head[:]); err != nil {
		return err
	}
	if int64(binary.BigEndian.Uint64(head[:])) < 0 { // a protocol version: the id and the address follow
		var idLen [12]byte
		if _, err := io.ReadFull(c, idLen[:]); err != nil {
			return err
		}
		n := binary.BigEndian.Uint32(idLen[8:])
		if n > 4096 {
			return fmt.Errorf("an election hello naming an address of %d bytes", n)
		}
		if _, err := io.CopyN(io.Discard, c, int64(n)); err != nil {
			return err
		}
		copy(head[:], idLen[:8])
	}
	_, err := up.Write(head[:])
	return err
}
