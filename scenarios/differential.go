package scenarios

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/sim"
)

// Differential testing: the same random sequence of operations, by one
// or several clients in a fixed interleaving, runs in the simulator and on
// a live ensemble, and what each call answered is compared: the result or
// the error, the path a create returned (sequence numbers included), the
// data, the Stat fields both worlds must agree on, the children, and the
// watch events each client received. A difference is a simulator bug, or a
// deliberate difference documented in Compare.

// DiffOp is one step of a differential program: client Client calls Op.
type DiffOp struct {
	Client int
	Op     string // create, create-e, create-s, create-es, delete, set, get, exists, children, get-w, exists-w, children-w, multi
	Path   string
	Data   string
	// Version is the expected version of delete, set and the multi's
	// set: -1 (any), 0 or 1.
	Version int32
}

func (o DiffOp) String() string {
	return fmt.Sprintf("c%d %s %s %q v%d", o.Client+1, o.Op, o.Path, o.Data, o.Version)
}

// DiffProgram draws n operations for the given number of clients over a
// small tree under root/d (root, which must exist and be fresh, is the
// parent of its sequential nodes: both worlds must start it empty), from
// seed.
func DiffProgram(root string, seed uint64, clients, n int) []DiffOp {
	r := rand.New(rand.NewPCG(seed, 0x64696666))
	var paths []string
	for _, p := range []string{"/d", "/d/a", "/d/b", "/d/a/x", "/d/b/y"} {
		paths = append(paths, root+p)
	}
	ops := []string{"create", "create", "create-e", "create-s", "create-es", "delete", "set", "set", "get", "exists",
		"children", "get-w", "exists-w", "children-w", "multi"}
	var out []DiffOp
	for i := 0; i < n; i++ {
		out = append(out, DiffOp{Client: r.IntN(clients), Op: ops[r.IntN(len(ops))], Path: paths[r.IntN(len(paths))],
			Data: fmt.Sprintf("v%d", i), Version: int32(r.IntN(3)) - 1})
	}
	return out
}

// DiffResult is what one call answered, in the terms both worlds share.
type DiffResult struct {
	Op     string
	Err    string   // "" or the zk error's text
	Path   string   // a create's returned path
	Data   string   // get's data
	Exists bool     // exists' answer
	Kids   []string // children, sorted
	Stat   string   // the fields that must agree (see statKey)
	Events []string // watch events the clients received since the last step, per client, sorted
}

func (r DiffResult) String() string {
	s := r.Op + " → "
	if r.Err != "" {
		return s + r.Err
	}
	s += "ok"
	if r.Path != "" {
		s += " " + r.Path
	}
	if r.Data != "" {
		s += fmt.Sprintf(" %q", r.Data)
	}
	if r.Exists {
		s += " exists"
	}
	if r.Kids != nil {
		s += " [" + strings.Join(r.Kids, " ") + "]"
	}
	if r.Stat != "" {
		s += " " + r.Stat
	}
	if len(r.Events) > 0 {
		s += " events{" + strings.Join(r.Events, ", ") + "}"
	}
	return s
}

// statKey is the Stat fields both worlds must agree on. Zxids and times
// differ between worlds (another ensemble, another clock), and so do
// session ids: only whether a node is ephemeral is compared.
func statKey(st *zk.Stat) string {
	if st == nil {
		return ""
	}
	return fmt.Sprintf("version=%d cversion=%d aversion=%d dataLength=%d numChildren=%d ephemeral=%v czxid==mzxid:%v",
		st.Version, st.Cversion, st.Aversion, st.DataLength, st.NumChildren, st.EphemeralOwner != 0, st.Czxid == st.Mzxid)
}

// RunDiffProgram runs prog on conns (one per client) in order, from one
// goroutine (a live world's sessions allow it), and returns what each step
// answered.
func RunDiffProgram(ctx context.Context, prog []DiffOp, conns []client.Conn) ([]DiffResult, error) {
	watches := make([][]client.Watch, len(conns))
	var out []DiffResult
	for _, op := range prog {
		res, err := diffStep(ctx, conns[op.Client], op, &watches[op.Client])
		if err != nil {
			return out, err
		}
		for i, c := range conns {
			if err := diffSettle(ctx, c, i, &watches[i], &res); err != nil {
				return out, err
			}
		}
		slices.Sort(res.Events)
		out = append(out, res)
	}
	return out, nil
}

// RunDiffSim runs prog in the simulator (one client process per client,
// taking turns: the step's client makes its call, then every client
// settles, in order), after creating root, and returns what each step
// answered.
func RunDiffSim(root string, prog []DiffOp, clients int, seed uint64) ([]DiffResult, error) {
	w, err := sim.New(sim.Config{Seed: seed})
	if err != nil {
		return nil, err
	}
	var (
		out   []DiffResult
		res   DiffResult
		step  int
		phase = -1 // -1: the step's call; i >= 0: client i settles
		fail  error
	)
	for i := 0; i < clients; i++ {
		w.Spawn("", func(ctx context.Context, c client.Conn) error {
			if i == 0 {
				if _, err := c.Create(ctx, root, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
					return err
				}
			}
			var watches []client.Watch
			for step < len(prog) && fail == nil {
				switch {
				case phase == -1 && prog[step].Client == i:
					res, fail = diffStep(ctx, c, prog[step], &watches)
					phase = 0
				case phase == i:
					if fail = diffSettle(ctx, c, i, &watches, &res); fail != nil {
						break
					}
					if phase++; phase == clients {
						slices.Sort(res.Events)
						out = append(out, res)
						step, phase = step+1, -1
					}
				default:
					if err := c.Sleep(ctx, 100*time.Microsecond); err != nil {
						return err
					}
				}
			}
			return nil
		})
	}
	r := w.Run()
	if fail != nil {
		return out, fail
	}
	return out, r.Err
}

// diffStep makes one step's call and records its answer; a watching read
// adds its watch to watches.
func diffStep(ctx context.Context, c client.Conn, op DiffOp, watches *[]client.Watch) (DiffResult, error) {
	acl := zk.WorldACL(zk.PermAll)
	res := DiffResult{Op: op.String()}
	var err error
	var st *zk.Stat
	var w client.Watch
	switch op.Op {
	case "create", "create-e", "create-s", "create-es":
		flags := map[string]int32{"create": 0, "create-e": zk.FlagEphemeral, "create-s": zk.FlagSequence,
			"create-es": zk.FlagEphemeral | zk.FlagSequence}[op.Op]
		res.Path, err = c.Create(ctx, op.Path, []byte(op.Data), flags, acl)
	case "delete":
		err = c.Delete(ctx, op.Path, op.Version)
	case "set":
		st, err = c.Set(ctx, op.Path, []byte(op.Data), op.Version)
	case "get":
		var d []byte
		d, st, err = c.Get(ctx, op.Path)
		res.Data = string(d)
	case "get-w":
		var d []byte
		d, st, w, err = c.GetW(ctx, op.Path)
		res.Data = string(d)
	case "exists":
		res.Exists, st, err = c.Exists(ctx, op.Path)
	case "exists-w":
		res.Exists, st, w, err = c.ExistsW(ctx, op.Path)
	case "children", "children-w":
		var kids []string
		if op.Op == "children" {
			kids, st, err = c.Children(ctx, op.Path)
		} else {
			kids, st, w, err = c.ChildrenW(ctx, op.Path)
		}
		if err == nil {
			res.Kids = slices.Sorted(slices.Values(kids))
			if res.Kids == nil {
				res.Kids = []string{}
			}
		}
	case "multi":
		_, err = c.Multi(ctx, &zk.CreateRequest{Path: op.Path + "/m", Data: []byte(op.Data), Acl: acl},
			&zk.SetDataRequest{Path: op.Path, Data: []byte(op.Data), Version: op.Version})
	default:
		return res, fmt.Errorf("unknown differential op %q", op.Op)
	}
	if err != nil {
		res.Err = zkErrText(err)
		if !isZKError(err) {
			return res, fmt.Errorf("%s: %w", op, err)
		}
	}
	if !(op.Op == "exists" || op.Op == "exists-w") || res.Exists {
		res.Stat = statKey(st)
	}
	if w != nil {
		*watches = append(*watches, w)
	}
	return res, nil
}

// diffSettle has client i sync and read, so that every watch event the
// step fired has reached it (a client sees an event before the data that
// follows it), and collects the events that fired.
func diffSettle(ctx context.Context, c client.Conn, i int, watches *[]client.Watch, res *DiffResult) error {
	if _, err := c.Sync(ctx, "/"); err != nil {
		return fmt.Errorf("c%d sync: %w", i+1, err)
	}
	if _, _, err := c.Exists(ctx, "/"); err != nil {
		return fmt.Errorf("c%d read: %w", i+1, err)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	kept := (*watches)[:0]
	for _, w := range *watches {
		ev, err := w.Wait(done)
		if err != nil {
			kept = append(kept, w)
			continue
		}
		res.Events = append(res.Events, fmt.Sprintf("c%d %s %s", i+1, strings.TrimPrefix(ev.Type.String(), "Event"), ev.Path))
	}
	*watches = kept
	return nil
}

// zkAnswers are the errors a server answers with; any other (a lost
// connection, ...) a differential run does not expect.
var zkAnswers = []error{zk.ErrNoNode, zk.ErrNodeExists, zk.ErrBadVersion, zk.ErrNotEmpty,
	zk.ErrNoChildrenForEphemerals, zk.ErrBadArguments, zk.ErrInvalidPath, zk.ErrInvalidACL, zk.ErrNoAuth}

// isZKError reports whether err is one of the server's answers.
func isZKError(err error) bool {
	for _, e := range zkAnswers {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
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

// CompareDiff lists the steps where two worlds answered differently.
func CompareDiff(a, b []DiffResult) []string {
	var out []string
	for i := 0; i < min(len(a), len(b)); i++ {
		if a[i].String() != b[i].String() {
			out = append(out, fmt.Sprintf("step %d:\n  sim:  %s\n  live: %s", i+1, a[i], b[i]))
		}
	}
	if len(a) != len(b) {
		out = append(out, fmt.Sprintf("%d steps against %d", len(a), len(b)))
	}
	return out
}
