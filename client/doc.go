// Package client is the recipes' view of a ZooKeeper session: the Conn
// interface every recipe is written against, the Watch a watching read
// returns, the request types both worlds name requests by (Op), and the
// instant both worlds' clocks start from (Epoch).
//
// It speaks go-zookeeper/zk's vocabulary on purpose. Stats are *zk.Stat, events
// are zk.Event, create modes are zk.FlagEphemeral and zk.FlagSequence, and
// errors are zk's values, so errors.Is(err, zk.ErrNoNode) means the same in the
// simulator (package sim) and against a live ensemble (package live).
//
// Every blocking point of a recipe goes through this interface: each call,
// each wait on a Watch, each sleep and each deadline. That is what lets one
// recipe run unchanged in virtual time under the simulator and in real time
// against a real server. A recipe must therefore never use time.Sleep,
// time.After, context.WithTimeout or raw channels to wait; it asks the Conn.
// A recipe that runs work beside its caller (a listener, a callback
// dispatcher, as real libraries do on threads of their own) starts it with
// the Conn's Go, and its tasks coordinate by the Conn's mutexes and events
// and by Mailboxes, never by goroutines, channels or package sync (see
// Process). In the simulator the Go primitives that block (a channel receive or send,
// a select, a sync.Mutex, RWMutex, WaitGroup or Cond, time.Sleep, a loop
// that never calls the Conn) wait outside the scheduler: virtual time
// stands still, no other client runs, and the run cannot repeat. The
// simulator notices a client that waits so (a time.Sleep of 10ms or more
// at one of its first sleeps, though each would return; a channel, a
// select or a mutex once a run's waits on them add up to
// sim.Config.WaitTimeout, 100ms of real time) or keeps control for long
// in any way (sim.Config.StallTimeout, 5s: a loop), and ends the run with a
// StallError that says which of these the client was doing, where in its
// code, and what to use instead ("it waits on a Go channel (chan receive)
// in app.(*Lock).Acquire (lock.go:42)").
//
// The session's lifecycle is the recipe's to handle, as it is in real
// libraries: a Conn closes (Close), opens another session for the same
// process (NewSession, the factory a library uses when it gives a session
// up), reports its states and their changes (State, SessionEvents), and
// waits for the first of several watches, session events and timers
// (Select, NewTimer). A recipe that must react to "my watch fired or my
// session changed" writes one Select, and it runs deterministically in the
// simulator and as a plain select against a live ensemble. Several tasks of
// one process (Process.Go) share its sessions; the simulator interleaves
// them by the run's seed at every call and every wait, so the races between
// a library's listener and its caller are searched, replayed and shrunk.
//
// It holds the vocabulary both worlds share (the interface, the request
// types, the clock origin and a run's time as text, the default session
// timeout) and, written on the interface alone, the pieces a library
// builds its tasks from (Mailbox, Callbacks); no world's behaviour: it
// must never import another package of zksim.
//
// Its files are listed in docs/ARCHITECTURE.md.
package client
