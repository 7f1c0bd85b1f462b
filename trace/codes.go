package trace

import (
	"fmt"

	"github.com/go-zookeeper/zk"
)

// Error codes as ZooKeeper numbers them: what a reply or an apply carries
// (Record.Code). The simulator speaks codes inside the world and turns
// them into go-zookeeper's error values at the client (CodeError); a
// trace prints them by those values' text.
const (
	CodeOK                     int32 = 0
	CodeRuntimeInconsistency   int32 = -2
	CodeConnectionLoss         int32 = -4
	CodeMarshallingError       int32 = -5
	CodeUnimplemented          int32 = -6
	CodeBadArguments           int32 = -8
	CodeNoNode                 int32 = -101
	CodeNoAuth                 int32 = -102
	CodeBadVersion             int32 = -103
	CodeNoChildrenForEphemeral int32 = -108
	CodeNodeExists             int32 = -110
	CodeNotEmpty               int32 = -111
	CodeSessionExpired         int32 = -112
	CodeInvalidACL             int32 = -114
	CodeAuthFailed             int32 = -115
	CodeSessionMoved           int32 = -118
	CodeNoWatcher              int32 = -121
	CodeInvalidFlags           int32 = -1000 // client side only
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
