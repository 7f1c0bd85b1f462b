// Package differential is differential testing: the same random program of
// operations, by one or several clients in a fixed interleaving, runs in
// the simulator and on a live ensemble, and what each call answered is
// compared field by field: the result or the error, the path a create
// returned (sequence numbers included), the data (nil and empty told
// apart), every Stat field (zxids and session ids by what they refer to,
// see compare.go), the children (as a set), a session's ephemeral nodes
// (in getEphemerals' order, the server's), a multi's result per op, and
// the watch events each client received. A difference is a simulator bug, or a
// deliberate difference documented in docs/fidelity.md and pinned by a
// test.
//
// program.go is the program; run.go runs it in either world; compare.go
// renders and compares the answers. The tests run the programs in the
// simulator and, with go-zk, through zksim serve's front end, each against
// a live ensemble. The package must never change what
// either world does to make them agree: a fix belongs in the simulator.
//
// The files are listed in docs/ARCHITECTURE.md.
package differential
