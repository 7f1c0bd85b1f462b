// Package models holds the checkers that judge what clients observed: the
// history of operations a run recorded (history.go) and the porcupine models
// that decide whether a history is linearizable (store.go: the znode store,
// partitioned per path).
//
// It works on histories alone, so a history recorded in the simulator, on a
// live ensemble, or by a user's own harness is checked the same way. It must
// stay deterministic: no wall clock (times come from the client's Clock), no
// global math/rand.
package models
