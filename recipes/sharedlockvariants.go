package recipes

import "github.com/zksim/zksim/client"

// The shared lock's teaching variants.

func init() {
	register(Variant{Name: "shared-lock-readers-queue", Kind: "shared-lock", Fails: "liveness",
		Impl: Implementation{SharedLocker: func(c client.Conn, p string) SharedLocker {
			return NewReadersQueueSharedLock(c, p)
		}},
		Lesson: "A reader waits for the next lower node of any kind, as a writer does, instead of the next " +
			"lower write- node. Nothing breaks, but every reader waits for the reader before it to finish: " +
			"readers never hold the lock together, and a reader waits needlessly while the lock could be " +
			"shared. The recipe has a reader wait only for the writer before it."})
	register(Variant{Name: "shared-lock-writer-ignores-readers", Kind: "shared-lock", Fails: "safety",
		Impl: Implementation{SharedLocker: func(c client.Conn, p string) SharedLocker {
			return NewWriterIgnoresReadersSharedLock(c, p)
		}},
		Lesson: "A writer looks only at the write- nodes below its own, as a reader does. A reader that came " +
			"first and still holds the lock is ignored, so a writer and a reader hold it at once. The recipe " +
			"has a writer wait until no node at all, reader's or writer's, is lower than its own."})
}

// NewReadersQueueSharedLock is the shared-lock-readers-queue teaching
// variant: its readers wait for every lower node.
func NewReadersQueueSharedLock(conn client.Conn, dir string) *SharedLock {
	l := NewSharedLock(conn, dir)
	l.readerWaitsForAll = true
	return l
}

// NewWriterIgnoresReadersSharedLock is the
// shared-lock-writer-ignores-readers teaching variant: its writers wait
// only for lower write- nodes.
func NewWriterIgnoresReadersSharedLock(conn client.Conn, dir string) *SharedLock {
	l := NewSharedLock(conn, dir)
	l.writerIgnoresReaders = true
	return l
}
