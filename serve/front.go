package serve

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/sim"
)

// Options say what to serve.
type Options struct {
	// Config is the simulated ensemble (servers, seed, timing); Outside is
	// set for it. A served world keeps its trace (KeepTrace) for the
	// timeline and the checks.
	Config sim.Config
	// Faults strike the ensemble and the clients as they come (cN: the
	// N-th client whose first session connected).
	Faults fault.Schedule
	// Tape, when set, is told every event of the run (tape.go).
	Tape *TapeWriter
	// Pause carries out "pause cN" on the real process of client name,
	// the one at the client's end of its open connections (conns; none
	// when it has none open), for d (nil: a pause fault is noted and does
	// nothing).
	Pause func(client string, conns []Ends, d time.Duration)
	// Name, Kind and Checks say what the run is served as and will be
	// judged by, and Judging the scenario's settings it is judged with
	// (its workload and bound, as JSON: serve never reads them); the
	// front end only keeps them on the tape.
	Name    string
	Kind    string
	Checks  []string
	Judging json.RawMessage
	// Clients are made at once, c1 to cN, for connections that say whose
	// they are (PipeAs): an in-process program's clients connect at the
	// same instant, and their names must not hang on which goroutine
	// runs first.
	Clients int
	// Settle, when set, returns once every other goroutine of the program
	// waits (synctest.Wait, inside a bubble): the loop then takes
	// everything the connections brought at one instant together, in the
	// order of the clients (PipeAs) and their connections, not in the
	// order their goroutines happened to run.
	Settle func()
}

// Ends are a connection's two ends as the operating system names them:
// the client's, and the front end's listener.
type Ends struct{ Client, Front net.Addr }

// Front is the front end: the world, its listeners and its connections.
// Its loop (Run) owns the world; everything else reaches the world
// through the loop's channel.
type Front struct {
	opts    Options
	w       *sim.World
	servers int
	start   time.Time
	now     sim.Time

	events chan event
	done   chan struct{} // closed when the loop has ended

	peers    map[*sim.Wire]*peer
	open     map[int]*peer // every connection not yet closed, by id
	nextPeer int
	owners   map[int64]*sim.Outside // each session the servers opened, its client
	named    []*sim.Outside         // Options.Clients, c1 first
	// sessionPeer is, for each session, the connection it was last
	// opened or resumed on.
	sessionPeer map[int64]*peer

	// replaying is set for a front end a tape drives (replay.go); written
	// are the frames it wrote, not yet checked against the tape's.
	replaying bool
	written   []writtenFrame

	// recipeOps are what the clients recorded (events.go).
	recipeOps []RecipeOp

	mu        sync.Mutex
	listeners []net.Listener
	// dials count the connections made, in all and by client (PipeAs).
	dials       int
	clientDials map[int]int
}

// eventKind is what a connection's goroutines tell the loop.
type eventKind uint8

const (
	evOpen   eventKind = iota + 1 // a client connected to a server
	evFrame                       // a frame arrived whole
	evGone                        // the client closed the connection, or it broke
	evRecipe                      // a line of recipe events (events.go)
)

// event is one thing that happened on a connection, for the loop to hand
// to the world at the virtual time it takes it.
type event struct {
	kind  eventKind
	p     *peer
	frame []byte // a frame; a recipe event's line
	err   error
	// answer is where a recipe event's answer goes.
	answer chan []byte
}

// New builds the front end of a simulated ensemble; it serves nothing
// until Listen or Pipe gives it connections and Run runs it.
func New(opts Options) (*Front, error) {
	cfg := opts.Config
	cfg.Outside, cfg.KeepTrace = true, true
	cfg.StallTimeout = -1 // no simulated client runs here: nothing to watch
	w, err := sim.New(cfg)
	if err != nil {
		return nil, err
	}
	if err := w.Inject(opts.Faults); err != nil {
		return nil, err
	}
	f := &Front{opts: opts, w: w, servers: cfg.ServerCount(), events: make(chan event, 64), done: make(chan struct{}),
		peers: map[*sim.Wire]*peer{}, open: map[int]*peer{}, owners: map[int64]*sim.Outside{}, start: time.Now(), clientDials: map[int]int{},
		sessionPeer: map[int64]*peer{}}
	for range opts.Clients {
		f.named = append(f.named, f.newClient())
	}
	return f, nil
}

// Now is the virtual time the clock stands for: how long ago the front
// end was made. Any goroutine may read it (a program recording what its
// clients did, on the world's clock).
func (f *Front) Now() sim.Time { return sim.Time(time.Since(f.start)) }

// Servers is the ensemble's size.
func (f *Front) Servers() int { return f.servers }

// World is the simulated world the front end serves; read it only once
// Run has returned.
func (f *Front) World() *sim.World { return f.w }

// Listen opens a 127.0.0.1 port for each server, in order, and starts
// accepting connections on them; it returns their addresses.
func (f *Front) Listen() ([]string, error) {
	var addrs []string
	for i := 0; i < f.servers; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			f.closeListeners()
			return nil, fmt.Errorf("serve: listening for server s%d: %w", i+1, err)
		}
		f.mu.Lock()
		f.listeners = append(f.listeners, l)
		f.mu.Unlock()
		addrs = append(addrs, l.Addr().String())
		go f.accept(l, i)
	}
	return addrs, nil
}

// accept hands every connection server i's listener accepts to the loop.
func (f *Front) accept(l net.Listener, i int) {
	for {
		nc, err := l.Accept()
		if err != nil {
			return // closed
		}
		f.mu.Lock()
		f.dials++
		dial := f.dials
		f.mu.Unlock()
		f.connect(nc, i, 0, dial)
	}
}

// Pipe opens an in-memory connection to server i (0-based) and returns
// the client's end: what a go-zk dialer returns inside a synctest bubble.
func (f *Front) Pipe(i int) (net.Conn, error) { return f.PipeAs(0, i) }

// PipeAs is Pipe for a connection of client c (1-based, one of
// Options.Clients; 0: whoever connects): a new session on it is that
// client's.
func (f *Front) PipeAs(c, i int) (net.Conn, error) {
	if i < 0 || i >= f.servers {
		return nil, fmt.Errorf("serve: no server s%d in an ensemble of %d", i+1, f.servers)
	}
	if c < 0 || c > len(f.named) {
		return nil, fmt.Errorf("serve: no client c%d among the %d made (Options.Clients)", c, len(f.named))
	}
	clientEnd, serverEnd := net.Pipe()
	f.mu.Lock()
	f.dials++
	dial := f.dials
	if c > 0 {
		f.clientDials[c]++
		dial = f.clientDials[c]
	}
	f.mu.Unlock()
	f.connect(serverEnd, i, c, dial)
	return clientEnd, nil
}

// connect starts a connection's goroutines and tells the loop of it.
func (f *Front) connect(nc net.Conn, server, as, dial int) {
	p := newPeer(f, nc, server)
	p.as, p.dial = as, dial
	select {
	case f.events <- event{kind: evOpen, p: p}:
		go p.read()
		go p.write()
	case <-f.done:
		nc.Close()
	}
}

func (f *Front) closeListeners() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, l := range f.listeners {
		l.Close()
	}
	f.listeners = nil
}

// Run runs the world in step with the clock until ctx ends, handing it
// what the connections bring at the virtual time it comes; then it closes
// every connection and returns how the run went.
func (f *Front) Run(ctx context.Context) (sim.Result, error) {
	f.w.Begin()
	err := f.loop(ctx)
	close(f.done)
	f.closeListeners()
	f.closePeers()
	res := f.w.Finish()
	f.opts.Tape.end(f.now, res.Hash)
	if err == nil {
		err = f.opts.Tape.close()
	}
	return res, err
}

// loop is the pacing loop: the world runs up to the clock's time, then
// waits for its next event to fall due or a connection to bring something.
func (f *Front) loop(ctx context.Context) error {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		if err := f.step(); err != nil {
			return err
		}
		wait := time.Hour
		if next, ok := f.w.NextAt(); ok {
			wait = max(next.Std()-time.Since(f.start), 0)
			if wait > 0 && wait < timerFloor && f.opts.Settle == nil && f.nothingWaiting() {
				// Sooner than a timer can wake the loop: the world's next
				// event runs now, virtual time that much ahead of the
				// clock (never more than timerFloor).
				f.now = next
				continue
			}
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return nil
		case ev := <-f.events:
			batch := f.instant(ev)
			if err := f.step(); err != nil {
				return err
			}
			for _, ev := range batch {
				f.take(ev)
			}
		case <-timer.C:
		}
	}
}

// instant is what the connections brought at this instant, beginning
// with ev: ev alone, or with Options.Settle everything that came, in the
// order of the clients and their connections (each connection's events in
// the order they came).
func (f *Front) instant(ev event) []event {
	batch := []event{ev}
	if f.opts.Settle == nil {
		return batch
	}
	for {
		f.opts.Settle()
		n := len(batch)
		for more := true; more; {
			select {
			case ev := <-f.events:
				batch = append(batch, ev)
			default:
				more = false
			}
		}
		if len(batch) == n {
			break
		}
	}
	slices.SortStableFunc(batch, func(a, b event) int {
		ka, kb := a.order(), b.order()
		return cmp.Or(cmp.Compare(ka[0], kb[0]), cmp.Compare(ka[1], kb[1]))
	})
	return batch
}

// order is where ev goes among the events of one instant: by its
// connection's client and place among that client's connections; a recipe
// event, which has no connection, after them, in the order it came.
func (ev event) order() [2]int {
	if ev.p == nil {
		return [2]int{math.MaxInt, 0}
	}
	return [2]int{ev.p.as, ev.p.dial}
}

// timerFloor is about the shortest wait a Go timer keeps on Linux: one
// set for less fires about a millisecond late. Each answer waiting on it
// made a request through the front end take a millisecond where the
// simulated servers took a quarter of one. Inside a synctest bubble
// (Options.Settle) timers are exact, and the loop must wait on one for
// the bubble's other goroutines to settle before virtual time moves: it
// never runs ahead there.
const timerFloor = time.Millisecond

// nothingWaiting reports whether no connection has brought anything the
// loop has not taken: running the world ahead of the clock must not
// overtake a frame that came first.
func (f *Front) nothingWaiting() bool { return len(f.events) == 0 }

// step runs the world up to the clock's time (virtual time never goes
// back).
func (f *Front) step() error {
	f.now = max(f.now, sim.Time(time.Since(f.start)))
	return f.w.RunUntil(f.now)
}

// take hands one event to the world, now, and puts it on the tape.
func (f *Front) take(ev event) {
	switch ev.kind {
	case evOpen:
		f.opened(ev.p)
		f.opts.Tape.open(f.now, ev.p)
	case evFrame:
		f.opts.Tape.in(f.now, ev.p, ev.frame)
		f.arrived(ev.p, ev.frame)
	case evGone:
		f.opts.Tape.gone(f.now, ev.p)
		f.gone(ev.p)
	case evRecipe:
		f.opts.Tape.recipe(f.now, ev.frame)
		ev.answer <- f.recipe(ev.frame)
	}
}
