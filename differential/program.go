package differential

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/go-zookeeper/zk"
	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/jute"
)

// Op is one step of a differential program: client Client calls Op.
type Op struct {
	Client int
	// Op is one of diffOps; a multi's ops are of diffSubOps. The creates:
	// create (persistent), -e (ephemeral), -s (sequential), -es; -c
	// (CreateContainer), -t and -ts (CreateTTL, plain and sequential, a
	// second), -pc (Create with the container flag), -p
	// (CreateProtectedEphemeralSequential).
	Op   string
	Path string
	// Data is what a create or set writes; NilData writes nil instead (a
	// null buffer on the wire), and Data "" with NilData false writes an
	// empty slice.
	Data    string
	NilData bool
	// Version is the expected version of delete, set and check: -1 (any),
	// 0 or 1.
	Version int32
	// Sub are a multi's ops, in order.
	Sub []Op
	// ACL is the ACL a create or setACL gives, an index in diffACLs.
	ACL int
	// Big sizes the data of a set-big, a create-big or a multi-big's set
	// so that the request is, on the wire, 1 the longest the server reads
	// (jute.maxbuffer), 2 a byte longer, 3 a byte longer than go-zk's
	// buffer holds (bigFrames). BigLen is that data's length.
	Big, BigLen int
	// Burst is how many ephemeral sequential nodes an ephemerals-burst
	// creates under Path, one create each, before it lists the session's
	// ephemeral nodes (getEphemerals of "/"): enough of them at once for
	// their order, the server's hash set's, to show.
	Burst int
}

// diffACLs are the ACLs a program's creates and setACLs give: open, read
// only, a digest's alone (u1's; u2's with reads for all), the creator's
// digest (auth), by address (this host's; another network's, which keeps
// everyone out), no permissions, and invalid ones (world with another id,
// none at all, a malformed digest, an unknown scheme).
var diffACLs = [][]zk.ACL{
	zk.WorldACL(zk.PermAll),
	zk.WorldACL(zk.PermRead),
	zk.DigestACL(zk.PermAll, "u1", "p1"),
	append(zk.DigestACL(zk.PermAll, "u2", "p2"), zk.WorldACL(zk.PermRead)...),
	zk.AuthACL(zk.PermAll),
	{{Perms: zk.PermAll, Scheme: "ip", ID: "127.0.0.1"}},
	{{Perms: zk.PermAll, Scheme: "ip", ID: "10.0.0.0/8"}},
	{{Perms: 0, Scheme: "world", ID: "anyone"}},
	{{Perms: zk.PermAll, Scheme: "world", ID: "bob"}},
	{},
	{{Perms: zk.PermAll, Scheme: "digest", ID: "u1"}},
	{{Perms: zk.PermAll, Scheme: "x", ID: "y"}},
	// What the server reads as Java does: an address in fullwidth digits
	// (this host's; another network's), a digest id masked line by line, a
	// digest id whose bytes are not UTF-8 (shown, world having ADMIN).
	{{Perms: zk.PermAll, Scheme: "ip", ID: "１２７.0.0.1"}},
	{{Perms: zk.PermAll, Scheme: "ip", ID: "１０.0.0.0/８"}},
	{{Perms: zk.PermAll, Scheme: "digest", ID: "u9:ab\ncd"}, {Perms: zk.PermRead, Scheme: "world", ID: "anyone"}},
	{{Perms: zk.PermAll, Scheme: "digest", ID: "u9:\xe2\x82z\xed\xa0\x80"}, {Perms: zk.PermAll, Scheme: "world", ID: "anyone"}},
}

// diffOps are the operations a program draws from, each as often as it
// appears. addwatch and addwatch-r set a persistent and a recursive watch
// (whose events each step's settle collects, as it does the one-shot
// watches'), removewatches removes every watch of the session on a path. reopen closes the client's session and opens another (its
// ephemeral nodes go, its watches end).
// expire has the ensemble expire it (its ephemeral nodes go, its watches
// end, and the client opens another session). create2 and create2-es are
// Create2, persistent and ephemeral sequential.
var diffOps = []string{"create", "create", "create-e", "create-s", "create-es", "create-c", "create-t", "create-ts",
	"create-pc", "create-p", "create2", "create2-es", "delete", "set", "set", "get", "exists", "children", "get-w",
	"exists-w", "children-w", "multi", "multi", "sync", "reopen", "expire", "addauth", "getacl", "setacl", "set-big",
	"create-big", "multi-big", "get-config", "ephemerals", "ephemerals-burst", "count", "read-big", "addwatch", "addwatch-r",
	"removewatches"}

// bigReads are what a read-big becomes: a request without data made long
// by its path (or, for addauth, its credentials), as long as the server
// reads, a byte longer, or longer than go-zk's buffer (Big): every request
// counts against jute.maxbuffer, not only those that carry data.
var bigReads = []string{"get", "exists", "children", "delete", "getacl", "count", "ephemerals", "addauth"}

// diffSubOps are the operations a multi draws from.
var diffSubOps = []string{"create", "create-e", "create-s", "create-es", "create-pc", "create-t", "delete", "set",
	"check"}

func (o Op) String() string {
	s := fmt.Sprintf("%s %s", o.Op, o.Path)
	create := strings.HasPrefix(o.Op, "create")
	if create || o.Op == "set" {
		s += " " + o.dataString()
	}
	if create {
		s += " " + aclString(diffACLs[o.ACL])
	}
	switch o.Op {
	case "setacl":
		s += fmt.Sprintf(" %s v%d", aclString(diffACLs[o.ACL]), o.Version)
	case "ephemerals-burst":
		s += fmt.Sprintf(" ×%d", o.Burst)
	case "addauth":
		s = "addauth digest " + o.Data
	case "set-big", "create-big":
		s += fmt.Sprintf(" (%d bytes)", o.BigLen)
	case "get-big", "exists-big", "children-big", "delete-big", "getacl-big", "count-big", "ephemerals-big":
		s = fmt.Sprintf("%s %s/<%d bytes>", o.Op, o.Path, o.BigLen)
	case "addauth-big":
		s = fmt.Sprintf("addauth digest u1:<%d bytes>", o.BigLen)
	case "delete", "set", "check":
		if o.Big > 0 {
			s += fmt.Sprintf(" (%d bytes)", o.BigLen)
		}
		s += fmt.Sprintf(" v%d", o.Version)
	case "multi", "multi-big":
		subs := make([]string, len(o.Sub))
		for i, sub := range o.Sub {
			subs[i] = sub.String()
		}
		s = "multi(" + strings.Join(subs, "; ") + ")"
	case "ephemerals", "count", "addwatch", "addwatch-r", "removewatches":
		s = fmt.Sprintf("%s %s", o.Op, o.Path)
	case "sync", "reopen", "expire", "get-config":
		s = o.Op
	}
	if o.Client >= 0 { // a multi's ops have none of their own
		s = fmt.Sprintf("c%d %s", o.Client+1, s)
	}
	return s
}

func (o Op) dataString() string {
	if o.NilData {
		return "nil"
	}
	return fmt.Sprintf("%q", o.Data)
}

// data is the op's data as the client passes it.
func (o Op) data() []byte {
	if o.Big > 0 {
		return make([]byte, o.BigLen)
	}
	if o.NilData {
		return nil
	}
	return []byte(o.Data)
}

// bigFrames are the request sizes Big names, on the wire without the
// 4-byte length: the server reads 0xfffff bytes at most (jute.maxbuffer),
// and go-zk's buffer holds 1536 KiB, the length included.
var bigFrames = []int{0xfffff, 0xfffff + 1, 1536*1024 - 4 + 1}

// bigOverhead is what a big op's request takes besides its data, as jute
// writes it (jute.RequestSize of the request with empty data): a setData,
// a create of the open ACL, a multi of one setData.
func bigOverhead(op, path string) int {
	switch op {
	case "create-big":
		return jute.RequestSize(&jute.CreateRequest{Path: path, Data: []byte{}, ACL: diffACLs[0]})
	case "multi-big":
		return jute.RequestSize(&jute.MultiRequest{Ops: []jute.MultiOp{
			{Type: client.OpSetData, Request: &jute.SetDataRequest{Path: path, Data: []byte{}, Version: -1}}}})
	default: // set-big
		return jute.RequestSize(&jute.SetDataRequest{Path: path, Data: []byte{}, Version: -1})
	}
}

// Program draws n operations for the given number of clients over a
// small tree under root/d (root, which must exist and be fresh, is the
// parent of its sequential nodes: both worlds must start it empty), from
// seed.
func Program(root string, seed uint64, clients, n int) []Op {
	r := rand.New(rand.NewPCG(seed, 0x64696666))
	var paths []string
	for _, p := range []string{"/d", "/d/a", "/d/b", "/d/a/x", "/d/b/y"} {
		paths = append(paths, root+p)
	}
	var out []Op
	for i := 0; i < n; i++ {
		op := drawDiffOp(r, diffOps, paths, i)
		op.Client = r.IntN(clients)
		switch op.Op {
		case "multi":
			op.Sub = make([]Op, 1+r.IntN(4))
			for j := range op.Sub {
				op.Sub[j] = drawDiffOp(r, diffSubOps, paths, i)
				op.Sub[j].Client = -1
			}
		case "multi-big":
			op.Sub = []Op{{Client: -1, Op: "set", Path: op.Path, Version: -1, Big: op.Big, BigLen: op.BigLen}}
		}
		out = append(out, op)
	}
	return out
}

// drawDiffOp draws one op of ops on one of paths, its data numbered i: a
// string one time in two, else empty or nil; its ACL open one time in
// two, else any of diffACLs.
func drawDiffOp(r *rand.Rand, ops, paths []string, i int) Op {
	op := Op{Op: ops[r.IntN(len(ops))], Path: paths[r.IntN(len(paths))], Version: int32(r.IntN(3)) - 1}
	switch r.IntN(4) {
	case 0:
		op.NilData = true
	case 1:
	default:
		op.Data = fmt.Sprintf("v%d", i)
	}
	if r.IntN(2) == 0 {
		op.ACL = r.IntN(len(diffACLs))
	}
	if specialReads[op.Op] && r.IntN(8) == 0 {
		op.Path = specialPaths[r.IntN(len(specialPaths))]
	}
	if op.Op == "ephemerals" && r.IntN(4) == 0 {
		op.Path = "/"
	}
	if op.Op == "ephemerals-burst" {
		op.Burst = 3 + r.IntN(10)
	}
	if op.Op == "addauth" {
		// Several digests on one connection expand an auth ACL in the
		// server's hash order; one of them is not UTF-8.
		op.Data = addAuths[r.IntN(len(addAuths))]
	}
	switch op.Op {
	case "set-big", "create-big", "multi-big":
		op.Big = 1 + r.IntN(len(bigFrames))
		op.BigLen = bigFrames[op.Big-1] - bigOverhead(op.Op, op.Path)
		op.ACL = 0
	case "read-big":
		op.Op = bigReads[r.IntN(len(bigReads))] + "-big"
		op.Big = 1 + r.IntN(len(bigFrames))
		if op.Op == "addauth-big" {
			// Not as long as the limit: credentials accepted would be sent
			// again on every connection, and every auth ACL made after
			// would carry them, for the rest of the program.
			op.Big = 2 + r.IntN(len(bigFrames)-1)
		}
		op.BigLen = bigFrames[op.Big-1] - bigReadOverhead(op.Op, op.Path)
		if op.Big == len(bigFrames) && (op.Op == "get-big" || op.Op == "exists-big" || op.Op == "children-big") {
			// go-zk panics when its buffer is overrun by a request's last
			// byte alone, a watch flag (an index, not a slice, out of
			// range): the path overruns it instead (docs/fidelity.md).
			op.BigLen++
		}
	}
	return op
}

// bigReadOverhead is what a read-big's request takes besides the bytes
// that make it long (the name added to its path, or the password), as
// jute writes it: the request with its path and the "/" before the name,
// or an addauth's with the credentials "u1:".
func bigReadOverhead(op, path string) int {
	dir := path + "/"
	switch op {
	case "addauth-big":
		return jute.RequestSize(&jute.AuthPacket{Scheme: "digest", Auth: []byte("u1:")})
	case "get-big":
		return jute.RequestSize(&jute.GetDataRequest{Path: dir})
	case "exists-big":
		return jute.RequestSize(&jute.ExistsRequest{Path: dir})
	case "children-big":
		return jute.RequestSize(&jute.GetChildren2Request{Path: dir})
	case "delete-big":
		return jute.RequestSize(&jute.DeleteRequest{Path: dir, Version: -1})
	case "getacl-big":
		return jute.RequestSize(&jute.GetACLRequest{Path: dir})
	case "count-big":
		return jute.RequestSize(&jute.GetAllChildrenNumberRequest{Path: dir})
	default: // ephemerals-big
		return jute.RequestSize(&jute.GetEphemeralsRequest{PrefixPath: dir})
	}
}

// bigPath is a read-big's path: its own, with a name of BigLen bytes below.
func (o Op) bigPath() string { return o.Path + "/" + strings.Repeat("a", o.BigLen) }

// addAuths are the digest credentials a program's addauth adds.
// (Not one whose user is beyond U+FFFF: docs/fidelity.md says why the
// server's answer to it depends on the server a client is connected to.)
var addAuths = []string{"u1:p1", "u2:p2", "zed:1", "alice:pw", "u3:p\xff"}

// specialPaths are ZooKeeper's own nodes a program reads, one read in eight
// (not /: on the live ensemble, earlier programs' roots are its children;
// nor a write: the live ensemble outlives the program).
var specialPaths = []string{"/zookeeper", "/zookeeper/quota"}

// specialReads are the reads a program makes of specialPaths.
var specialReads = map[string]bool{"get": true, "exists": true, "children": true, "getacl": true, "count": true}

// aclString is an ACL as a program shows it: perms:scheme:id, in order.
func aclString(acl []zk.ACL) string {
	parts := make([]string, len(acl))
	for i, a := range acl {
		parts[i] = fmt.Sprintf("%d:%s:%s", a.Perms, a.Scheme, a.ID)
	}
	return "[" + strings.Join(parts, " ") + "]"
}
