package main

import (
	"net"
	"os"
	"strconv"
	"syscall"
	"testing"

	"github.com/zksim/zksim/serve"
)

// socketInode is c's socket's inode number.
func socketInode(t *testing.T, c net.Conn) string {
	raw, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := raw.Control(func(fd uintptr) { err = syscall.Fstat(int(fd), &st) }); err != nil {
		t.Fatal(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return strconv.FormatUint(st.Ino, 10)
}

// The process holding a connection's client end is found in /proc: here
// this test's own process, for a connection it dialled (the socket at the client's
// end alone, not the accepted one beside it); a process group it is not
// in holds none.
func TestSocketOwnerIsTheProcessAtTheClientsEnd(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	accepted, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer accepted.Close()
	ends := []serve.Ends{{Client: accepted.RemoteAddr(), Front: accepted.LocalAddr()}}
	if got := socketOwners(ends, syscall.Getpgrp()); len(got) != 1 || got[0] != os.Getpid() {
		t.Fatalf("the client end's owners: %v, want this process %d", got, os.Getpid())
	}
	var inodes []string
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		inodes = append(inodes, socketInodes(table, ends)...)
	}
	if want := socketInode(t, c); len(inodes) != 1 || inodes[0] != want {
		t.Fatalf("sockets at the client's end: %v, want the dialled one's alone (%s)", inodes, want)
	}
	if got := socketOwners(ends, syscall.Getpgrp()+1_000_000); len(got) != 0 {
		t.Fatalf("found in a process group it is not in: %v", got)
	}
}
