package main

import (
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

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
// end alone, not the accepted one beside it); a process tree it is not
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
	if got := socketOwners(ends, os.Getpid()); len(got) != 1 || got[0] != os.Getpid() {
		t.Fatalf("the client end's owners: %v, want this process %d", got, os.Getpid())
	}
	var inodes []string
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		inodes = append(inodes, socketInodes(table, portPairs(ends))...)
	}
	if want := socketInode(t, c); len(inodes) != 1 || inodes[0] != want {
		t.Fatalf("sockets at the client's end: %v, want the dialled one's alone (%s)", inodes, want)
	}
	other := startSleeper(t, "sleep 30")
	if got := socketOwners(ends, other.Process.Pid); len(got) != 0 {
		t.Fatalf("found in a process tree it is not in: %v", got)
	}
}

// startSleeper starts script in sh, ended with the test.
func startSleeper(t *testing.T, script string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() }) //nolint:errcheck
	return cmd
}

// A command's process tree holds the processes it started, also those
// that left its process group (GNU timeout's command does).
func TestProcessTreeFollowsChildrenOutOfTheGroup(t *testing.T) {
	cmd := startSleeper(t, "timeout 30 sleep 30 & wait")
	var tree []int
	for range 100 { // until sh has started timeout, and timeout sleep
		if tree = processTree(cmd.Process.Pid); len(tree) == 3 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(tree) != 3 || tree[0] != cmd.Process.Pid {
		t.Fatalf("the tree of sh -c 'timeout 30 sleep 30 & wait': %v, want sh, timeout and sleep", tree)
	}
	if pgid, _ := syscall.Getpgid(tree[2]); pgid == cmd.Process.Pid {
		t.Fatalf("sleep stayed in sh's group %d: the test tries nothing", pgid)
	}
}
