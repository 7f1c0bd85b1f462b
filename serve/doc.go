// Package serve is the door real clients come through: ZooKeeper's wire
// protocol in front of the simulated ensemble. Each simulated server gets
// a listener (a 127.0.0.1 port, or in-memory connections for go-zk code
// run inside a testing/synctest bubble); every frame a client sends is
// decoded (package jute) and handed to the world as a sim.Call of an
// outside client (sim.Outside), at the virtual time it arrived; what the
// servers answer is encoded and written back. Virtual time is paced by the
// clock: the world is run up to "now" as real time passes, so a real
// client's timeouts and the simulated servers' agree.
//
// The pacing loop is written against the standard clock (time.Now,
// timers) and net.Conn, so the same code runs in real time on a host and
// in virtual time inside a synctest bubble. One goroutine owns the world;
// each connection has a reader and a writer of its own, which talk to it
// through channels. The tape keeps every frame in and out with its virtual
// time and connection: replaying it makes the same calls at the same
// virtual times, which rebuilds the server side exactly (the same trace
// hash), without any client.
//
// What it must never do: touch the world from any goroutine but the
// loop's, listen anywhere but 127.0.0.1, or let one client's bad frame
// disturb another's session (a malformed, truncated or oversized frame
// closes that connection only, as ZooKeeper does).
//
// Its files, one concept each, are listed in docs/ARCHITECTURE.md.
package serve
