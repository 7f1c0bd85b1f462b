package workload

import (
	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/recipes"
)

// Implementation is the code under test: how a client gets its handle on
// the recipe. A scenario uses the constructor of its kind and ignores the
// others, so a user who brings their own lock sets Locker alone.
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
	Locker       func(conn client.Conn, path string) recipes.Locker
	SharedLocker func(conn client.Conn, path string) recipes.SharedLocker
	// RevocableLocker serves the revoker too (Holders, Revoke).
	RevocableLocker func(conn client.Conn, path string) recipes.RevocableLocker
	Elector         func(conn client.Conn, path, name string) recipes.Elector
	// Semaphore is given the semaphore's node and its max (the workload's
	// Size); the checks judge the lease nodes under
	// recipes.SemaphoreLeases(path), where a semaphore of one's own keeps
	// its leases too if the herd check is to see its releases.
	Semaphore     func(conn client.Conn, path string, max int) recipes.Semaphore
	Barrier       func(conn client.Conn, path string) recipes.Barrier
	DoubleBarrier func(conn client.Conn, path, name string, size int) recipes.DoubleBarrier
	Queue         func(conn client.Conn, path string) recipes.Queue
	PriorityQueue func(conn client.Conn, path string) recipes.PriorityQueue
	Coordinator   func(conn client.Conn, path string) recipes.Coordinator
	Site          func(conn client.Conn, path, name string) recipes.Site
	Membership    func(conn client.Conn, path, name string) recipes.Membership
	ConfigWriter  func(conn client.Conn, path string) recipes.ConfigWriter
	ConfigReader  func(conn client.Conn, path string) recipes.ConfigReader
	NameService   func(conn client.Conn, path string) recipes.NameService
	// Counter is given the client's name: a writer's name, unique among
	// the counter's writers.
	Counter func(conn client.Conn, path, name string) recipes.Counter
}
