package workload

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/models"
)

// OpenACL is the ACL the workloads create their nodes with: anyone may do anything.
var OpenACL = zk.WorldACL(zk.PermAll)

// StoreClient is client i of the store workload: it creates, deletes,
// writes and reads keys persistent nodes under /store (/store/k0 ...),
// ops times, pausing a little between operations, each decision drawn from
// seed; every operation is recorded into h with what the client saw
// (models.Recorder: a call that failed with its error). Errors a client
// must expect under faults are not fatal.
func StoreClient(i int, seed uint64, keys, ops int, h *models.History) Body {
	r := rand.New(rand.NewPCG(seed, uint64(i)))
	return func(ctx context.Context, conn client.Conn) error {
		rec := &models.Recorder{Conn: conn, Client: i, H: h, Origin: client.Epoch}
		if err := Ensure(ctx, conn, "/store"); err != nil {
			return err
		}
		version := int32(-1)
		for k := 0; k < ops; k++ {
			key := fmt.Sprintf("/store/k%d", r.IntN(keys))
			v := version
			if r.IntN(2) == 0 {
				v = -1
			}
			data := []byte(fmt.Sprintf("c%d-%d", i+1, k))
			var err error
			switch r.IntN(6) {
			case 0:
				_, err = rec.Create(ctx, key, data, 0, OpenACL)
			case 1:
				err = rec.Delete(ctx, key, v)
			case 2, 3:
				var st *zk.Stat
				if st, err = rec.Set(ctx, key, data, v); err == nil {
					version = st.Version
				}
			case 4:
				var st *zk.Stat
				if _, st, err = rec.Get(ctx, key); err == nil {
					version = st.Version
				}
			case 5:
				_, _, err = rec.Exists(ctx, key)
			}
			if !expected(err) {
				return fmt.Errorf("%s: %w", key, err)
			}
			if err := conn.Sleep(ctx, time.Duration(r.IntN(50))*time.Millisecond); err != nil {
				return err
			}
		}
		return nil
	}
}

// Ensure creates path if it is missing, through whatever the faults do.
func Ensure(ctx context.Context, c client.Conn, path string) error {
	for {
		_, err := c.Create(ctx, path, nil, 0, OpenACL)
		if err == nil || errors.Is(err, zk.ErrNodeExists) {
			return nil
		}
		if !expected(err) {
			return err
		}
		if err := c.Sleep(ctx, 10*time.Millisecond); err != nil {
			return err
		}
	}
}

// expected reports whether err is one a client must expect from a store
// operation, faults included.
func expected(err error) bool {
	if err == nil {
		return true
	}
	for _, e := range []error{zk.ErrNoNode, zk.ErrNodeExists, zk.ErrNotEmpty, zk.ErrBadVersion,
		zk.ErrConnectionClosed, zk.ErrNoServer, zk.ErrSessionExpired, zk.ErrSessionMoved} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
