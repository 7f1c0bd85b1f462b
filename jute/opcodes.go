package jute

import (
	"strconv"

	"github.com/zksim/zksim/client"
)

// The opcodes of ZooKeeper 3.8's client protocol that client.Op does not
// name: client.Op is the vocabulary of the requests both worlds model, and
// its names are the fault schedule's ("c1 create#2"), so the requests only
// the wire knows of are named here, as client.Ops all the same.
const (
	// OpNotification is a watch notification's type (its xid is -1).
	OpNotification client.Op = 0
	// OpError is the type of a multi's result for an op that failed.
	OpError client.Op = -1
	// OpGetChildrenV1 is the first getChildren, without the Stat
	// (client.OpGetChildren is getChildren2).
	OpGetChildrenV1 client.Op = 8
	// OpReconfig changes the ensemble's membership; ZooKeeper 3.8 refuses
	// it unless reconfigEnabled (ReconfigDisabled), and then to all but a
	// superuser.
	OpReconfig     client.Op = 16
	OpCheckWatches client.Op = 17
	OpMultiRead    client.Op = 22
	// OpSASL carries a SASL token.
	OpSASL        client.Op = 102
	OpSetWatches2 client.Op = 105
	OpWhoAmI      client.Op = 107
)

// The xids the server gives frames that answer no numbered request.
const (
	XidNotification int32 = -1 // a watch notification (WatcherEvent)
	XidPing         int32 = -2 // a ping and its answer
	XidAuth         int32 = -4 // the Java client's addAuth and its answer
	XidSetWatches   int32 = -8 // the Java client's setWatches and its answer
)

// moreNames are the names of the opcodes named here, as ZooKeeper's
// Request.op2String has them.
var moreNames = map[client.Op]string{
	OpNotification: "notification", OpError: "error", OpGetChildrenV1: "getChildren1", OpReconfig: "reconfig",
	OpCheckWatches: "checkWatches", OpMultiRead: "multiRead", OpSASL: "sasl", OpSetWatches2: "setWatches2",
	OpWhoAmI: "whoAmI",
}

// OpName is op's name: client.Op's, else the wire's (getChildren1 is
// the first getChildren, opcode 8), else its number.
func OpName(op client.Op) string {
	if s := op.String(); s != "op?" {
		return s
	}
	if s, ok := moreNames[op]; ok {
		return s
	}
	return strconv.Itoa(int(op))
}
