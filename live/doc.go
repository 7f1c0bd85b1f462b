// Package live is the real world, of equal rank with the simulator
// (package sim): a session with a live ZooKeeper ensemble through
// go-zookeeper/zk implementing client.Conn, so that the recipes run
// unchanged against the real server; a World that runs a scenario's client
// processes one at a time between their blocking calls, as the simulator
// does, and strikes the faults of package fault for real (in each client's
// dialer, on the links between servers, on the server processes); and a
// local ensemble on 127.0.0.1 built from Debian's zookeeper package,
// started in a temporary directory on free ports, which never outlives the
// command or test that started it.
//
// It uses the wall clock and goroutines, as a real client does. It must
// never talk to anything but 127.0.0.1 unless given other servers, signal
// a process it did not start (it signals by PID only its own), or import
// package sim or anything above it: what it shares with the simulator is
// in client and fault.
//
// Its files are listed in docs/ARCHITECTURE.md.
package live
