package trace

import (
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/jute"
)

// Error codes as ZooKeeper numbers them: what a reply or an apply carries
// (Record.Code). The simulator speaks codes inside the world and turns
// them into go-zookeeper's error values at the client (CodeError); a
// trace prints them by those values' text. The numbers are the wire's
// (package jute): here they are the int32 a record carries.
const (
	CodeOK                           = int32(jute.CodeOK)
	CodeRuntimeInconsistency         = int32(jute.CodeRuntimeInconsistency)
	CodeConnectionLoss               = int32(jute.CodeConnectionLoss)
	CodeMarshallingError             = int32(jute.CodeMarshallingError)
	CodeUnimplemented                = int32(jute.CodeUnimplemented)
	CodeBadArguments                 = int32(jute.CodeBadArguments)
	CodeNoNode                       = int32(jute.CodeNoNode)
	CodeNoAuth                       = int32(jute.CodeNoAuth)
	CodeBadVersion                   = int32(jute.CodeBadVersion)
	CodeNoChildrenForEphemeral       = int32(jute.CodeNoChildrenForEphemerals)
	CodeNodeExists                   = int32(jute.CodeNodeExists)
	CodeNotEmpty                     = int32(jute.CodeNotEmpty)
	CodeSessionExpired               = int32(jute.CodeSessionExpired)
	CodeInvalidACL                   = int32(jute.CodeInvalidACL)
	CodeAuthFailed                   = int32(jute.CodeAuthFailed)
	CodeSessionMoved                 = int32(jute.CodeSessionMoved)
	CodeNoWatcher                    = int32(jute.CodeNoWatcher)
	CodeInvalidFlags           int32 = -1000 // client side only: go-zk's, no server sends it
	CodeInvalidPath            int32 = -1001 // client side only
)

var codeErrors = map[int32]error{
	CodeConnectionLoss:         zk.ErrConnectionClosed,
	CodeBadArguments:           zk.ErrBadArguments,
	CodeNoNode:                 zk.ErrNoNode,
	CodeNoAuth:                 zk.ErrNoAuth,
	CodeBadVersion:             zk.ErrBadVersion,
	CodeNoChildrenForEphemeral: zk.ErrNoChildrenForEphemerals,
	CodeNodeExists:             zk.ErrNodeExists,
	CodeNotEmpty:               zk.ErrNotEmpty,
	CodeSessionExpired:         zk.ErrSessionExpired,
	CodeInvalidACL:             zk.ErrInvalidACL,
	CodeAuthFailed:             zk.ErrAuthFailed,
	CodeSessionMoved:           zk.ErrSessionMoved,
	CodeInvalidFlags:           zk.ErrInvalidFlags,
	CodeInvalidPath:            zk.ErrInvalidPath,
}

// CodeError is the error go-zookeeper/zk returns for a code (nil for
// CodeOK): what the simulator's client returns for a server's reply, and
// what a reader of a trace makes of a reply's code. Codes it has no value
// for (a multi's runtime inconsistency, -2) become the plain "unknown
// error: N" that library makes of them.
func CodeError(code int32) error {
	if code == CodeOK {
		return nil
	}
	if err, ok := codeErrors[code]; ok {
		return err
	}
	return fmt.Errorf("unknown error: %d", code)
}

// codeText is a code as a record's text says it.
func codeText(c int32) string {
	if c == CodeOK {
		return "ok"
	}
	if c == CodeRuntimeInconsistency {
		return "runtime inconsistency"
	}
	if err, ok := codeErrors[c]; ok {
		return err.Error()
	}
	return "error"
}

func eventTypeName(t int64) string { return zk.EventType(t).String() }

func stateName(s int64) string { return zk.State(s).String() }
