package live

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/zksim/zksim/internal/debian"
)

// The Debian zookeeper package's jars. zookeeper.jar's manifest names the
// rest of its class path; slf4j-simple gives its log a place to go.
const (
	zookeeperJar = "/usr/share/java/zookeeper.jar"
	slf4jJar     = "/usr/share/java/slf4j-simple.jar"
)

// EnsureInstalled makes sure Debian's zookeeper package (Apache ZooKeeper
// 3.8 with its Java runtime) is there, installing it with apt-get when it
// is missing and this process may (root). Otherwise it says how to.
func EnsureInstalled(log io.Writer) error {
	if installed() {
		return nil
	}
	if log != nil {
		fmt.Fprintln(log, "live: installing Debian's zookeeper package (apt-get update; apt-get install -y zookeeper)")
	}
	if err := debian.Install(log, "zookeeper"); err != nil {
		return fmt.Errorf("ZooKeeper is not installed (%s missing): %w", zookeeperJar, err)
	}
	if !installed() {
		return fmt.Errorf("apt-get installed zookeeper, but %s or java is still missing", zookeeperJar)
	}
	return nil
}

func installed() bool {
	_, jar := os.Stat(zookeeperJar)
	_, java := exec.LookPath("java")
	return jar == nil && java == nil
}

// Ensemble is a local ZooKeeper ensemble on 127.0.0.1: one JVM per
// server, its configuration and data in a temporary directory. Only the
// processes it started are ever signalled, by their PID.
type Ensemble struct {
	Dir      string
	Servers  []*Server
	TickTime time.Duration
	// jvmProps are the servers' system properties (-Dname=value).
	jvmProps []string
	// links are the proxies between servers (EnsembleOptions.ProxyPeers),
	// nil without; peerPorts, the ports server i (0-based) reaches server
	// j's quorum and election ports on.
	links     *peerLinks
	peerPorts map[[2]int][2]int

	log io.Writer
}

// Server is one server of an Ensemble.
type Server struct {
	ID                                 int // 1-based, ZooKeeper's myid
	ClientPort, PeerPort, ElectionPort int
	Dir                                string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
}

// Addr is the server's client address.
func (s *Server) Addr() string { return fmt.Sprintf("127.0.0.1:%d", s.ClientPort) }

// PID is the server's process id, 0 when it is not running.
func (s *Server) PID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	select {
	case <-s.done:
		return 0
	default:
	}
	return s.cmd.Process.Pid
}

// EnsembleOptions tune a local ensemble.
type EnsembleOptions struct {
	// TickTime is the servers' tick (default 2s, ZooKeeper's default).
	TickTime time.Duration
	// Log receives what the launcher does (default: nothing).
	Log io.Writer
	// Ready bounds the wait for the quorum to answer (default 60s).
	Ready time.Duration
	// Dir is where the ensemble's directory is made (default: the
	// system's temporary directory).
	Dir string
	// ExtendedTypes enables TTL nodes (zookeeper.extendedTypesEnabled).
	ExtendedTypes bool
	// ContainerCheckInterval is how often the leader deletes empty
	// containers and expired TTL nodes (znode.container.checkIntervalMs;
	// default the server's, a minute).
	ContainerCheckInterval time.Duration
	// ProxyPeers puts every link between servers through a proxy the
	// ensemble controls (peerlinks.go), so that Partition, Isolate and
	// Slow can act on them.
	ProxyPeers bool
}

// StartEnsemble writes the configuration of size servers (1, 3 or 5) into
// a temporary directory, picks free loopback ports, starts the servers and
// waits until every one answers "srvr" as leader, follower or standalone,
// with the highest-numbered server leading, as in the simulator
// (firstleader.go). On an error nothing is left running.
func StartEnsemble(size int, opt EnsembleOptions) (*Ensemble, error) {
	switch size {
	case 1, 3, 5:
	default:
		return nil, fmt.Errorf("ensemble size %d: want 1, 3 or 5", size)
	}
	if err := EnsureInstalled(opt.Log); err != nil {
		return nil, err
	}
	if opt.TickTime == 0 {
		opt.TickTime = 2 * time.Second
	}
	if opt.Ready == 0 {
		opt.Ready = 60 * time.Second
	}
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	dir, err := os.MkdirTemp(opt.Dir, "zksim-ensemble-")
	if err != nil {
		return nil, err
	}
	e := &Ensemble{Dir: dir, TickTime: opt.TickTime, log: opt.Log}
	if opt.ExtendedTypes {
		e.jvmProps = append(e.jvmProps, "-Dzookeeper.extendedTypesEnabled=true")
	}
	if opt.ContainerCheckInterval > 0 {
		e.jvmProps = append(e.jvmProps, fmt.Sprintf("-Dznode.container.checkIntervalMs=%d", opt.ContainerCheckInterval.Milliseconds()))
	}
	// A port picked free can be taken by another process before the
	// proxy that is to listen on it does: then the ports are picked again.
	for attempt := 1; ; attempt++ {
		err := e.placeServers(size, opt.ProxyPeers)
		if err == nil {
			break
		}
		if attempt == 3 || !errors.Is(err, syscall.EADDRINUSE) {
			os.RemoveAll(dir)
			return nil, err
		}
		fmt.Fprintf(e.log, "live: %v; picking other ports\n", err)
	}
	for _, s := range e.Servers {
		if err := e.configure(s); err != nil {
			e.Stop()
			return nil, err
		}
	}
	for _, s := range e.Servers {
		if err := e.start(s); err != nil {
			e.Stop()
			return nil, err
		}
	}
	if err := e.WaitReady(opt.Ready); err != nil {
		e.Stop()
		return nil, err
	}
	if err := e.leadHighest(opt.Ready); err != nil {
		e.Stop()
		return nil, err
	}
	return e, nil
}

// freePorts finds n free TCP ports on 127.0.0.1.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var out []int
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
}

// placeServers picks the servers' ports, and with proxy, starts the
// proxies between them.
func (e *Ensemble) placeServers(size int, proxy bool) error {
	e.Servers = nil
	var waits [][2]*portWait
	if proxy && size > 1 {
		var err error
		if waits, err = newPortWaits(size); err != nil {
			return err
		}
	}
	ports, err := freePorts(3*size + 2*size*(size-1))
	if err != nil {
		closePortWaits(waits)
		return err
	}
	for i := 0; i < size; i++ {
		s := &Server{ID: i + 1, ClientPort: ports[3*i], PeerPort: ports[3*i+1], ElectionPort: ports[3*i+2],
			Dir: filepath.Join(e.Dir, fmt.Sprintf("s%d", i+1))}
		e.Servers = append(e.Servers, s)
	}
	if waits != nil {
		return e.proxyPeers(ports[3*size:], waits)
	}
	return nil
}

// configure writes a server's zoo.cfg and myid.
func (e *Ensemble) configure(s *Server) error {
	data := filepath.Join(s.Dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(data, "myid"), []byte(strconv.Itoa(s.ID)+"\n"), 0o644); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tickTime=%d\ninitLimit=10\nsyncLimit=5\n", e.TickTime.Milliseconds())
	fmt.Fprintf(&b, "dataDir=%s\nclientPort=%d\nclientPortAddress=127.0.0.1\n", data, s.ClientPort)
	b.WriteString("admin.enableServer=false\n4lw.commands.whitelist=mntr,stat,ruok,srvr,cons,wchs,wchc,dump\n")
	if len(e.Servers) > 1 {
		for _, o := range e.Servers {
			ports := [2]int{o.PeerPort, o.ElectionPort}
			if e.links != nil && o != s {
				ports = e.peerPorts[[2]int{s.ID - 1, o.ID - 1}] // o as s reaches it: through its proxies
			}
			fmt.Fprintf(&b, "server.%d=127.0.0.1:%d:%d\n", o.ID, ports[0], ports[1])
		}
	}
	return os.WriteFile(filepath.Join(s.Dir, "zoo.cfg"), []byte(b.String()), 0o644)
}

// start starts a server's JVM. It dies with this process (the parent
// death signal), so no JVM outlives the command or test that started it.
func (e *Ensemble) start(s *Server) error {
	logFile, err := os.OpenFile(filepath.Join(s.Dir, "server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	args := append([]string{"-Xmx256m", "-Dzookeeper.log.dir=" + s.Dir}, e.jvmProps...)
	args = append(args, "-cp", zookeeperJar+":"+slf4jJar, "org.apache.zookeeper.server.quorum.QuorumPeerMain",
		filepath.Join(s.Dir, "zoo.cfg"))
	cmd := exec.Command("java", args...)
	cmd.Dir = s.Dir
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return fmt.Errorf("starting s%d: %w", s.ID, err)
	}
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		logFile.Close()
		close(done)
	}()
	s.mu.Lock()
	s.cmd, s.done = cmd, done
	s.mu.Unlock()
	fmt.Fprintf(e.log, "live: s%d started (pid %d, client port %d)\n", s.ID, cmd.Process.Pid, s.ClientPort)
	return nil
}

// Kill crashes server i (0-based) with SIGKILL and waits for it to exit.
func (e *Ensemble) Kill(i int) error {
	s := e.Servers[i]
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.mu.Unlock()
	if cmd == nil {
		return nil
	}
	_ = cmd.Process.Kill()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		return fmt.Errorf("s%d (pid %d) did not exit after SIGKILL", s.ID, cmd.Process.Pid)
	}
	s.mu.Lock()
	s.cmd = nil
	s.mu.Unlock()
	fmt.Fprintf(e.log, "live: s%d killed\n", s.ID)
	return nil
}

// Restart starts a killed server i again, on its own data.
func (e *Ensemble) Restart(i int) error {
	if e.Servers[i].PID() != 0 {
		return fmt.Errorf("s%d is running", i+1)
	}
	return e.start(e.Servers[i])
}

// Stop kills every server it started and removes the directory.
func (e *Ensemble) Stop() error {
	var errs []error
	for i := range e.Servers {
		errs = append(errs, e.Kill(i))
	}
	if e.links != nil {
		e.links.close()
	}
	errs = append(errs, os.RemoveAll(e.Dir))
	return errors.Join(errs...)
}

// ConnectString is the servers' client addresses.
func (e *Ensemble) ConnectString() []string {
	var out []string
	for _, s := range e.Servers {
		out = append(out, s.Addr())
	}
	return out
}

// FourLetter sends one of ZooKeeper's four-letter commands (srvr, mntr,
// ...) to server i and returns its answer as key-value pairs.
func (e *Ensemble) FourLetter(i int, cmd string) (map[string]string, error) {
	return fourLetter(e.Servers[i].Addr(), cmd)
}

func fourLetter(addr, cmd string) (map[string]string, error) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte(cmd)); err != nil {
		return nil, err
	}
	out := map[string]string{}
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		line := sc.Text()
		if k, v, ok := strings.Cut(line, "\t"); ok { // mntr: key<TAB>value
			out[strings.TrimSpace(k)] = strings.TrimSpace(v)
		} else if k, v, ok := strings.Cut(line, ":"); ok { // srvr: Key: value
			out[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no answer to %s (not serving)", addr, cmd)
	}
	return out, nil
}

// ServerCounters sums the servers' own counters (mntr): packets received
// and sent, and the watches they hold now.
func (e *Ensemble) ServerCounters() (received, sent, watches int64) {
	for i := range e.Servers {
		m, err := e.FourLetter(i, "mntr")
		if err != nil {
			continue
		}
		for key, p := range map[string]*int64{"zk_packets_received": &received, "zk_packets_sent": &sent, "zk_watch_count": &watches} {
			if v, err := strconv.ParseInt(m[key], 10, 64); err == nil {
				*p += v
			}
		}
	}
	return received, sent, watches
}

// Mode asks the server at addr its role: leader, follower or standalone;
// "" when it does not answer.
func Mode(addr string) string {
	m, err := fourLetter(addr, "srvr")
	if err != nil {
		return ""
	}
	return m["Mode"]
}

// Mode is server i's role as it says: leader, follower or standalone; ""
// when it does not answer (down, or not in a quorum).
func (e *Ensemble) Mode(i int) string {
	m, err := e.FourLetter(i, "srvr")
	if err != nil {
		return ""
	}
	return m["Mode"]
}

// Leader is the 0-based index of the server that leads (the standalone
// server of a one-server ensemble), or -1.
func (e *Ensemble) Leader() int {
	for i := range e.Servers {
		if m := e.Mode(i); m == "leader" || m == "standalone" {
			return i
		}
	}
	return -1
}

// WaitReady waits until every running server answers srvr as leader,
// follower or standalone, and one of them leads.
func (e *Ensemble) WaitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		var waiting []string
		leaders := 0
		for i, s := range e.Servers {
			if s.PID() == 0 {
				continue
			}
			switch e.Mode(i) {
			case "leader", "standalone":
				leaders++
			case "follower":
			default:
				waiting = append(waiting, fmt.Sprintf("s%d", s.ID))
			}
		}
		// Followers of a leader that just died still say "follower": a
		// quorum is ready when one server says it leads.
		if len(waiting) == 0 && leaders == 1 {
			return nil
		}
		if leaders != 1 && len(waiting) == 0 {
			waiting = append(waiting, "a leader")
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("servers %s did not join a quorum within %s (logs in %s)", strings.Join(waiting, ", "), timeout, e.Dir)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
