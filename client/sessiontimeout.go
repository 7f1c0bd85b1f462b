package client

import "time"

// DefaultSessionTimeout is the session timeout a client asks for when its
// run names none: 10s, a common choice of ZooKeeper clients (kazoo's
// default). Both worlds' sessions ask for it, the fault generator draws
// its session-shaped faults around it and the checks derive their bounds
// from it, so that they agree on one run.
const DefaultSessionTimeout = 10 * time.Second
