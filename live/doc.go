// Package live is the real world: a session with a live ZooKeeper
// ensemble through go-zookeeper/zk, implementing client.Conn (conn.go), so
// that the recipes run unchanged against the real server; and a local
// ensemble on 127.0.0.1 built from Debian's zookeeper package
// (ensemble.go), started in a temporary directory on free ports, whose
// servers can be killed and restarted, and which never outlives the
// command or test that started it.
//
// It uses the wall clock and goroutines, as a real client does; it never
// talks to anything but 127.0.0.1 unless given other servers, and it
// signals only the processes it started, by their PID.
package live
