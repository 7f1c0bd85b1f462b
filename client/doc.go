// Package client is the recipes' view of a ZooKeeper session: the Conn
// interface every recipe is written against, and the Watch a watching read
// returns.
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
//
// This package defines interfaces only. It must never import sim or live.
package client
