package sim

import (
	"fmt"

	"github.com/go-zookeeper/zk"
)

// Error codes as ZooKeeper numbers them. The simulator carries codes inside
// the world and turns them into go-zookeeper's error values at the client.
const (
	codeOK                     int32 = 0
	codeRuntimeInconsistency   int32 = -2
	codeConnectionLoss         int32 = -4
	codeMarshallingError       int32 = -5
	codeUnimplemented          int32 = -6
	codeBadArguments           int32 = -8
	codeNoNode                 int32 = -101
	codeNoAuth                 int32 = -102
	codeBadVersion             int32 = -103
	codeNoChildrenForEphemeral int32 = -108
	codeNodeExists             int32 = -110
	codeNotEmpty               int32 = -111
	codeSessionExpired         int32 = -112
	codeInvalidACL             int32 = -114
	codeAuthFailed             int32 = -115
	codeSessionMoved           int32 = -118
	codeNoWatcher              int32 = -121
	codeInvalidFlags           int32 = -1000 // client side only
	codeInvalidPath            int32 = -1001 // client side only
)

var codeErrors = map[int32]error{
	codeConnectionLoss:         zk.ErrConnectionClosed,
	codeBadArguments:           zk.ErrBadArguments,
	codeNoNode:                 zk.ErrNoNode,
	codeNoAuth:                 zk.ErrNoAuth,
	codeBadVersion:             zk.ErrBadVersion,
	codeNoChildrenForEphemeral: zk.ErrNoChildrenForEphemerals,
	codeNodeExists:             zk.ErrNodeExists,
	codeNotEmpty:               zk.ErrNotEmpty,
	codeSessionExpired:         zk.ErrSessionExpired,
	codeInvalidACL:             zk.ErrInvalidACL,
	codeAuthFailed:             zk.ErrAuthFailed,
	codeSessionMoved:           zk.ErrSessionMoved,
	codeInvalidFlags:           zk.ErrInvalidFlags,
	codeInvalidPath:            zk.ErrInvalidPath,
}

// errOf turns a code into the error go-zookeeper/zk returns for it. Codes it
// has no value for (a multi's runtime inconsistency, -2) become the plain
// "unknown error: N" that library makes of them.
func errOf(code int32) error {
	if code == codeOK {
		return nil
	}
	if err, ok := codeErrors[code]; ok {
		return err
	}
	return fmt.Errorf("unknown error: %d", code)
}

func codeText(c int32) string {
	if c == codeOK {
		return "ok"
	}
	if c == codeRuntimeInconsistency {
		return "runtime inconsistency"
	}
	if err, ok := codeErrors[c]; ok {
		return err.Error()
	}
	return "error"
}

func eventTypeName(t int64) string { return zk.EventType(t).String() }

func stateName(s int64) string { return zk.State(s).String() }

// CodeError is the error go-zookeeper/zk returns for a server's code (nil
// for 0), for reports that render a trace's replies.
func CodeError(code int32) error { return errOf(code) }
