package scenarios

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/sim"
)

var openACL = zk.WorldACL(zk.PermAll)

// StoreConfig describes a run of the store workload.
type StoreConfig struct {
	Seed    uint64
	Servers int // default 3
	Clients int // default 3
	Keys    int // default 3: /store/k0 ...
	Ops     int // per client, default 30
	// Faults strike during the run (none by default).
	Faults fault.Schedule
	// KeepTrace keeps the run's trace for printing.
	KeepTrace bool
}

// StoreRun is what a run of the store workload gives.
type StoreRun struct {
	World   *sim.World
	Result  sim.Result
	History []models.Operation
}

// RunStore runs the store workload: clients create, delete, write and read
// a few persistent nodes under /store, pausing a little between
// operations, each decision drawn from the seed; every operation is
// recorded with what the client saw. Errors a client must expect under
// faults are recorded (or, for a read with no answer, dropped), not fatal.
func RunStore(cfg StoreConfig) (*StoreRun, error) {
	if cfg.Clients == 0 {
		cfg.Clients = 3
	}
	if cfg.Keys == 0 {
		cfg.Keys = 3
	}
	if cfg.Ops == 0 {
		cfg.Ops = 30
	}
	w, err := sim.New(sim.Config{Seed: cfg.Seed, Servers: cfg.Servers, KeepTrace: cfg.KeepTrace})
	if err != nil {
		return nil, err
	}
	h := &models.History{}
	for i := 0; i < cfg.Clients; i++ {
		r := rand.New(rand.NewPCG(cfg.Seed, uint64(i)))
		w.Spawn("", func(ctx context.Context, conn client.Conn) error {
			rec := &models.Recorder{Conn: conn, Client: i, H: h, Origin: client.Epoch}
			if err := ensure(ctx, conn, "/store"); err != nil {
				return err
			}
			version := int32(-1)
			for k := 0; k < cfg.Ops; k++ {
				key := fmt.Sprintf("/store/k%d", r.IntN(cfg.Keys))
				v := version
				if r.IntN(2) == 0 {
					v = -1
				}
				data := []byte(fmt.Sprintf("c%d-%d", i+1, k))
				var err error
				switch r.IntN(6) {
				case 0:
					_, err = rec.Create(ctx, key, data, 0, openACL)
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
		})
	}
	if err := w.Inject(cfg.Faults); err != nil {
		return nil, err
	}
	res := w.Run()
	return &StoreRun{World: w, Result: res, History: h.Operations()}, res.Err
}

// ensure creates path if it is missing, through whatever the faults do.
func ensure(ctx context.Context, c client.Conn, path string) error {
	for {
		_, err := c.Create(ctx, path, nil, 0, openACL)
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
