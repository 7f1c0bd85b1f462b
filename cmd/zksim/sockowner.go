package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/zksim/zksim/serve"
)

// The process at a client's end of a connection, so that "pause cN"
// stops that client's process alone, as a collection pause stops one
// process, not every process zksim serve started. Linux tells it in
// /proc: the connection's socket is a line of /proc/net/tcp (or tcp6)
// whose local port is the client's and whose remote port is the front
// end's, and the process holding it has "socket:[inode]" among its open
// files. Only the command's process and its descendants are looked at
// (not its process group: GNU timeout, which the library table runs each
// client under, puts its command in a group of its own).

// socketOwners returns the processes among the command's (root and its
// descendants) holding the client's end of any of conns, sorted, and none
// when /proc cannot tell (not Linux, or the connections are gone).
func socketOwners(conns []serve.Ends, root int) []int {
	want := portPairs(conns)
	if len(want) == 0 {
		return nil
	}
	inodes := map[string]bool{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		for _, inode := range socketInodes(table, want) {
			inodes[inode] = true
		}
	}
	if len(inodes) == 0 {
		return nil
	}
	var owners []int
	for _, pid := range processTree(root) {
		if holdsSocket(pid, inodes) {
			owners = append(owners, pid)
		}
	}
	sort.Ints(owners)
	return owners
}

// portPairs are the TCP ports of conns' ends, the client's first.
func portPairs(conns []serve.Ends) map[[2]int]bool {
	want := map[[2]int]bool{}
	for _, c := range conns {
		client, front := tcpPort(c.Client), tcpPort(c.Front)
		if client != 0 && front != 0 {
			want[[2]int{client, front}] = true
		}
	}
	return want
}

// socketInodes reads a /proc/net/tcp table for the sockets at the
// client's end of the connections want names: local port the client's,
// remote port the front end's.
func socketInodes(table string, want map[[2]int]bool) []string {
	f, err := os.Open(table)
	if err != nil {
		return nil
	}
	defer f.Close()
	var inodes []string
	lines := bufio.NewScanner(f)
	lines.Scan() // the heading
	for lines.Scan() {
		fields := strings.Fields(lines.Text())
		if len(fields) < 10 || fields[9] == "0" {
			continue
		}
		if want[[2]int{hexPort(fields[1]), hexPort(fields[2])}] {
			inodes = append(inodes, fields[9])
		}
	}
	return inodes
}

// tcpPort is addr's port, 0 for an address that is not TCP.
func tcpPort(addr net.Addr) int {
	if a, ok := addr.(*net.TCPAddr); ok {
		return a.Port
	}
	return 0
}

// hexPort reads the port of a /proc/net/tcp address, "0100007F:1F90".
func hexPort(addr string) int {
	i := strings.LastIndexByte(addr, ':')
	if i < 0 {
		return 0
	}
	port, err := strconv.ParseUint(addr[i+1:], 16, 16)
	if err != nil {
		return 0
	}
	return int(port)
}

// processTree is root and its descendants, root first.
func processTree(root int) []int {
	entries, _ := os.ReadDir("/proc")
	children := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and
		// parentheses, so the fields are read after its last ')'.
		rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
		if f := strings.Fields(rest); len(f) > 1 {
			if ppid, err := strconv.Atoi(f[1]); err == nil {
				children[ppid] = append(children[ppid], pid)
			}
		}
	}
	tree := []int{root}
	for i := 0; i < len(tree); i++ {
		tree = append(tree, children[tree[i]]...)
	}
	return tree
}

// holdsSocket reports whether process pid has one of the sockets open.
func holdsSocket(pid int, inodes map[string]bool) bool {
	fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
	for _, fd := range fds {
		link, err := os.Readlink(fd)
		if err == nil && strings.HasPrefix(link, "socket:[") && inodes[strings.TrimSuffix(link[len("socket:["):], "]")] {
			return true
		}
	}
	return false
}

// processName is pid's command line, shortened, for a person.
func processName(pid int) string {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return "?"
	}
	name := strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " "))
	if len(name) > 60 {
		name = name[:57] + "..."
	}
	return name
}
