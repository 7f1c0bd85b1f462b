package jute

import "github.com/go-zookeeper/zk"

// ZooKeeper 3.8's error codes (KeeperException.Code), as a reply header
// and a multi's failed op carry them. go-zookeeper/zk has the type and
// keeps the numbers to itself.
const (
	CodeOK                      zk.ErrCode = 0
	CodeSystemError             zk.ErrCode = -1
	CodeRuntimeInconsistency    zk.ErrCode = -2
	CodeDataInconsistency       zk.ErrCode = -3
	CodeConnectionLoss          zk.ErrCode = -4
	CodeMarshallingError        zk.ErrCode = -5
	CodeUnimplemented           zk.ErrCode = -6
	CodeOperationTimeout        zk.ErrCode = -7
	CodeBadArguments            zk.ErrCode = -8
	CodeUnknownSession          zk.ErrCode = -12
	CodeNewConfigNoQuorum       zk.ErrCode = -13
	CodeReconfigInProgress      zk.ErrCode = -14
	CodeAPIError                zk.ErrCode = -100
	CodeNoNode                  zk.ErrCode = -101
	CodeNoAuth                  zk.ErrCode = -102
	CodeBadVersion              zk.ErrCode = -103
	CodeNoChildrenForEphemerals zk.ErrCode = -108
	CodeNodeExists              zk.ErrCode = -110
	CodeNotEmpty                zk.ErrCode = -111
	CodeSessionExpired          zk.ErrCode = -112
	CodeInvalidCallback         zk.ErrCode = -113
	CodeInvalidACL              zk.ErrCode = -114
	CodeAuthFailed              zk.ErrCode = -115
	CodeSessionMoved            zk.ErrCode = -118
	CodeNotReadOnly             zk.ErrCode = -119
	CodeEphemeralOnLocalSession zk.ErrCode = -120
	CodeNoWatcher               zk.ErrCode = -121
	CodeRequestTimeout          zk.ErrCode = -122
	CodeReconfigDisabled        zk.ErrCode = -123
	CodeSessionClosedNeedsSASL  zk.ErrCode = -124
	CodeQuotaExceeded           zk.ErrCode = -125
	CodeThrottledOp             zk.ErrCode = -127
)
