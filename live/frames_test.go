package live

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/zksim/zksim/client"
)

// fakeServer accepts one connection on 127.0.0.1 and hands it over (the
// caller closes it).
func fakeServer(t *testing.T) (addr string, conn <-chan net.Conn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	ch := make(chan net.Conn, 1)
	go func() {
		if c, err := l.Accept(); err == nil {
			ch <- c
		}
	}()
	return l.Addr().String(), ch
}

// frame is body with its length before it.
func frame(body []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)
}

// replyFrame is a reply's frame with no body: xid, zxid, err.
func replyFrame(xid int32) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(xid))
	b = binary.BigEndian.AppendUint64(b, 7)
	return frame(binary.BigEndian.AppendUint32(b, 0))
}

// notificationFrame is a NodeDeleted notification of path.
func notificationFrame(path string) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(0xffffffff)) // xid -1
	b = binary.BigEndian.AppendUint64(b, 0xffffffffffffffff)
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint32(b, 2) // NodeDeleted
	b = binary.BigEndian.AppendUint32(b, 3) // SyncConnected
	b = binary.BigEndian.AppendUint32(b, uint32(len(path)))
	return frame(append(b, path...))
}

// getDataFrame is a getData request's frame (xid, type, path, watch).
func getDataFrame(xid int32, path string) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(xid))
	b = binary.BigEndian.AppendUint32(b, 4)
	b = binary.BigEndian.AppendUint32(b, uint32(len(path)))
	return frame(append(append(b, path...), 0))
}

// A frame held back or lost with frames before it in the same read: those
// are handed over first, as they came before it on the wire. A delayed
// notification after a reply leaves the reply on time; a lost reply after
// a notification leaves the notification read, and the next read fails.
func TestFaultyFrameComesAfterTheOnesBefore(t *testing.T) {
	addr, accepted := fakeServer(t)
	f := NewClientFaults()
	f.Notification(1, 300*time.Millisecond)
	if err := f.LoseReply(client.OpGetData, 1); err != nil {
		t.Fatal(err)
	}
	var told []Notification
	f.OnNotification(func(n Notification) { told = append(told, n) })
	c, err := f.Dialer()("tcp", addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.SetDeadline(time.Now().Add(5 * time.Second)); err != nil { // fail, not hang
		t.Fatal(err)
	}
	srv := <-accepted
	defer srv.Close()
	if _, err := c.Write(frame(make([]byte, 40))); err != nil { // the connect request
		t.Fatal(err)
	}
	if _, err := c.Write(getDataFrame(1, "/x")); err != nil {
		t.Fatal(err)
	}
	// The server's connect response, a reply and a notification, in one
	// write: the notification is delayed.
	connect := frame(make([]byte, 36))
	burst := append(append(append([]byte{}, connect...), replyFrame(2)...), notificationFrame("/a")...)
	if _, err := srv.Write(burst); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	got := make([]byte, 1024)
	n, err := c.Read(got)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(connect) + len(replyFrame(2)); n != want {
		t.Errorf("first read: %d bytes, want the connect response and the reply (%d)", n, want)
	}
	if d := time.Since(start); d > 200*time.Millisecond {
		t.Errorf("the reply before a delayed notification came after %v, want at once", d)
	}
	if len(told) != 0 {
		t.Errorf("a notification not yet handed over was told of: %+v", told)
	}
	n, err = c.Read(got)
	if err != nil || n != len(notificationFrame("/a")) {
		t.Fatalf("second read: %d bytes, %v, want the notification", n, err)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("the delayed notification came after %v, want 300ms", d)
	}
	if len(told) != 1 || told[0].Path != "/a" {
		t.Errorf("told of %+v, want the notification of /a", told)
	}
	// A notification, then the lost reply to getData #1 (xid 1).
	if _, err := srv.Write(append(notificationFrame("/b"), replyFrame(1)...)); err != nil {
		t.Fatal(err)
	}
	n, err = c.Read(got)
	if err != nil || n != len(notificationFrame("/b")) {
		t.Fatalf("read before the lost reply: %d bytes, %v, want the notification before it", n, err)
	}
	if _, err := c.Read(got); !errors.Is(err, errReplyLost) && !errors.Is(err, io.EOF) {
		t.Errorf("the read of the lost reply: %v, want the connection dropped", err)
	}
	if _, err := c.Read(got); err == nil {
		t.Errorf("a read after the lost reply succeeded: the reply was handed over")
	}
}
