// Package live is the real world: an adapter from go-zookeeper/zk to
// client.Conn, a launcher for a local ensemble of Debian's zookeeper package
// on 127.0.0.1, and live fault injection.
//
// It is empty in this version; the live-world issue fills it. It must never
// talk to anything but loopback, and must stop every server it starts.
package live
