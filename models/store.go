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

// Describe renders an operation as a person reads it.
func Describe(op Operation) string {
	var s string
	switch op.Kind {
	case Create:
		s = fmt.Sprintf("create %s %q", op.Path, op.Data)
	case Delete:
		s = fmt.Sprintf("delete %s v%d", op.Path, op.Version)
	case Set:
		s = fmt.Sprintf("set %s %q v%d", op.Path, op.Data, op.Version)
	case Get, Exists:
		s = fmt.Sprintf("%s %s", op.Kind, op.Path)
		if op.Synced {
			s = "sync+" + s
		}
	}
	s += " → " + string(op.Result)
	switch {
	case op.Kind == Get && op.Result == OK:
		s += fmt.Sprintf(" %q v%d", op.OutData, op.OutVersion)
	case (op.Kind == Exists || op.Kind == Set) && op.Result == OK:
		s += fmt.Sprintf(" v%d", op.OutVersion)
	}
	return s
}

// StoreModel is the porcupine model of the znode store: each path a
// register holding whether the node exists, its data and its version,
// checked separately (a history is linearizable when every path's is).
// Inputs and outputs are both the recorded Operation.
var StoreModel = porcupine.Model{
	Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
		byPath := map[string][]porcupine.Operation{}
		var paths []string
		for _, op := range history {
			p := op.Input.(Operation).Path
			if _, ok := byPath[p]; !ok {
				paths = append(paths, p)
			}
			byPath[p] = append(byPath[p], op)
		}
		slices.Sort(paths)
		out := make([][]porcupine.Operation, 0, len(paths))
		for _, p := range paths {
			out = append(out, byPath[p])
		}
		return out
	},
	Init: func() any { return node{} },
	Step: func(state, input, _ any) (bool, any) {
		return step(state.(node), input.(Operation))
	},
	DescribeOperation: func(input, _ any) string { return Describe(input.(Operation)) },
	DescribeState:     func(state any) string { return state.(node).String() },
}

// Porcupine turns a history into porcupine's operations.
func Porcupine(ops []Operation) []porcupine.Operation {
	out := make([]porcupine.Operation, len(ops))
	for i, op := range ops {
		out[i] = porcupine.Operation{ClientId: op.Client, Input: op, Call: op.Call, Output: op, Return: op.Return}
	}
	return out
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
	return porcupine.CheckOperationsVerbose(StoreModel, Porcupine(ops), 0)
}

// Visualize writes porcupine's HTML visualization of a check.
func Visualize(info porcupine.LinearizationInfo, w io.Writer) error {
	return porcupine.Visualize(StoreModel, info, w)
}
