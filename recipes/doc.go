// Package recipes holds the ZooKeeper recipes, each written once against
// client.Conn, and the deliberately broken teaching variants.
//
// It is empty in this version; the recipes issue fills it. A recipe must
// never read the wall clock, sleep, or wait on a raw channel: every blocking
// point goes through its client.Conn.
package recipes
