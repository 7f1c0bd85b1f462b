package live

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// peerConnections lists the established TCP connections server i's
// process has to another server's own quorum or election port, that is,
// connections that do not go through the proxies (Linux: the process's
// socket inodes in /proc/PID/fd, matched in /proc/net/tcp and tcp6: a
// JVM's sockets are IPv6 ones, 127.0.0.1 mapped).
func peerConnections(e *Ensemble, i int) ([]string, error) {
	pid := e.Servers[i].PID()
	if pid == 0 {
		return nil, fmt.Errorf("s%d is not running", i+1)
	}
	inodes := map[string]bool{}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return nil, err
	}
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join(fmt.Sprintf("/proc/%d/fd", pid), fd.Name()))
		if err == nil && strings.HasPrefix(link, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] = true
		}
	}
	own := map[int]string{}
	for j, s := range e.Servers {
		if j != i {
			own[s.PeerPort] = fmt.Sprintf("s%d's quorum port", j+1)
			own[s.ElectionPort] = fmt.Sprintf("s%d's election port", j+1)
		}
	}
	var out []string
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		found, err := connectionsTo(table, inodes, own)
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
	}
	return out, nil
}

// connectionsTo lists the established connections of table (a
// /proc/net/tcp file) whose socket is one of inodes and whose remote port
// is one of own, by own's name for the port.
func connectionsTo(table string, inodes map[string]bool, own map[int]string) ([]string, error) {
	f, err := os.Open(table)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
		if len(fields) < 10 || fields[3] != "01" || !inodes[fields[9]] { // 01: ESTABLISHED
			continue
		}
		remPort := fields[2][strings.LastIndexByte(fields[2], ':')+1:]
		port, err := strconv.ParseInt(remPort, 16, 32)
		if err != nil {
			continue
		}
		if name, ok := own[int(port)]; ok {
			out = append(out, name)
		}
	}
	return out, sc.Err()
}
