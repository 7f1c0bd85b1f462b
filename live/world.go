package live

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// Body is one client process's code, as a workload gives it.
type Body = func(ctx context.Context, conn client.Conn) error

// World runs client processes against a live ensemble the way the
// simulator runs them: one at a time, each between its blocking calls (a
// process holds the world's lock while its code runs and lets go of it
// while it waits on the ensemble or the clock), so that a workload's
// shared bookkeeping needs no locks of its own and runs unchanged in both
// worlds. Faults strike from the world's fault vocabulary (strike.go):
// those tied to a client's requests and notifications in its dialer
// (Arm), those at a time or on a holding by the world (Strike), on the
// local ensemble it was given, when it has one.
type World struct {
	gil      sync.Mutex
	origin   time.Time
	procs    []*Process
	ensemble *Ensemble // nil: a given ensemble, whose servers the world cannot crash
	log      io.Writer

	struckMu sync.Mutex
	struck   []StruckFault // the timed faults struck, as their timers fired

	ended <-chan struct{} // closed when the run ends (Run's context); nil before

	giveUp      chan struct{} // closed when Run is to stop waiting (Abandon)
	abandonOnce sync.Once
	abandoned   atomic.Bool // Run gave up on processes still at work, and holds the world's lock for good
}

// NewWorld returns a world with no processes on the ensemble e (nil when
// the servers are not a local ensemble of the run's), noting what its
// faults meet on log (nil: nowhere).
func NewWorld(e *Ensemble, log io.Writer) *World {
	if log == nil {
		log = io.Discard
	}
	return &World{origin: time.Now(), ensemble: e, log: log, giveUp: make(chan struct{})}
}

// Spawn adds a client process named name, to run body once Run starts;
// servers (0-based) are its connect string (nil: every server).
func (w *World) Spawn(name string, servers []int, body Body) {
	w.procs = append(w.procs, &Process{w: w, name: name, servers: servers, body: body, faults: NewClientFaults()})
}

// Processes are the world's processes, in the order they were spawned.
func (w *World) Processes() []*Process { return w.procs }

// Origin is the instant the run's time 0 stands for: when every process
// had its session (Dial).
func (w *World) Origin() time.Time { return w.origin }

// Exclusive runs fn while no process's code runs.
func (w *World) Exclusive(fn func()) {
	if w.abandoned.Load() { // Run holds the lock for good
		fn()
		return
	}
	w.gil.Lock()
	defer w.gil.Unlock()
	fn()
}

// DialOptions say how a world's processes open their sessions.
type DialOptions struct {
	Servers []string // the ensemble's client addresses
	// Placed is, process by process, the order in which its sessions try
	// the servers (0-based); a process beyond it tries its own servers in
	// the library's shuffled order.
	Placed           [][]int
	SessionTimeout   time.Duration
	LocalSessionLoss bool          // Options.LocalSessionLoss
	Wait             time.Duration // how long every process may take to get its session
}

// Dial opens every process's session and waits until each has one, so
// that the processes start in order, as in the simulator; the run's clock
// starts then. Servers that cannot be reached end it after opt.Wait.
func (w *World) Dial(ctx context.Context, opt DialOptions) error {
	for i, p := range w.procs {
		order := p.servers
		if i < len(opt.Placed) {
			order = opt.Placed[i]
		}
		addrs := opt.Servers
		if len(order) > 0 {
			addrs = nil
			for _, s := range order {
				if s < len(opt.Servers) {
					addrs = append(addrs, opt.Servers[s])
				}
			}
		}
		conn, err := Dial(addrs, Options{SessionTimeout: opt.SessionTimeout, Dialer: p.faults.Dialer(),
			LocalSessionLoss: opt.LocalSessionLoss, InOrder: i < len(opt.Placed)})
		if err != nil {
			return err
		}
		p.first = &procConn{p: p, conn: conn}
		p.sessions = []*Conn{conn}
	}
	deadline := time.Now().Add(opt.Wait)
	for _, p := range w.procs {
		for p.first.conn.State() != zk.StateHasSession {
			if time.Now().After(deadline) || ctx.Err() != nil {
				return fmt.Errorf("live: %s got no session from %v within %s: %w", p.name, opt.Servers, opt.Wait, ErrNoSession)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	w.origin = time.Now()
	return nil
}

// ErrNoSession says a run could not begin: a process got no session from
// the servers (none answers, or none can be reached) within the time
// Dial allows.
var ErrNoSession = errors.New("no session: the servers cannot be reached or do not answer")

// Run runs every process's body, one at a time between their blocking
// calls, until all have returned, and returns each one's error. done,
// when set, is told of each process that returns. After Abandon it
// returns once its grace is over, whether or not every process has.
func (w *World) Run(ctx context.Context, done func(i int)) []error {
	var wg sync.WaitGroup
	errs := make([]error, len(w.procs))
	returned := make([]bool, len(w.procs))
	w.ended = ctx.Done()
	w.gil.Lock()
	for i, p := range w.procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.gil.Lock()
			defer w.gil.Unlock()
			errs[i] = p.body(ctx, p.first)
			if err := p.endTasks(); errs[i] == nil {
				errs[i] = err
			}
			returned[i] = true
			if done != nil {
				done(i)
			}
		}()
	}
	w.gil.Unlock()
	finished := make(chan struct{})
	go func() {
		wg.Wait()
		close(finished)
	}()
	select {
	case <-finished:
	case <-w.giveUp:
		// The world's lock, held for good: a process still at work runs
		// no more code, and what the others recorded can be read.
		w.gil.Lock()
		w.abandoned.Store(true)
		for i := range errs {
			if !returned[i] {
				errs[i] = fmt.Errorf("%w: still at work when the run was abandoned", context.Canceled)
			}
		}
	}
	return errs
}

// Abandon has Run return grace from now even if some processes are still
// at work (a recipe cleaning up through a disconnect, say, for as long as
// its own timeout): what an interrupted run does, so that it stops
// promptly. A process still at work then runs no more code, and its
// error is context.Canceled's.
func (w *World) Abandon(grace time.Duration) {
	w.abandonOnce.Do(func() { time.AfterFunc(grace, func() { close(w.giveUp) }) })
}

// Close closes every session the processes opened, all at once: the
// library waits up to a second for a server to answer each close, so
// closing them one after another could outlast the run's time bound
// against servers that accept connections and never answer.
func (w *World) Close() {
	var sessions []*Conn
	for _, p := range w.procs {
		p.mu.Lock()
		sessions = append(sessions, p.sessions...)
		p.mu.Unlock()
	}
	var wg sync.WaitGroup
	for _, conn := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn.Close()
		}()
	}
	wg.Wait()
}

// Counters is the processes' traffic, every session of each.
func (w *World) Counters() Counters {
	var k Counters
	for _, p := range w.procs {
		n := p.counters()
		k.Requests += n.Requests
		k.Notifications += n.Notifications
	}
	return k
}
