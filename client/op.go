package client

// Op is a request type, numbered as ZooKeeper's wire protocol numbers
// them. Both worlds speak of requests by it: the simulator's server and
// trace, a fault tied to "c1 create#2", the live dialer that counts a
// client's frames by type. getChildren is the wire's getChildren2 (12):
// the listing with its Stat, which is what go-zookeeper/zk sends.
type Op int8

// The request types.
const (
	OpCreate          Op = 1
	OpDelete          Op = 2
	OpExists          Op = 3
	OpGetData         Op = 4
	OpSetData         Op = 5
	OpGetACL          Op = 6
	OpSetACL          Op = 7
	OpGetChildren     Op = 12
	OpSync            Op = 9
	OpPing            Op = 11
	OpCheck           Op = 13
	OpMulti           Op = 14
	OpCreate2         Op = 15
	OpCreateContainer Op = 19
	OpDeleteContainer Op = 20
	OpCreateTTL       Op = 21
	OpRemoveWatches   Op = 18
	OpGetEphemerals   Op = 103
	OpGetAllChildren  Op = 104 // getAllChildrenNumber
	OpAddWatch        Op = 106
	OpSetAuth         Op = 100
	OpSetWatches      Op = 101
	OpCreateSession   Op = -10
	OpCloseSession    Op = -11
)

var opNames = map[Op]string{
	OpCreate: "create", OpCreate2: "create2", OpDelete: "delete", OpExists: "exists", OpGetData: "getData",
	OpSetData: "setData", OpGetACL: "getACL", OpSetACL: "setACL", OpSetAuth: "setAuth", OpGetChildren: "getChildren", OpSync: "sync", OpPing: "ping",
	OpCheck: "check", OpMulti: "multi", OpCreateContainer: "createContainer", OpDeleteContainer: "deleteContainer",
	OpCreateTTL: "createTTL", OpAddWatch: "addWatch", OpRemoveWatches: "removeWatches", OpSetWatches: "setWatches", OpCreateSession: "createSession",
	OpCloseSession: "closeSession", OpGetEphemerals: "getEphemerals", OpGetAllChildren: "getAllChildrenNumber",
}

// opStrings are opNames by an Op's byte: the herd metrics name every
// request of a run, and an array is read faster than a map.
var opStrings = func() (a [256]string) {
	for o, name := range opNames {
		a[uint8(o)] = name
	}
	return a
}()

// String is the request type's name ("create", "getChildren"), or "op?".
func (o Op) String() string {
	if s := opStrings[uint8(o)]; s != "" {
		return s
	}
	return "op?"
}

// OpNamed is the request type named name, as String prints it.
func OpNamed(name string) (Op, bool) {
	for op, n := range opNames {
		if n == name {
			return op, true
		}
	}
	return 0, false
}
