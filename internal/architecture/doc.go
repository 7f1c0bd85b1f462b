// Package architecture holds no code: its tests hold the house to its
// map. docs/ARCHITECTURE.md must name every source file of every package,
// in that package's section, and nothing that is gone; every package's doc
// comment must state its contract and point to that map; and the imports
// must keep their direction (the two worlds, sim and live, import neither
// each other nor anything above them; nothing below scenarios imports
// it). A move that breaks one of these fails `make test`, never a review.
//
// It must never grow code of its own: the map is the docs', the rules are
// the tests'.
package architecture
