// Package recipes holds the ZooKeeper recipes ("ZooKeeper Recipes and
// Solutions"), each written once in plain blocking Go against client.Conn,
// one file each, citing the recipe steps it implements; and the teaching
// variants, deliberately broken, each registered once with the lesson it
// teaches and its constructors (variants.go lists them; implementation.go
// is the constructors' set, one per kind).
//
// kinds.go declares an interface per recipe kind (Locker, SharedLocker,
// Elector, Queue, ...), so that workloads and checks work on any
// implementation of the kind: ours, a teaching variant, or a user's own.
//
// What a recipe must never do: read the wall clock, sleep, start a
// goroutine, or wait on a raw channel or a mutex. Every blocking point goes
// through its client.Conn (a call, a Watch, Sleep, WithTimeout), so that the
// same code runs in virtual time in the simulator and in real time against
// a live ensemble. Every blocking call takes a context; when the context
// ends, the recipe removes the nodes it created for that call.
//
// Its files, a recipe each with its teaching variants beside it, are
// listed in docs/ARCHITECTURE.md.
package recipes
