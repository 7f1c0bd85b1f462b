package recipes

import "github.com/zksim/zksim/client"

// The configuration's teaching variants.

func init() {
	register(Variant{Name: "config-read-once", Kind: "config", Fails: "liveness",
		Impl: Implementation{ConfigWriter: newConfigWriter,
			ConfigReader: func(c client.Conn, p string) ConfigReader { return NewReadOnceConfigWatcher(c, p) }},
		Lesson: "It reads the configuration once, with getData() and no watch, and never hears of a change: " +
			"it runs on the first configuration forever. ZooKeeper tells a client of a change only if it " +
			"asked to be told, with a watch; the recipe reads with a watch, and reads again (with a new " +
			"watch) whenever it fires."})
	register(Variant{Name: "config-oneshot-watch", Kind: "config", Fails: "liveness",
		Impl: Implementation{ConfigWriter: newConfigWriter,
			ConfigReader: func(c client.Conn, p string) ConfigReader { return NewOneshotConfigWatcher(c, p) }},
		Lesson: "It sets a watch on its first read, and reads again without one when it fires: it sees the " +
			"first change and none after. A watch is a one-time trigger; the recipe sets a new watch with " +
			"every read, so that the change after the one it just saw fires it again."})
}

// newConfigWriter is the recipe's writer, which the configuration's
// variants keep: their mistakes are their readers'.
func newConfigWriter(conn client.Conn, path string) ConfigWriter { return NewConfigNode(conn, path) }

// NewReadOnceConfigWatcher returns the config-read-once teaching variant:
// a reader that reads without a watch, once.
func NewReadOnceConfigWatcher(conn client.Conn, path string) *ConfigWatcher {
	r := NewConfigWatcher(conn, path)
	r.mistakes.readOnce = true
	return r
}

// NewOneshotConfigWatcher returns the config-oneshot-watch teaching
// variant: a reader that sets a watch on its first read only.
func NewOneshotConfigWatcher(conn client.Conn, path string) *ConfigWatcher {
	r := NewConfigWatcher(conn, path)
	r.mistakes.watchOnce = true
	return r
}
