package jute

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The real server the recording talks to: Debian's ZooKeeper 3.8, one
// server in quorum mode (as a member of an ensemble is, not standalone),
// TTL nodes enabled, on 127.0.0.1, as live/ensemble.go starts them. It is
// stopped by its PID when the test ends, failed or not.

const (
	zookeeperJar = "/usr/share/java/zookeeper.jar"
	slf4jJar     = "/usr/share/java/slf4j-simple.jar"
)

// startServer starts the server and returns its client address once it
// leads.
func startServer(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(zookeeperJar); err != nil {
		t.Fatalf("recording needs Debian's zookeeper package: %v", err)
	}
	dir := t.TempDir()
	ports := freePorts(t, 3)
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "myid"), []byte("1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("tickTime=2000\ninitLimit=10\nsyncLimit=5\ndataDir=%s\nclientPort=%d\n"+
		"clientPortAddress=127.0.0.1\nadmin.enableServer=false\n4lw.commands.whitelist=srvr\n"+
		"standaloneEnabled=false\nserver.1=127.0.0.1:%d:%d\n", data, ports[0], ports[1], ports[2])
	if err := os.WriteFile(filepath.Join(dir, "zoo.cfg"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	log, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("java", "-Xmx256m", "-Dzookeeper.log.dir="+dir, "-Dzookeeper.extendedTypesEnabled=true",
		"-cp", zookeeperJar+":"+slf4jJar, "org.apache.zookeeper.server.quorum.QuorumPeerMain", filepath.Join(dir, "zoo.cfg"))
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		_ = cmd.Wait()
		log.Close()
		if t.Failed() {
			if b, err := os.ReadFile(filepath.Join(dir, "server.log")); err == nil {
				t.Logf("server log (last 3000 bytes):\n%s", b[max(0, len(b)-3000):])
			}
		}
	})
	addr := fmt.Sprintf("127.0.0.1:%d", ports[0])
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if mode(addr) == "leader" {
			return addr
		}
	}
	t.Fatalf("the server at %s did not lead within 60s", addr)
	return ""
}

// mode is the server's answer to srvr: its Mode ("" if none).
func mode(addr string) string {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return ""
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte("srvr")); err != nil {
		return ""
	}
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		if m, ok := strings.CutPrefix(sc.Text(), "Mode: "); ok {
			return m
		}
	}
	return ""
}

func freePorts(t *testing.T, n int) []int {
	var out []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	return out
}
