package recipes

import "github.com/zksim/zksim/client"

// Implementation is the code under test: how a client gets its handle on
// a recipe kind's object (ours, a teaching variant, or a user's own). A
// workload uses the constructors of its kind and ignores the others, so a
// user who brings their own lock sets Locker alone.
//
// Each constructor is called once per client process, inside that
// process, with its own session; path is the object the clients share
// (the lock's directory, the queue's node, ...), name the client's own
// name where the recipe needs one.
//
// The session a constructor gets is also its session factory: an
// implementation that gives its session up, as Curator does, opens the next
// one with conn.NewSession and closes the old one with Close. Every
// session it opens belongs to the same client process (cN in schedules and
// reports), shares its network and its pauses, and is checked the same way.
type Implementation struct {
	Locker       func(conn client.Conn, path string) Locker
	SharedLocker func(conn client.Conn, path string) SharedLocker
	// RevocableLocker serves the revoker too (Holders, Revoke).
	RevocableLocker func(conn client.Conn, path string) RevocableLocker
	Elector         func(conn client.Conn, path, name string) Elector
	// Semaphore is given the semaphore's node and its max (the workload's
	// Size); the checks judge the lease nodes under
	// SemaphoreLeases(path), where a semaphore of one's own keeps
	// its leases too if the herd check is to see its releases.
	Semaphore     func(conn client.Conn, path string, max int) Semaphore
	Barrier       func(conn client.Conn, path string) Barrier
	DoubleBarrier func(conn client.Conn, path, name string, size int) DoubleBarrier
	Queue         func(conn client.Conn, path string) Queue
	PriorityQueue func(conn client.Conn, path string) PriorityQueue
	Coordinator   func(conn client.Conn, path string) Coordinator
	Site          func(conn client.Conn, path, name string) Site
	Membership    func(conn client.Conn, path, name string) Membership
	ConfigWriter  func(conn client.Conn, path string) ConfigWriter
	ConfigReader  func(conn client.Conn, path string) ConfigReader
	NameService   func(conn client.Conn, path string) NameService
	// Counter is given the client's name: a writer's name, unique among
	// the counter's writers.
	Counter func(conn client.Conn, path, name string) Counter
}
