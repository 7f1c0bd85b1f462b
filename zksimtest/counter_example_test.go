package zksimtest_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/zksimtest"
)

// retryCounter is a user's counter written the way kazoo's Counter is: read
// the value and its version, set value+delta at that version, and on
// BadVersion or a connection loss do it all again. A connection loss after
// the set was applied makes it add twice.
type retryCounter struct {
	conn client.Conn
	path string
}

func (c *retryCounter) Add(ctx context.Context, delta int64) (int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		data, st, err := c.conn.Get(ctx, c.path)
		switch {
		case errors.Is(err, zk.ErrNoNode):
			v := delta
			if _, err := c.conn.Create(ctx, c.path, []byte(strconv.FormatInt(v, 10)), 0, zk.WorldACL(zk.PermAll)); err == nil {
				return v, nil
			} else if errors.Is(err, zk.ErrNoNode) {
				_, _ = c.conn.Create(ctx, c.path[:strings.LastIndexByte(c.path, '/')], nil, 0, zk.WorldACL(zk.PermAll))
			}
			continue
		case err != nil:
			continue // ConnectionLoss and the like: a retry
		}
		v, _ := strconv.ParseInt(string(data), 10, 64)
		v += delta
		if _, err := c.conn.Set(ctx, c.path, []byte(strconv.FormatInt(v, 10)), st.Version); err == nil {
			return v, nil
		}
		// BadVersion, or ConnectionLoss (applied or not): again.
	}
}

func (c *retryCounter) Get(ctx context.Context) (int64, error) {
	for {
		if _, err := c.conn.Sync(ctx, c.path); err != nil {
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			continue
		}
		data, _, err := c.conn.Get(ctx, c.path)
		switch {
		case errors.Is(err, zk.ErrNoNode):
			return 0, nil
		case err != nil:
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			continue
		}
		return strconv.ParseInt(string(data), 10, 64)
	}
}

// The recipe's counter holds under zksimtest's default faults.
func TestCounterRecipe(t *testing.T) {
	zksimtest.Counter(t, func(conn client.Conn, path, name string) recipes.Counter {
		return recipes.NewCounter(conn, path, name)
	}, zksimtest.Options{Seeds: 100})
}

// The user's retrying counter is caught adding an increment twice after a
// lost reply, with the defaults.
func TestRetryingCounterIsCaught(t *testing.T) {
	msg := run("TestRetryingCounter", func(ft testing.TB) {
		zksimtest.Counter(ft, func(conn client.Conn, path, name string) recipes.Counter {
			return &retryCounter{conn: conn, path: path}
		}, zksimtest.Options{NoShrink: true})
	})
	if !strings.Contains(msg, "counter (safety) on /zksim/counter") || !strings.Contains(msg, "applied twice") {
		t.Fatalf("a counter that increments again after a lost reply was not caught:\n%.1500s", msg)
	}
}
