package sim

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/internal/stall"
	"github.com/zksim/zksim/trace"
)

// Config describes a run. The zero value of a field means its default.
type Config struct {
	// Seed drives every choice of the run, unless Source is set.
	Seed uint64
	// Source replaces the seeded source, e.g. with an explicit Sequence.
	Source Source

	// Servers in the ensemble: 1, 3, 5 or 7 (default 3).
	Servers int
	// TickTime is the servers' tick (default 2s); session timeouts are
	// negotiated within [2, 20] ticks and expire on tick boundaries.
	TickTime time.Duration
	// SyncLimit is how many ticks a follower and its leader go without
	// hearing from each other before giving up (default 5).
	SyncLimit int
	// SessionTimeout is what clients ask for (default
	// client.DefaultSessionTimeout).
	SessionTimeout time.Duration

	// Latency is the one-way latency of every link, client–server and
	// server–server (default 100µs), plus up to Jitter (default 100µs)
	// drawn per message. For these delays and the ones below (DiskDelay to
	// LeaderApplyJitter), 0 takes the default and a negative value means none:
	// Jitter -1 makes every message take exactly Latency.
	Latency, Jitter time.Duration
	// DiskDelay is how long a server takes to write a proposal to its log
	// (default 300µs), plus up to DiskJitter (default 100µs). With the
	// latencies, a write on three servers takes about 1 ms end to end.
	DiskDelay, DiskJitter time.Duration
	// ReadDelay is how long a server takes to answer a read (default 20µs):
	// it reads its tree when the read's turn comes (every earlier request
	// of the session answered), and the answer leaves ReadDelay after the
	// read arrived, or at once if its turn came later than that.
	ReadDelay time.Duration
	// ElectionTime is how long a leader election takes (default 200ms),
	// plus up to ElectionJitter (default 200ms).
	ElectionTime, ElectionJitter time.Duration
	// LeaderApplyJitter is how long, at most, the leader may take to apply
	// a transaction once a quorum has logged it (default 2ms): one commit
	// in eight waits for a time drawn up to it, the others are applied at
	// once. ZooKeeper's leader hands the commit to its commit processor,
	// which may be busy, while its followers apply it as the commit
	// reaches them. So a follower may answer a write before the leader
	// has applied it; and as the leader answers a sync as it answers a
	// read, without waiting for what it has committed, a client of the
	// leader may sync and still read the state before that write (checked
	// against the real server by live.TestSyncOnTheLeaderLive).
	LeaderApplyJitter time.Duration
	// ConnectTimeout is how long a client waits for a TCP connection that
	// gets no answer, as across a cut link (default 1s, the library's).
	ConnectTimeout time.Duration

	// LocalSessionLoss makes every client give its session up by its own
	// clock, as Curator's connection-handling policy does: a session left
	// without a connection to any server for the session timeout is
	// declared lost on the client's side (zk.StateExpired, watches and calls
	// fail with zk.ErrSessionExpired) and replaced by a new session, while
	// the servers keep the old one, and its ephemeral nodes, until they
	// expire it themselves. Off by default: go-zookeeper/zk learns of an
	// expiry only from a server.
	LocalSessionLoss bool

	// ExtendedTypes enables TTL nodes, as the server's
	// zookeeper.extendedTypesEnabled does (off by default, as on the
	// server: a TTL create then fails with "unknown error: -6",
	// Unimplemented).
	ExtendedTypes bool
	// ContainerCheckInterval is how often the leader looks for empty
	// container nodes and expired TTL nodes to delete (default 60s, the
	// server's znode.container.checkIntervalMs).
	ContainerCheckInterval time.Duration

	// ProgressBound ends a run in which no client made progress (see
	// World.Progress) and the data tree did not change for this long, with
	// a NoProgressError (0: never).
	ProgressBound time.Duration

	// MaxTime stops a run at this virtual time (default 1h).
	MaxTime time.Duration
	// MaxSteps stops a run after this many scheduler steps (default 50M).
	MaxSteps uint64
	// StallTimeout is how long, in real time, a client may keep control
	// without handing it back before the run is abandoned with a StallError
	// (default 5s; negative disables the watchdog).
	StallTimeout time.Duration
	// WaitTimeout is how long, in real time, a run's clients may wait
	// outside the simulator (on a Go channel, a select, a sync primitive),
	// in one wait or over many, before the run is abandoned with a
	// StallError, well before StallTimeout (default 100ms). The watchdog
	// polls every WaitTimeout/20 (5ms) and looks at a client step still
	// running from one poll to the next; a wall-clock sleep (time.Sleep)
	// it sees is reported at once, however short: it passes no virtual
	// time, so a recipe's back-off does nothing, and would otherwise go
	// unnoticed (a sleep of 10ms or more is caught at one of its first; one
	// shorter than a poll may never be seen).
	WaitTimeout time.Duration

	// Outside says the clients come from outside the simulator while the
	// world runs (outside.go): a fault may name a client that has not
	// come yet, and does nothing, noted in the trace, if it is still not
	// there when it strikes.
	Outside bool

	// KeepTrace keeps every record for printing; the hash is computed
	// either way.
	KeepTrace bool
	// KeepChanges, with KeepTrace, also keeps what each transaction
	// changed in the tree (trace.Trace.Changes), for a step-through of the run.
	// It allocates for every write applied: a run that keeps its trace
	// only to count its traffic leaves it off.
	KeepChanges bool
}

// DefaultServers is the ensemble's size when a Config names none: the
// one home of that default, for the simulator and for everything that
// draws or renders a run's servers.
const DefaultServers = 3

// ServerCount is the ensemble's size: Servers, or DefaultServers when it
// names none (a size New refuses stays as it is, to be refused).
func (c Config) ServerCount() int {
	if c.Servers == 0 {
		return DefaultServers
	}
	return c.Servers
}

func (c *Config) defaults() {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	// delay is def for a delay a negative value turns off.
	delay := func(d *time.Duration, v time.Duration) {
		def(d, v)
		*d = max(*d, 0)
	}
	c.Servers = c.ServerCount()
	if c.SyncLimit == 0 {
		c.SyncLimit = 5
	}
	def(&c.TickTime, 2*time.Second)
	def(&c.SessionTimeout, client.DefaultSessionTimeout)
	delay(&c.Latency, 100*time.Microsecond)
	delay(&c.Jitter, 100*time.Microsecond)
	delay(&c.DiskDelay, 300*time.Microsecond)
	delay(&c.DiskJitter, 100*time.Microsecond)
	delay(&c.ReadDelay, 20*time.Microsecond)
	delay(&c.ElectionTime, 200*time.Millisecond)
	delay(&c.ElectionJitter, 200*time.Millisecond)
	delay(&c.LeaderApplyJitter, 2*time.Millisecond)
	def(&c.ConnectTimeout, time.Second)
	def(&c.ContainerCheckInterval, time.Minute)
	def(&c.MaxTime, time.Hour)
	def(&c.StallTimeout, 5*time.Second)
	def(&c.WaitTimeout, 100*time.Millisecond)
	if c.MaxSteps == 0 {
		c.MaxSteps = 50_000_000
	}
}

// World is one simulated run: servers, clients, the scheduler and the trace.
type World struct {
	cfg      Config
	s        *Scheduler
	trace    *trace.Trace
	struck   fault.Schedule // the faults that struck, in order
	struckAt []Time         // when each of struck did
	salt     uint64
	servers  []*server
	peers    [][]*link // peers[a][b]: server a → server b
	clients  []*Client // each process's first session, by client index
	// sessions are every session of every process, in the order opened.
	sessions []*Client
	ops      uint64
	ran      bool

	// msgs and writes keep handled messages and log writes for reuse.
	msgs   pool[peerMsg]
	writes pool[logWrite]
	applys pool[leaderApply]
	txns   slab[txn]   // the clients' writes, which the servers' logs keep
	notes  pool[reply] // watch notifications, kept for reuse once delivered
	config []byte      // the ensemble's configuration, as every server's tree holds it

	violations []string // broken self-checks (see Result.Violations)

	electionAt  Time  // when the next election round is due
	nextSession int64 // session ids are unique across the ensemble
	// owners are the sessions created, in order, with the client process
	// that asked for each (for the expire fault).
	owners []sessionOwner
	// foreign are the ephemeral nodes deleted by another session than
	// their owner's (ownership.go); foreignUpTo the last zxid kept.
	foreign     []ForeignDelete
	foreignUpTo int64
	// closed are the sessions their clients closed, and when
	// (leftovers.go).
	closed map[int64]Time
	// progressAt is when a client last made progress or the tree changed.
	progressAt Time
	faults     *faultPlan
}

// New builds a world from cfg. Nothing runs until Run.
func New(cfg Config) (*World, error) {
	cfg.defaults()
	switch cfg.Servers {
	case 1, 3, 5, 7:
	default:
		return nil, fmt.Errorf("sim: an ensemble of %d servers; want 1, 3, 5 or 7", cfg.Servers)
	}
	src := cfg.Source
	if src == nil {
		src = NewSeeded(cfg.Seed)
	}
	tr := trace.New(cfg.KeepTrace)
	if cfg.KeepChanges {
		tr.KeepChanges()
	}
	w := &World{cfg: cfg, trace: tr}
	w.s = newScheduler(src, tr, cfg.MaxSteps, Time(cfg.MaxTime))
	w.salt = cfg.Seed*0x9e3779b97f4a7c15 + 1
	for i := 0; i < cfg.Servers; i++ {
		w.servers = append(w.servers, newServer(w, i))
		row := make([]*link, cfg.Servers)
		for j := range row {
			row[j] = &link{}
		}
		w.peers = append(w.peers, row)
	}
	return w, nil
}

// Spawn adds a client process running body with its own session. The
// session starts connecting when the run starts (at once, for a client
// spawned by an event during the run); body's calls wait for it.
// A client whose body returns closes its session; one that returns an error
// or panics ends the run with a ClientError.
func (w *World) Spawn(name string, body func(ctx context.Context, conn client.Conn) error) *Client {
	return w.SpawnOn(name, nil, body)
}

// SpawnOn is Spawn for a client whose connect string names only some
// servers (0-based indexes); nil or empty means all of them.
func (w *World) SpawnOn(name string, servers []int, body func(ctx context.Context, conn client.Conn) error) *Client {
	for _, si := range servers {
		if si < 0 || si >= len(w.servers) {
			panic(fmt.Sprintf("sim: client's connect string names server %d of an ensemble of %d", si+1, len(w.servers)))
		}
	}
	idx := len(w.clients)
	if name == "" {
		name = fmt.Sprintf("c%d", idx+1)
	}
	p := &process{s: w.s, links: make([]linkPair, len(w.servers))}
	c := w.newSession(p, idx, name, servers)
	w.trace.AddClient(name)
	w.clients = append(w.clients, c)
	p.t = w.s.spawn(name, func(t *Task) error {
		return body(context.Background(), c)
	})
	p.t.p, p.t.actor = p, c.actor
	p.tasks, p.alive = []*Task{p.t}, 1
	p.t.onExit = p.exit
	if w.ran {
		c.start() // spawned while the run goes on (by an event)
	}
	return c
}

// newSession makes a session of process p (client idx, named name), not
// yet connecting.
func (w *World) newSession(p *process, idx int, name string, servers []int) *Client {
	c := &Client{
		w: w, idx: idx, name: name, actor: trace.ClientActor(idx), p: p,
		curr: -1, last: -1, state: zk.StateDisconnected,
		links:     p.links,
		timeoutMs: int32(w.cfg.SessionTimeout / time.Millisecond),
		watchers:  map[watchKey][]*simWatch{},
		only:      servers,
	}
	p.sessions = append(p.sessions, c)
	w.sessions = append(w.sessions, c)
	return c
}

// start orders the servers as the library's host provider does (shuffled,
// here from the run's source) and starts connecting.
func (c *Client) start() {
	w := c.w
	c.hosts = make([]int, len(w.servers))
	for i := range c.hosts {
		c.hosts[i] = i
	}
	if len(c.only) > 0 {
		c.hosts = append([]int(nil), c.only...)
	}
	for i := len(c.hosts) - 1; i > 0; i-- {
		j := w.s.choose(i + 1)
		c.hosts[i], c.hosts[j] = c.hosts[j], c.hosts[i]
	}
	w.s.record(trace.Record{Kind: trace.KSpawn, From: c.actor})
	c.connectNext()
}

// StopWhen has the run asked, every thousand steps or so, whether to stop
// (an interrupted search): it then ends with ErrStopped. stop decides
// nothing else, so a run it does not stop is the same run.
func (w *World) StopWhen(stop func() bool) { w.s.stop = stop }

// HostOrders is, for each client process in the order spawned, the order
// in which its first session tries the servers (0-based), as drawn when
// the run started: a live run of the same seed places its clients so.
func (w *World) HostOrders() [][]int {
	out := make([][]int, len(w.clients))
	for i, c := range w.clients {
		out[i] = slices.Clone(c.hosts)
	}
	return out
}

// At schedules fn (a fault, a check) at virtual time t after the start.
func (w *World) At(t time.Duration, fn func()) { w.s.at(Time(t), fn) }

// Now is the current virtual time.
func (w *World) Now() Time { return w.s.now }

// Trace is the run's trace.
func (w *World) Trace() *trace.Trace { return w.trace }

// Result is what a run ends with.
type Result struct {
	// Err is nil when every client returned nil; otherwise a ClientError,
	// DeadlockError, BudgetError or StallError.
	Err error
	// Hash covers every record and every choice of the run.
	Hash uint64
	// Records is the number of trace records.
	Records uint64
	// Ops is the number of client operations that completed.
	Ops uint64
	// Steps is the number of scheduler steps: Events fired and
	// ClientSteps (a client resumed until it next blocks), and the few
	// steps that only woke clients whose context had ended.
	Steps, Events, ClientSteps uint64
	// End is the virtual time the run ended at.
	End Time
	// Violations are the simulator's self-checks that failed: a client
	// that saw the zxid of its answers go back, or a session's writes
	// applied out of order. Either is a bug in the simulator.
	Violations []string
	// Struck are the faults that struck, in order (a scheduled fault the
	// run ended before, or whose trigger never came, is not among them).
	Struck fault.Schedule
}

// recycle takes back a reply its client is done with, if it is a pooled
// watch notification; any other reply is left to the garbage collector.
func (w *World) recycle(rep *reply) {
	if rep.pooled {
		w.notes.put(rep)
	}
}

// violate records a broken self-check.
func (w *World) violate(what string) {
	w.s.record(trace.Record{Kind: trace.KNote, From: trace.WorldActor, Path: "SELF-CHECK FAILED: " + what})
	w.violations = append(w.violations, fmt.Sprintf("%s: %s", strings.TrimSpace(w.s.now.String()), what))
}

// Run runs the world to its end. A world runs once.
func (w *World) Run() Result {
	if w.ran {
		panic("sim: a World runs once")
	}
	w.ran = true
	// The ensemble is up before the clients start: the servers have
	// elected their first leader.
	w.elect(w.servers)
	for _, c := range w.clients {
		c.start()
	}
	w.s.quiet = w.quiet
	if w.cfg.ProgressBound > 0 {
		w.watchProgress()
	}
	var err error
	if w.cfg.StallTimeout < 0 {
		err = w.s.guardedLoop()
	} else {
		err = w.runWatched()
	}
	if _, stalled := err.(*StallError); !stalled {
		w.s.shutdown()
	}
	return Result{Struck: w.struck, Err: err, Hash: w.trace.Hash(), Records: w.trace.Len(), Ops: w.ops, Steps: w.s.steps,
		Events: w.s.events, ClientSteps: w.s.clientSteps, End: w.s.now,
		Violations: w.violations}
}

// runWatched runs the loop on its own goroutine while the stall watchdog
// looks on. If a client waits outside the simulator or never hands control
// back, the run is abandoned: that client's goroutine, and the loop
// waiting for it, stay blocked where they are; should the client ever
// return, the loop unwinds every client (and the run waits for that a
// little: stall.Grace).
func (w *World) runWatched() error {
	done := make(chan error, 1)
	ended := make(chan struct{}) // the loop's goroutine is done, its tasks unwound
	finished := make(chan struct{})
	stalled := make(chan struct{})
	go func() {
		err := fmt.Errorf("sim: the scheduler's goroutine was stopped at %s (runtime.Goexit: t.Fatal or t.Skip called from an event?)",
			strings.TrimSpace(w.s.now.String()))
		defer func() { done <- err; close(ended) }()
		err = w.s.guardedLoop()
		if w.s.stalled.Load() {
			// The stuck client came back after all: unwind the others.
			w.s.shutdown()
		}
	}()
	var report stall.Report // what the watchdog saw, read while the client still did it
	go stall.Watch(w.s, w.cfg.WaitTimeout, w.cfg.StallTimeout, finished, w.s.look, func(r stall.Report) {
		report = r
		w.s.stalled.Store(true)
		close(stalled)
	})
	select {
	case err := <-done:
		close(finished)
		return err
	case <-stalled:
		// A client given up on often comes back at once (a short sleep):
		// the loop then stops and unwinds its tasks before the run is
		// reported, so that none of them runs on beside the caller.
		stall.Grace(ended, w.cfg.WaitTimeout)
		return stallError(report, w.cfg.StallTimeout)
	}
}

// look is what the task running now does, for the stall watchdog: its
// name, and what its goroutine's stack says.
func (s *Scheduler) look() stall.Look {
	t := s.running.Load()
	if t == nil {
		return stall.Look{}
	}
	wait, where := stall.Blocked(t.gid.Load(), taskBody)
	return stall.Look{Client: t.name, Wait: wait, Where: where}
}

// stallError is the run's end when the watchdog gave up on it (r): a
// client that waited outside the simulator, in one wait or over many, or
// kept control past limit.
func stallError(r stall.Report, limit time.Duration) *StallError {
	name := cmp.Or(r.Client, "?")
	ms := func(d time.Duration) string { return max(d, time.Millisecond).Round(time.Millisecond).String() }
	switch {
	case r.Stuck >= limit || !stall.Waiting(r.Wait):
		return &StallError{Client: name, For: limit.String(), Wait: r.Wait, Where: r.Where}
	case r.Waits > 1:
		return &StallError{Client: name, For: fmt.Sprintf("%s in all, over %d client steps", ms(r.Outside), r.Waits),
			Wait: r.Wait, Where: r.Where}
	}
	return &StallError{Client: name, For: "at least " + ms(r.Stuck), Wait: r.Wait, Where: r.Where}
}

// quiet reports whether nothing can change by itself any more: every server
// that is up is in an ensemble, no link of one is cut, every client that still runs
// holds a live, heartbeating session on a connected server, every
// session belongs to such a client, and the leader has no container or TTL
// node to delete. Background events (heartbeats) then go on forever
// without effect.
func (w *World) quiet() bool {
	for _, s := range w.servers {
		if s.role == trace.RoleDown {
			continue // stays down until a fault restarts it
		}
		if !s.serving() {
			return false
		}
		if s.role == trace.RoleFollowing && (s.leader.role != trace.RoleLeading || s.leader.gen != s.leaderGen) {
			return false // it will give its lost leader up (SyncLimit ticks)
		}
		if s.role == trace.RoleLeading {
			n := 1
			for _, f := range s.ld.followers {
				if f.role == trace.RoleFollowing && f.leader == s && f.leaderGen == s.gen {
					n++
				}
			}
			if n <= len(w.servers)/2 {
				return false // it will give up a leadership without a quorum (SyncLimit ticks)
			}
		}
		for _, l := range w.peers[s.idx] {
			if l.cut {
				return false
			}
		}
	}
	for _, c := range w.sessions {
		if c.exited {
			continue
		}
		if c.p.paused || c.cn == nil || !c.cn.open || c.state != zk.StateHasSession {
			return false
		}
		for i := range c.links {
			if c.links[i].up.cut || c.links[i].down.cut {
				return false
			}
		}
	}
	for _, s := range w.servers {
		if s.role != trace.RoleLeading {
			continue
		}
		if s.willReap() {
			return false // its container check will delete a node
		}
		for _, t := range s.ld.tracker {
			if !t.closing && !w.heartbeating(t.id) {
				return false
			}
		}
	}
	return true
}

// heartbeating reports whether some running client holds session id.
func (w *World) heartbeating(id int64) bool {
	for _, c := range w.sessions {
		if !c.exited && c.sessionID == id && c.cn != nil && c.cn.open {
			return true
		}
	}
	return false
}

// linkLatency draws the one-way latency of a message.
func (w *World) linkLatency() Time {
	return Time(w.cfg.Latency) + w.jitter(w.cfg.Jitter)
}

// jitter draws a value in [0, j] in eighths.
func (w *World) jitter(j time.Duration) Time {
	if j <= 0 {
		return 0
	}
	return Time(j) * Time(w.s.choose(9)) / 8
}

// sessionOwner ties a session the servers created to its client process.
type sessionOwner struct {
	id      int64
	client  int
	timeout Time // as the server negotiated it
}
