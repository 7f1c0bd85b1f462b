package models

// TrafficKind says what a traffic record counts.
type TrafficKind string

// The kinds of traffic.
const (
	// Applied: a server applied a transaction (Zxid, Op, Path; Session
	// whose request it was).
	Applied TrafficKind = "applied"
	// Notified: a server sent a watch event (Event, Path) to a client.
	// Zxid is the transaction whose application fired it, 0 when none did
	// (a watch re-registered on reconnect that fired at once).
	Notified TrafficKind = "notified"
	// Sent: a client sent a request (Op, Path) to a server.
	Sent TrafficKind = "sent"
)

// Traffic is one message or transaction, as the herd metrics count them.
// It is recorded by the world a run happens in: the simulator's trace, or
// counters at both ends of a live ensemble.
type Traffic struct {
	At     int64       `json:"at"`
	Kind   TrafficKind `json:"kind"`
	Server int         `json:"server"` // 0-based
	Client int         `json:"client"` // 0-based; -1 when no client is concerned
	Zxid   int64       `json:"zxid,omitempty"`
	// Op is the request or transaction in ZooKeeper's words: create,
	// delete, setData, getData, exists, getChildren, multi, sync,
	// closeSession, ...
	Op      string `json:"op,omitempty"`
	Path    string `json:"path,omitempty"`
	Event   string `json:"event,omitempty"` // Notified: NodeCreated, NodeDeleted, NodeDataChanged, NodeChildrenChanged
	Session int64  `json:"session,omitempty"`
}
