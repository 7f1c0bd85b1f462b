// Package jute is ZooKeeper 3.8's client protocol: its records (Go structs
// that write and read themselves in jute's binary archive: big-endian int
// and long, a bool as one byte, a buffer or a string as its int length
// and its bytes, -1 for null, a vector as its int count and its
// elements), its frames (a 4-byte big-endian length, then the record),
// and the codec that reads a frame by what it must be: a connect, a
// request by its header's opcode, a reply by the opcode of the request it
// answers, a notification. Both worlds use it: the live world to see and
// rewrite what go-zookeeper/zk sends and receives, the simulator to size
// a request as the server does, and a front end that serves the protocol
// to real clients from the simulated ensemble.
//
// Its vocabulary is go-zookeeper/zk's and client's: a Stat is zk.Stat, an
// ACL zk.ACL, an error code zk.ErrCode (the numbers are Code*), an opcode
// client.Op (the opcodes client does not name are Op* here).
//
// It must never do I/O beyond reading or writing one frame on the
// io.Reader or io.Writer it is given, never start a goroutine or keep
// state between calls, and never panic on its input: every length is
// checked against what is left of the frame before anything of that size
// is made, and a malformed frame is an error (ErrMalformed, ErrUnknownOp,
// ErrFrameTooLarge). FuzzDecodeRequest, FuzzDecodeReply,
// FuzzDecodeConnect and FuzzReadFrame hold it to that (make fuzz).
//
// What a real ZooKeeper 3.8 server (Debian's 3.8.0, a member of an
// ensemble, reconfigEnabled off) answers to what it refuses, recorded in
// testdata/frames.txt, and what a front end is to answer the same way:
//
//   - reconfig (16): CodeReconfigDisabled, the connection kept.
//   - a SASL token (102), no SASL configured: CodeOK, zxid 0, with a null
//     token; the connection kept.
//   - an opcode it does not know (99; 1000): CodeUnimplemented with the
//     request's xid and zxid -1, then the connection closed (the session
//     lives on).
//   - a frame longer than jute.maxbuffer (MaxBuffer), or a request header
//     cut short: the connection closed, no answer.
//   - a request whose body is malformed (cut short, a negative length, a
//     multi cut off, a watcher type that is none): CodeMarshallingError,
//     the connection kept; a malformed write still uses up a zxid.
//   - addAuth of a scheme it does not know: CodeAuthFailed (zxid 0), then
//     the connection closed.
//   - a connect resuming a live session with a wrong password: the
//     session's own connection closed first (its client reconnects; the
//     session lives on), then the answer TimeOut 0, SessionID 0, a
//     password of 16 zero bytes, and the connection closed. An unknown or
//     expired session is answered so too.
//   - a connect from a client that has seen a zxid beyond the server's:
//     the connection closed, no answer.
//   - check (13) outside a multi: no answer ever (the server fails to
//     write one, a null Stat), the connection kept.
//
// And what it answers otherwise that a client might not expect: a multi
// that failed has CodeOK in its header, every result an ErrorResponse (the
// op that failed its code, those before CodeOK, those after
// CodeRuntimeInconsistency); a create2 in a multi is answered as a
// create (the path alone); addWatch's answer is an ErrorResponse of
// CodeOK; go-zookeeper/zk's addAuth has an ordinary xid, and its answer
// zxid 0; a closeSession is answered, then the connection closed.
//
// Its files are listed in docs/ARCHITECTURE.md.
package jute
