package recipes

import (
	"context"
	"errors"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// The shared counter's teaching variants: each the increment of a real
// library, keeping only the value in the node (no writer's entries).

func init() {
	register(Variant{Name: "counter-blind-set", Kind: "counter", Fails: "safety",
		Impl: Implementation{Counter: func(c client.Conn, p, name string) Counter {
			return NewBlindSetCounter(c, p, name)
		}},
		Lesson: "It reads the value and writes value+delta with setData() at version -1, whatever the node's version " +
			"is now, as Curator's SharedValue.setValue and DistributedAtomicValue.forceSet do. Two clients that read " +
			"the same value both write value+1: one increment is lost, with no fault at all. The recipe sets at the " +
			"version it read, and reads again when another write came in between (BadVersion)."})
	register(Variant{Name: "counter-retry-blind", Kind: "counter", Fails: "safety",
		Impl: Implementation{Counter: func(c client.Conn, p, name string) Counter {
			return NewRetryBlindCounter(c, p, name)
		}},
		Lesson: "When its setData() fails with a connection loss it reads the value again and increments it again, " +
			"as kazoo's Counter (ConnectionLoss is a retry) and Curator's DistributedAtomicLong (its RetryLoop resends, " +
			"BadVersion, read again) do. But the lost setData() may have been applied: the value read already holds " +
			"the increment, and it is applied twice. The recipe's writes name themselves (each writer's last " +
			"sequence number, in the node), so that after a connection loss it reads whether its own was applied."})
	register(Variant{Name: "counter-idempotent-by-value", Kind: "counter", Fails: "safety",
		Impl: Implementation{Counter: func(c client.Conn, p, name string) Counter {
			return NewIdempotentByValueCounter(c, p, name)
		}},
		Lesson: "After a connection loss it sends its setData() again at the same version; when that says BadVersion " +
			"and the node holds the value it was writing at the next version, it takes the write for its own, as " +
			"Curator's idempotent() setData does. But another client that read the same value and added the same " +
			"delta writes the same bytes: its write is taken for ours, which was never applied, and an increment is " +
			"lost. What a write wrote does not say who wrote it: the recipe's writes carry the writer's name and " +
			"sequence number."})
}

// NewBlindSetCounter returns the counter-blind-set teaching variant: a
// counter that writes without a version.
func NewBlindSetCounter(conn client.Conn, path, name string) *SharedCounter {
	c := NewCounter(conn, path, name)
	c.mistake = counterBlindSet
	return c
}

// NewRetryBlindCounter returns the counter-retry-blind teaching variant: a
// counter that increments again after a connection loss.
func NewRetryBlindCounter(conn client.Conn, path, name string) *SharedCounter {
	c := NewCounter(conn, path, name)
	c.mistake = counterRetryBlind
	return c
}

// NewIdempotentByValueCounter returns the counter-idempotent-by-value
// teaching variant: a counter that takes a value like the one it wrote,
// at the next version, for its own write.
func NewIdempotentByValueCounter(conn client.Conn, path, name string) *SharedCounter {
	c := NewCounter(conn, path, name)
	c.mistake = counterByValueOnce
	return c
}

// addMistaken is the variants' Add: the read-version-set loop of
// SharedCounter, its value alone in the node, and the variant's mistake.
func (c *SharedCounter) addMistaken(ctx context.Context, delta int64) (int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		cur, st, exists, err := c.read(ctx)
		if err != nil {
			return 0, err
		}
		value := cur.value + delta
		data := counterState{value: value}.bytes()
		version := int32(-1) // the blind set's
		if exists && c.mistake != counterBlindSet {
			version = st.Version
		}
		unsure := false // a write was sent whose reply was lost
		for {
			if !exists {
				_, err = c.conn.Create(ctx, c.path, data, zk.FlagPersistent, c.acl)
			} else {
				_, err = c.conn.Set(ctx, c.path, data, version)
			}
			switch {
			case err == nil:
				return value, nil
			case (transient(err) || expired(err)) && c.mistake == counterRetryBlind:
				// The mistake: read and increment again, though the lost
				// write may have been applied.
			case transient(err), expired(err):
				if ctx.Err() != nil {
					return 0, err
				}
				unsure = true
				continue // a retry loop sends the same write again
			case c.mistake == counterByValueOnce && unsure &&
				(errors.Is(err, zk.ErrBadVersion) || errors.Is(err, zk.ErrNodeExists)):
				// The mistake: the value we were writing, at the next
				// version, is taken for our write.
				now, st2, there, err := c.read(ctx)
				if err != nil {
					return 0, err
				}
				next := int32(0)
				if exists {
					next = version + 1
				}
				if there && now.value == value && st2.Version == next {
					return value, nil
				}
			case errors.Is(err, zk.ErrBadVersion), errors.Is(err, zk.ErrNodeExists):
			case errors.Is(err, zk.ErrNoNode):
				if !exists {
					if err := ensureParent(ctx, c.conn, c.path); err != nil {
						return 0, err
					}
				}
			default:
				return 0, err
			}
			break // read again
		}
	}
}
