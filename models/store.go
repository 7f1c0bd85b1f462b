package models

import (
	"fmt"
	"io"
	"slices"

	"github.com/anishathalye/porcupine"
)

// node is the store model's state for one path.
type node struct {
	exists  bool
	data    string
	version int32
}

func (n node) String() string {
	if !n.exists {
		return "absent"
	}
	return fmt.Sprintf("%q v%d", n.data, n.version)
}

// versionMatches is ZooKeeper's version check: -1 matches any version.
func versionMatches(want, have int32) bool { return want == -1 || want == have }

// step is the store's sequential specification for one path: whether op,
// with the result the client saw, can happen in state n, and the state
// after. An operation of unknown outcome may have happened or not: it is
// placed (by the checker) anywhere after its call, and there it does what
// it would do.
func step(n node, op Operation) (bool, node) {
	unknown := op.Result == Unknown
	switch op.Kind {
	case Create:
		switch {
		case unknown:
			if !n.exists {
				return true, node{exists: true, data: op.Data}
			}
			return true, n
		case op.Result == OK:
			return !n.exists, node{exists: true, data: op.Data}
		case op.Result == NodeExists:
			return n.exists, n
		}
	case Delete:
		ok := n.exists && versionMatches(op.Version, n.version)
		switch {
		case unknown:
			if ok {
				return true, node{}
			}
			return true, n
		case op.Result == OK:
			return ok, node{}
		case op.Result == NoNode:
			return !n.exists, n
		case op.Result == BadVersion:
			return n.exists && !ok, n
		}
	case Set:
		ok := n.exists && versionMatches(op.Version, n.version)
		next := node{exists: true, data: op.Data, version: n.version + 1}
		switch {
		case unknown:
			if ok {
				return true, next
			}
			return true, n
		case op.Result == OK:
			return ok && op.OutVersion == next.version, next
		case op.Result == NoNode:
			return !n.exists, n
		case op.Result == BadVersion:
			return n.exists && !ok, n
		}
	case Get:
		switch op.Result {
		case OK:
			return n.exists && n.data == op.OutData && n.version == op.OutVersion, n
		case NoNode:
			return !n.exists, n
		}
	case Exists:
		switch op.Result {
		case OK:
			return n.exists && n.version == op.OutVersion, n
		case NoNode:
			return !n.exists, n
		}
	}
	return false, n // a result the store cannot give
}

// StoreModel is the porcupine model of the znode store: each path a
// register holding whether the node exists, its data and its version.
var StoreModel = Model{
	Name:          "store",
	Doc:           "znode store (every path a register: exists, data, version)",
	Kinds:         []OpKind{Create, Delete, Set, Get, Exists},
	Explain:       staleRead,
	Init:          func() any { return node{} },
	Step:          func(state any, op Operation) (bool, any) { return step(state.(node), op) },
	DescribeState: func(state any) string { return state.(node).String() },
	Prepare:       withoutFailed,
}

// StoreWritesModel is StoreModel on writes alone: ZooKeeper promises
// linearizable writes, not reads (a follower may answer a read from an
// older state; sync() first closes that gap).
var StoreWritesModel = Model{
	Name:          "store-writes",
	Doc:           "znode store, writes only",
	Kinds:         []OpKind{Create, Delete, Set},
	Init:          StoreModel.Init,
	Step:          StoreModel.Step,
	DescribeState: StoreModel.DescribeState,
	Prepare:       StoreModel.Prepare,
}

// withoutFailed is ops without the Failed ones: a store operation that
// failed did not happen (its request was never sent, or refused), or read
// nothing, and the store model has no step for it. ops is not changed.
func withoutFailed(ops []Operation) []Operation {
	return slices.DeleteFunc(slices.Clone(ops), func(op Operation) bool { return op.Result == Failed })
}

func init() {
	registerModel(StoreModel)
	registerModel(StoreWritesModel)
}

// Writes keeps the writes of a history: ZooKeeper promises linearizable
// writes, not reads.
func Writes(ops []Operation) []Operation {
	var out []Operation
	for _, op := range ops {
		if op.Kind == Create || op.Kind == Delete || op.Kind == Set {
			out = append(out, op)
		}
	}
	return out
}

// CheckStore decides whether ops are linearizable for the znode store. It
// has no time limit, so it never answers porcupine.Unknown.
func CheckStore(ops []Operation) (porcupine.CheckResult, porcupine.LinearizationInfo) {
	return Linearize(StoreModel, ops)
}

// Visualize writes porcupine's HTML visualization of a store check.
func Visualize(info porcupine.LinearizationInfo, w io.Writer) error {
	return porcupine.Visualize(StoreModel.Porcupine(), info, w)
}
