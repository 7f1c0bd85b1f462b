package scenarios

import (
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/workload"
)

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
// recorded with what the client saw, a call that failed with its error.
// Errors a client must expect under faults are not fatal.
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
		w.Spawn("", workload.StoreClient(i, cfg.Seed, cfg.Keys, cfg.Ops, h))
	}
	if err := w.Inject(cfg.Faults); err != nil {
		return nil, err
	}
	res := w.Run()
	return &StoreRun{World: w, Result: res, History: h.Operations()}, res.Err
}
