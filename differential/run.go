package differential

import (
	"context"
	"errors"
	"fmt"
	"net"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/live"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/sim"
)

// Result is what one call of a differential program answered, as the
// client saw it.
type Result struct {
	Op  string
	Err string // "" or the zk error's text
	// Path is a create's returned path.
	Path string
	// Data is a get's data, nil as the client got it; Read says it is one.
	Data []byte
	Read bool
	// Exists is exists' answer.
	Exists bool
	// Kids are the children, sorted (non-nil when listed).
	Kids []string
	Stat *zk.Stat
	// Multi is a multi's answer, one per op.
	Multi []SubResult
	// ACL is getACL's answer.
	ACL []zk.ACL
	// Count is getAllChildrenNumber's answer; Counted says it is one.
	Count   int
	Counted bool
	// Events are the watch events the clients' watches fired with since
	// the last step, "cN Type path", sorted.
	Events []string
	// Notified are the notifications each client received from its server
	// since the last step, "cN Type path", client by client, each
	// client's in the order they arrived.
	Notified []string
}

// SubResult is one op's part of a multi's answer.
type SubResult struct {
	Err  string
	Path string
	Stat *zk.Stat
}

// Run is a program's answers in one world, and the name of each
// session it opened: its client, and a prime for each new session ("c1",
// "c1'", ...), so that an ephemeral owner compares across worlds. Base is
// the zxid that created the program's root, after every client's first
// session: the zxids are compared as offsets from it.
type Run struct {
	Results  []Result
	Sessions map[int64]string
	Base     int64
}

// diffClient is one client of a differential run: its current session,
// the watches it has left, how many sessions it has opened, and the
// notifications it received since it last settled.
type diffClient struct {
	i       int
	conn    client.Conn
	watches []client.Watch
	subs    []client.Subscription // persistent watches, heard until they end
	opened  int
	// expire has the ensemble expire the client's session (World.Expire;
	// live, the Conn's Expire).
	expire func(ctx context.Context) error

	mu    sync.Mutex // notes is written on a live connection's goroutine
	notes []string
}

// notifier is a session that tells of its notifications in order:
// *sim.Client and *live.Conn.
type notifier interface {
	OnNotification(fn func(zk.Event))
}

// start names the client's session, once it has one, and listens to its
// notifications.
func (dc *diffClient) start(ctx context.Context, run *Run) error {
	if n, ok := dc.conn.(notifier); ok {
		n.OnNotification(func(ev zk.Event) {
			dc.mu.Lock()
			dc.notes = append(dc.notes, fmt.Sprintf("c%d %s %s", dc.i+1, strings.TrimPrefix(ev.Type.String(), "Event"), ev.Path))
			dc.mu.Unlock()
		})
	}
	if _, err := dc.conn.Sync(ctx, "/"); err != nil {
		return fmt.Errorf("c%d sync: %w", dc.i+1, err)
	}
	dc.name(run)
	return nil
}

// name names the client's current session.
func (dc *diffClient) name(run *Run) {
	run.Sessions[dc.conn.SessionID()] = fmt.Sprintf("c%d%s", dc.i+1, strings.Repeat("'", dc.opened))
	dc.opened++
}

// expireNow has the ensemble expire the client's session, and waits until
// the client has learnt of it and holds another.
func (dc *diffClient) expireNow(ctx context.Context, run *Run) error {
	old := dc.conn.SessionID()
	if err := dc.expire(ctx); err != nil {
		return err
	}
	for dc.conn.SessionID() == old || dc.conn.SessionID() == 0 || dc.conn.State() != zk.StateHasSession {
		if err := dc.conn.Sleep(ctx, 10*time.Millisecond); err != nil {
			return fmt.Errorf("c%d waiting for a session after the expiry: %w", dc.i+1, err)
		}
	}
	dc.name(run)
	return nil
}

// liveExpire is a live client's expire.
func (dc *diffClient) liveExpire(ctx context.Context) error {
	e, ok := dc.conn.(interface{ Expire(context.Context) error })
	if !ok {
		return fmt.Errorf("c%d: a %T cannot be expired", dc.i+1, dc.conn)
	}
	return e.Expire(ctx)
}

// reopen opens the client's next session and, once the ensemble has
// granted it, closes the one it had: the new session's zxid comes before
// the close's in both worlds.
func (dc *diffClient) reopen(ctx context.Context, run *Run) error {
	next, err := dc.conn.NewSession(ctx)
	if err != nil {
		return err
	}
	if _, err := next.Sync(ctx, "/"); err != nil {
		return fmt.Errorf("c%d's new session: %w", dc.i+1, err)
	}
	dc.conn.Close()
	dc.conn = next
	return dc.start(ctx, run)
}

// RunProgram runs prog on conns (one per client) in order, from one
// goroutine (a live world's sessions allow it), after creating root once
// every client has its session, and returns what each step answered. A
// reopen replaces the client's Conn in conns.
func RunProgram(ctx context.Context, root string, prog []Op, conns []client.Conn) (Run, error) {
	run := Run{Sessions: map[int64]string{}}
	clients := make([]*diffClient, len(conns))
	for i, c := range conns {
		clients[i] = &diffClient{i: i, conn: c}
		clients[i].expire = clients[i].liveExpire
		if err := clients[i].start(ctx, &run); err != nil {
			return run, err
		}
	}
	defer func() {
		for i, dc := range clients {
			conns[i] = dc.conn
		}
	}()
	if err := clients[0].createRoot(ctx, root, &run); err != nil {
		return run, err
	}
	for _, op := range prog {
		res, err := clients[op.Client].step(ctx, op, &run)
		if err != nil {
			return run, err
		}
		for _, dc := range clients {
			if err := dc.settle(ctx, &res); err != nil {
				return run, err
			}
		}
		slices.Sort(res.Events)
		run.Results = append(run.Results, res)
	}
	return run, nil
}

// createRoot creates the program's root and keeps the zxid that did.
func (dc *diffClient) createRoot(ctx context.Context, root string, run *Run) error {
	_, st, err := dc.conn.Create2(ctx, root, nil, 0, zk.WorldACL(zk.PermAll))
	if err != nil {
		return fmt.Errorf("creating %s: %w", root, err)
	}
	run.Base = st.Czxid
	dc.settleNotes()
	return nil
}

// SimConfig is the simulator's configuration for a differential program:
// extended types on, so that TTL nodes are created and compared, and the
// containers' and TTL nodes' reaping every hour, so that none happens
// during a program (its timing is compared by the reaping tests); the live
// ensemble is started with the same settings (EnsembleOptions).
func SimConfig(seed uint64) sim.Config {
	return sim.Config{Seed: seed, ExtendedTypes: true, ContainerCheckInterval: time.Hour}
}

// EnsembleOptions are the live ensemble's settings for differential
// programs, SimConfig's.
var EnsembleOptions = live.EnsembleOptions{ExtendedTypes: true, ContainerCheckInterval: time.Hour}

// RunSim runs prog in the simulator (one client process per client,
// taking turns: the step's client makes its call, then every client
// settles, in order), after creating root, and returns what each step
// answered.
func RunSim(root string, prog []Op, clients int, seed uint64) (Run, error) {
	w, err := sim.New(SimConfig(seed))
	if err != nil {
		return Run{}, err
	}
	run := Run{Sessions: map[int64]string{}}
	var (
		res     Result
		step    int
		phase   = -2 // -2: starting; -3: client 1 creates the root; -1: the step's call; i >= 0: client i settles
		started int
		fail    error
	)
	for i := 0; i < clients; i++ {
		w.Spawn("", func(ctx context.Context, c client.Conn) error {
			dc := &diffClient{i: i, conn: c}
			dc.expire = func(context.Context) error { w.Expire(i); return nil }
			if fail = dc.start(ctx, &run); fail != nil {
				return nil
			}
			if started++; started == clients {
				phase = -3 // client 1 creates the root
			}
			if i == 0 {
				for phase != -3 {
					if err := c.Sleep(ctx, 100*time.Microsecond); err != nil {
						return err
					}
				}
				if fail = dc.createRoot(ctx, root, &run); fail != nil {
					return nil
				}
				phase = -1
			}
			for step < len(prog) && fail == nil {
				switch {
				case phase == -1 && prog[step].Client == i:
					res, fail = dc.step(ctx, prog[step], &run)
					phase = 0
				case phase == i:
					if fail = dc.settle(ctx, &res); fail != nil {
						break
					}
					if phase++; phase == clients {
						slices.Sort(res.Events)
						run.Results = append(run.Results, res)
						step, phase = step+1, -1
					}
				default:
					if err := dc.conn.Sleep(ctx, 100*time.Microsecond); err != nil {
						return err
					}
				}
			}
			return nil
		})
	}
	r := w.Run()
	if fail != nil {
		return run, fail
	}
	return run, r.Err
}

// step makes one step's call as client dc and records its answer; a
// watching read adds its watch to the client's.
func (dc *diffClient) step(ctx context.Context, op Op, run *Run) (Result, error) {
	res := Result{Op: op.String()}
	w, err := dc.call(ctx, op, run, &res)
	if errors.Is(err, errUnknownDiffOp) {
		return res, err
	}
	if res.Kids != nil || (err == nil && (strings.HasPrefix(op.Op, "children") || strings.HasPrefix(op.Op, "ephemerals"))) {
		// The order is Result.render's to judge: a listing's is compared
		// as a set, getEphemerals' as the server's.
		if res.Kids == nil {
			res.Kids = []string{}
		}
	}
	var netErr *net.OpError
	if errors.As(err, &netErr) {
		// The server closed the connection while the library was still
		// writing a request too long for it: the library hands the write's
		// own error up (it says ErrConnectionClosed when the close is seen
		// first), for the same outcome.
		err = zk.ErrConnectionClosed
	}
	if err != nil {
		res.Err = zkErrText(err)
		if !isZKError(err) {
			return res, fmt.Errorf("%s: %w", op, err)
		}
		res.Stat, res.Kids, res.ACL = nil, nil, nil
	}
	if (op.Op == "exists" || op.Op == "exists-w" || op.Op == "exists-big") && !res.Exists {
		res.Stat = nil // the zero Stat of a missing node
	}
	if w != nil {
		dc.watches = append(dc.watches, w)
	}
	return res, nil
}

// errUnknownDiffOp is a program step no client call answers.
var errUnknownDiffOp = errors.New("unknown differential op")

// call makes op's call, filling res with its answer; it returns the watch
// a watching read left, and the call's error.
func (dc *diffClient) call(ctx context.Context, op Op, run *Run, res *Result) (client.Watch, error) {
	c := dc.conn
	var err error
	var w client.Watch
	switch op.Op {
	case "get":
		res.Data, res.Stat, err = c.Get(ctx, op.Path)
		res.Read = err == nil
	case "get-w":
		res.Data, res.Stat, w, err = c.GetW(ctx, op.Path)
		res.Read = err == nil
	case "exists":
		res.Exists, res.Stat, err = c.Exists(ctx, op.Path)
	case "exists-w":
		res.Exists, res.Stat, w, err = c.ExistsW(ctx, op.Path)
	case "children":
		res.Kids, res.Stat, err = c.Children(ctx, op.Path)
	case "children-w":
		res.Kids, res.Stat, w, err = c.ChildrenW(ctx, op.Path)
	case "get-config":
		err = dc.getConfig(ctx, res)
	case "sync":
		_, err = c.Sync(ctx, "/")
	case "reopen":
		err = dc.reopen(ctx, run)
	case "expire":
		err = dc.expireNow(ctx, run)
	case "addauth":
		err = c.AddAuth(ctx, "digest", []byte(op.Data))
	case "getacl":
		res.ACL, res.Stat, err = c.GetACL(ctx, op.Path)
	case "ephemerals":
		res.Kids, err = c.GetEphemerals(ctx, op.Path)
	case "ephemerals-burst":
		for range op.Burst {
			if _, err = c.Create(ctx, op.Path+"/b-", nil, zk.FlagEphemeral|zk.FlagSequence, diffACLs[0]); err != nil {
				break
			}
		}
		if err == nil {
			res.Kids, err = c.GetEphemerals(ctx, "/")
		}
	case "count":
		res.Count, err = c.GetAllChildrenNumber(ctx, op.Path)
		res.Counted = err == nil
	case "get-big", "exists-big", "children-big", "delete-big", "getacl-big", "count-big", "ephemerals-big", "addauth-big":
		err = dc.bigRead(ctx, op, res)
	case "addwatch", "addwatch-r":
		var sub client.Subscription
		if sub, err = c.AddWatch(ctx, op.Path, op.Op == "addwatch-r"); err == nil {
			dc.subs = append(dc.subs, sub)
		}
	case "removewatches":
		err = c.RemoveWatches(ctx, op.Path)
	default:
		err = dc.write(ctx, op, res)
	}
	return w, err
}

// bigRead makes a read-big's call: the read its name says, on its long
// path (an addauth with long credentials).
func (dc *diffClient) bigRead(ctx context.Context, op Op, res *Result) error {
	c, p := dc.conn, op.bigPath()
	var err error
	switch op.Op {
	case "get-big":
		res.Data, res.Stat, err = c.Get(ctx, p)
		res.Read = err == nil
	case "exists-big":
		res.Exists, res.Stat, err = c.Exists(ctx, p)
	case "children-big":
		res.Kids, res.Stat, err = c.Children(ctx, p)
	case "delete-big":
		err = c.Delete(ctx, p, -1)
	case "getacl-big":
		res.ACL, res.Stat, err = c.GetACL(ctx, p)
	case "count-big":
		res.Count, err = c.GetAllChildrenNumber(ctx, p)
		res.Counted = err == nil
	case "ephemerals-big":
		res.Kids, err = c.GetEphemerals(ctx, p)
	case "addauth-big":
		err = c.AddAuth(ctx, "digest", []byte("u1:"+strings.Repeat("p", op.BigLen)))
	}
	return err
}

// write makes op's call when it is a write (a create of any mode, a
// delete, a set, a multi, a setACL).
func (dc *diffClient) write(ctx context.Context, op Op, res *Result) error {
	c := dc.conn
	var err error
	switch op.Op {
	case "create", "create-e", "create-s", "create-es", "create-pc", "create-big":
		res.Path, err = c.Create(ctx, op.Path, op.data(), createFlags[op.Op], diffACLs[op.ACL])
	case "create2", "create2-es":
		res.Path, res.Stat, err = c.Create2(ctx, op.Path, op.data(), createFlags[op.Op], diffACLs[op.ACL])
	case "create-p":
		res.Path, err = c.CreateProtectedEphemeralSequential(ctx, op.Path, op.data(), diffACLs[op.ACL])
	case "create-c":
		res.Path, err = c.CreateContainer(ctx, op.Path, op.data(), zk.FlagContainer, diffACLs[op.ACL])
	case "create-t", "create-ts":
		res.Path, err = c.CreateTTL(ctx, op.Path, op.data(), createFlags[op.Op], diffACLs[op.ACL], time.Second)
	case "delete":
		err = c.Delete(ctx, op.Path, op.Version)
	case "set", "set-big":
		res.Stat, err = c.Set(ctx, op.Path, op.data(), op.Version)
	case "multi", "multi-big":
		err = dc.multi(ctx, op, res)
	case "setacl":
		res.Stat, err = c.SetACL(ctx, op.Path, diffACLs[op.ACL], op.Version)
	default:
		return fmt.Errorf("%w %q", errUnknownDiffOp, op.Op)
	}
	return err
}

// getConfig reads /zookeeper/config, with the servers' ports masked:
// another ensemble listens on other ports, whose digits count in the
// data's length.
func (dc *diffClient) getConfig(ctx context.Context, res *Result) error {
	var err error
	res.Data, res.Stat, err = dc.conn.Get(ctx, "/zookeeper/config")
	res.Read = err == nil
	res.Data = serverPorts.ReplaceAll(res.Data, []byte(":PORT:PORT:"))
	if res.Stat != nil {
		st := *res.Stat
		st.DataLength = int32(len(res.Data))
		res.Stat = &st
	}
	return err
}

// serverPorts are the ports of a server's line in /zookeeper/config.
var serverPorts = regexp.MustCompile(`:[0-9]+:[0-9]+:`)

// createFlags are the flags of the create ops.
var createFlags = map[string]int32{"create": 0, "create-e": zk.FlagEphemeral, "create-s": zk.FlagSequence,
	"create-es": zk.FlagEphemeral | zk.FlagSequence, "create-pc": zk.FlagContainer, "create-t": zk.FlagTTL,
	"create-ts": zk.FlagPersistentSequentialWithTTL, "create-big": 0, "create2": 0,
	"create2-es": zk.FlagEphemeral | zk.FlagSequence}

// multi runs op's ops as one multi and records each one's answer.
func (dc *diffClient) multi(ctx context.Context, op Op, res *Result) error {
	ops := make([]any, len(op.Sub))
	for i, s := range op.Sub {
		switch s.Op {
		case "create", "create-e", "create-s", "create-es", "create-pc", "create-t":
			ops[i] = &zk.CreateRequest{Path: s.Path, Data: s.data(), Acl: diffACLs[s.ACL], Flags: createFlags[s.Op]}
		case "delete":
			ops[i] = &zk.DeleteRequest{Path: s.Path, Version: s.Version}
		case "set":
			ops[i] = &zk.SetDataRequest{Path: s.Path, Data: s.data(), Version: s.Version}
		case "check":
			ops[i] = &zk.CheckVersionRequest{Path: s.Path, Version: s.Version}
		default:
			return fmt.Errorf("unknown differential multi op %q", s.Op)
		}
	}
	rs, err := dc.conn.Multi(ctx, ops...)
	for _, r := range rs {
		sub := SubResult{Path: r.String, Stat: r.Stat}
		if r.Error != nil {
			sub.Err = zkErrText(r.Error)
		}
		res.Multi = append(res.Multi, sub)
	}
	return err
}

// settle has client dc bring its server up to date and read, so that
// every watch event the step fired has reached it (a client sees an event
// before the data that follows it), and collects the events that fired.
// A sync would not do on the leader, which may apply the step's write
// after the writer's follower answered it (recipes.UpToDate).
func (dc *diffClient) settle(ctx context.Context, res *Result) error {
	if err := recipes.UpToDate(ctx, dc.conn); err != nil {
		return fmt.Errorf("c%d up to date: %w", dc.i+1, err)
	}
	if _, _, err := dc.conn.Exists(ctx, "/"); err != nil {
		return fmt.Errorf("c%d read: %w", dc.i+1, err)
	}
	kept := dc.watches[:0]
	for _, w := range dc.watches {
		ev, ok := w.Poll()
		if !ok {
			kept = append(kept, w)
			continue
		}
		res.Events = append(res.Events, fmt.Sprintf("c%d %s %s", dc.i+1, strings.TrimPrefix(ev.Type.String(), "Event"), ev.Path))
	}
	dc.watches = kept
	live := dc.subs[:0]
	for _, sub := range dc.subs {
		ended := false
		for {
			ev, ok := sub.Poll()
			if !ok {
				break
			}
			res.Events = append(res.Events, fmt.Sprintf("c%d persistent %s %s", dc.i+1, strings.TrimPrefix(ev.Type.String(), "Event"), ev.Path))
			ended = ended || ev.Type == zk.EventNotWatching
		}
		if !ended {
			live = append(live, sub)
		}
	}
	dc.subs = live
	res.Notified = append(res.Notified, dc.settleNotes()...)
	return nil
}

// settleNotes takes the notifications the client received so far.
func (dc *diffClient) settleNotes() []string {
	dc.mu.Lock()
	defer dc.mu.Unlock()
	notes := dc.notes
	dc.notes = nil
	return notes
}

// zkAnswers are the errors a server answers with; any other (a lost
// connection, ...) a differential run does not expect.
var zkAnswers = []error{zk.ErrNoNode, zk.ErrNodeExists, zk.ErrBadVersion, zk.ErrNotEmpty,
	zk.ErrNoChildrenForEphemerals, zk.ErrBadArguments, zk.ErrInvalidPath, zk.ErrInvalidACL, zk.ErrNoAuth,
	zk.ErrAPIError, zk.ErrAuthFailed, zk.ErrShortBuffer, zk.ErrConnectionClosed}

// isZKError reports whether err is one of the server's answers: one of
// zkAnswers, or a code the library has no value for ("unknown error: -6").
func isZKError(err error) bool {
	for _, e := range zkAnswers {
		if errors.Is(err, e) {
			return true
		}
	}
	return strings.HasPrefix(err.Error(), "unknown error: ")
}

// zkErrText names a zk error; other errors by their text.
func zkErrText(err error) string {
	for _, e := range zkAnswers {
		if errors.Is(err, e) {
			return e.Error()
		}
	}
	return err.Error()
}
