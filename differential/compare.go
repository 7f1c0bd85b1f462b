package differential

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"
)

// Render is each step's answer as one line, every field a client can
// observe in terms both worlds share: zxids as offsets from the zxid that
// created the program's root (both worlds apply the same transactions in
// the same order, sessions opened and closed included, but another
// ensemble numbers them from elsewhere; one before the root shows as
// "before"), an ephemeral owner by the session's name (c1, c1', ...),
// times by whether mtime follows ctime (the clocks differ).
func (r Run) Render() []string {
	guids := guidNames{}
	out := make([]string, len(r.Results))
	for i, res := range r.Results {
		out[i] = res.render(r.statString, guids.name)
	}
	return out
}

// zxid is z as Render shows it.
func (r Run) zxid(z int64) string {
	if z < r.Base {
		return "before"
	}
	return fmt.Sprintf("+%d", z-r.Base)
}

// protectedGUID is the guid in a protected node's name.
var protectedGUID = regexp.MustCompile(`_c_[0-9a-f]{32}-`)

// guidNames names the guids of protected nodes by their order of first
// appearance (g1, g2, ...): each world draws its own.
type guidNames map[string]string

func (g guidNames) name(s string) string {
	return protectedGUID.ReplaceAllStringFunc(s, func(m string) string {
		if g[m] == "" {
			g[m] = fmt.Sprintf("_c_g%d-", len(g)+1)
		}
		return g[m]
	})
}

// statString is every field of st, as Render says.
func (r Run) statString(st *zk.Stat) string {
	if st == nil {
		return ""
	}
	owner := "-"
	if st.EphemeralOwner != 0 {
		owner = r.Sessions[st.EphemeralOwner]
		if owner == "" {
			owner = fmt.Sprintf("unknown session %#x", st.EphemeralOwner)
		}
	}
	times := "mtime>=ctime"
	if st.Mtime < st.Ctime {
		times = "mtime<ctime"
	}
	return fmt.Sprintf("{czxid=%s mzxid=%s pzxid=%s %s version=%d cversion=%d aversion=%d owner=%s dataLength=%d numChildren=%d}",
		r.zxid(st.Czxid), r.zxid(st.Mzxid), r.zxid(st.Pzxid), times, st.Version, st.Cversion, st.Aversion, owner,
		st.DataLength, st.NumChildren)
}

// render is the answer as one line, its Stats by stat, and the names in
// it by name.
func (res Result) render(stat func(*zk.Stat) string, name func(string) string) string {
	s := res.Op + " → " + outcome(res.Err, res.Path, name)
	if res.Read {
		if res.Data == nil {
			s += " data=nil"
		} else {
			s += fmt.Sprintf(" data=%q", res.Data)
		}
	}
	if res.Exists {
		s += " exists"
	}
	if res.Kids != nil {
		kids := namesOf(res.Kids, name)
		if !strings.HasPrefix(opName(res.Op), "ephemerals") || slices.ContainsFunc(res.Kids, protectedGUID.MatchString) {
			// A listing's order is the simulator's own (a salted hash's,
			// so that no recipe comes to rely on one): the sets must
			// agree. getEphemerals lists in the server's order
			// (sim.Tree.ephemeralOrder), which must agree too, unless a
			// protected node is among them: its guid, drawn at random by
			// each world, places it anywhere.
			slices.Sort(kids)
		}
		s += " [" + strings.Join(kids, " ") + "]"
	}
	if res.ACL != nil {
		s += " acl=" + aclString(res.ACL)
	}
	if res.Counted {
		s += fmt.Sprintf(" count=%d", res.Count)
	}
	if st := stat(res.Stat); st != "" {
		s += " " + st
	}
	for i, sub := range res.Multi {
		s += fmt.Sprintf(" op%d:", i+1) + outcome(sub.Err, sub.Path, name)
		if st := stat(sub.Stat); st != "" {
			s += " " + st
		}
	}
	if len(res.Events) > 0 {
		s += " events{" + strings.Join(sortedNames(res.Events, name), ", ") + "}"
	}
	if len(res.Notified) > 0 {
		notified := namesOf(res.Notified, name)
		if closesSession(res.Op) {
			// A session closing deletes its ephemeral nodes in the order
			// of the paths' hashes (sim.Tree.ephemeralOrder, which
			// TestClosingSessionDeletesInTheServersOrder pins), and a
			// protected node's path has a guid each world draws at
			// random, hidden when the event names its parent: the order
			// of their deletions cannot agree. Their set must.
			slices.Sort(notified)
		}
		s += " notified[" + strings.Join(notified, ", ") + "]"
	}
	return s
}

// closesSession reports whether a step (as Op.String shows it) closes
// its client's session: a reopen or an expire.
func closesSession(op string) bool {
	name := opName(op)
	return name == "reopen" || name == "expire"
}

// opName is the operation's name in a step as Op.String shows it
// ("c1 ephemerals /d" is an ephemerals).
func opName(op string) string {
	_, rest, _ := strings.Cut(op, " ")
	name, _, _ := strings.Cut(rest, " ")
	return name
}

// outcome is an answer's error, or ok and the path it made.
func outcome(err, path string, name func(string) string) string {
	if err != "" {
		return err
	}
	if path != "" {
		return "ok " + name(path)
	}
	return "ok"
}

// namesOf are names, each as name gives it.
func namesOf(names []string, name func(string) string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = name(n)
	}
	return out
}

// sortedNames are names, each as name gives it, in order.
func sortedNames(names []string, name func(string) string) []string {
	out := namesOf(names, name)
	slices.Sort(out)
	return out
}

// Divergence is the first step at which two worlds answered a program
// differently.
type Divergence struct {
	// Step is the step's index (from 0); Op is its operation's name
	// (create-e, multi, ...).
	Step      int
	Op        string
	Sim, Live string
}

func (d Divergence) String() string {
	return fmt.Sprintf("step %d:\n  sim:  %s\n  live: %s", d.Step+1, d.Sim, d.Live)
}

// Compare finds the first step at which the simulator's run of prog
// and the live one answered differently, or returns nil when they agree
// throughout.
func Compare(prog []Op, simRun, liveRun Run) *Divergence {
	a, b := simRun.Render(), liveRun.Render()
	for i := 0; i < min(len(a), len(b)); i++ {
		if a[i] != b[i] {
			return &Divergence{Step: i, Op: prog[i].Op, Sim: a[i], Live: b[i]}
		}
	}
	if len(a) != len(b) {
		i := min(len(a), len(b))
		d := &Divergence{Step: i, Sim: fmt.Sprintf("%d steps", len(a)), Live: fmt.Sprintf("%d steps", len(b))}
		if i < len(prog) {
			d.Op = prog[i].Op
		}
		return d
	}
	return nil
}
