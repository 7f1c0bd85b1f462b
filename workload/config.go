package workload

import (
	"context"
	"fmt"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/recipes"
)

// The configuration workload. The first Readers clients read the
// configuration; the others write it. Each writer writes Rounds
// configurations, "c3-1", "c3-2", ... (unique: its client's name and the
// write's number), Step apart, each over whatever version is there
// (version -1: writers do not coordinate). Each reader starts Step after
// the run, asks its reader for the next configuration (Next) in a loop,
// and records each one it learns.
//
// When readers stop. A reader that has learnt the latest configuration
// still cannot know that no write will follow, so the workload counts, in
// the runner (clients run one at a time): a reader goes on until every
// writer is done and the run's liveness bound (runner.bound: the spec's,
// or three session timeouts, stretched by the schedule's pauses and quorum
// losses) has passed since the last write returned, and a second more.
// The config check judges whether every reader learnt the latest version
// within the bound; the readers must run that long for it to judge (a run
// that ends sooner is undecided). A reader asks for the next configuration with a
// deadline of a second at a time (a recipe's reader keeps its watch
// across calls), so that it notices when to stop.
//
// Recorded (Path = the configuration node): Write (Data; OK with
// OutVersion the version written, or Unknown, with the error, when Write
// returned one: it may have been applied; after an error a caller must
// expect under faults the writer goes on to its next write, and after any
// other it fails), Read by a reader (OutData, OutVersion), from the call
// of Next that returned it; a Next that returned an error is a Failed
// Read, with the error (it learnt nothing), after which the reader asks
// again when the error is one a caller must expect, and fails otherwise.
// A Next cut short by the reader's own deadline of a second (its context's)
// is not recorded: the workload gave that wait up, and the recipe's reader
// returned no error of its own.

// configPath is the configuration node.
const configPath = "/zksim/config"

func init() {
	writer := func(c client.Conn, p string) recipes.ConfigWriter { return recipes.NewConfigNode(c, p) }
	registerKind(&Kind{
		name: "config", situations: []situation{newerConfig}, doc: "configuration (recipes.ConfigWriter, recipes.ConfigReader); the first Readers clients read, the others write",
		clients: 4, minClients: 2,
		recipe: recipes.Implementation{ConfigWriter: writer,
			ConfigReader: func(c client.Conn, p string) recipes.ConfigReader { return recipes.NewConfigWatcher(c, p) }},
		defaults: func(w *Shape, clients int) {
			orDefault(&w.Readers, max(1, clients/2))
			orDefault(&w.Rounds, 5)
			orDefault(&w.Step, 50*time.Millisecond)
		},
		checks: func(p Plan) []string { return []string{"config", "ownership"} },
		spawn:  spawnConfig,
	})
}

// configRun is what the clients of one run share (they run one at a
// time): when the last write returned, and how many writers are done.
type configRun struct {
	lastWrite     int64
	writers, done int
}

func spawnConfig(r *runner) {
	wl := r.plan.Shape
	readers := min(wl.Readers, r.plan.Clients)
	run := &configRun{writers: r.plan.Clients - readers}
	stopAfter := int64(r.bound + time.Second)
	for i := 0; i < readers; i++ {
		r.spawn(i, func(ctx context.Context, conn client.Conn) error {
			rd := r.impl.ConfigReader(conn, configPath)
			if err := pause(ctx, conn, wl.Step); err != nil {
				return err
			}
			for {
				t := now(conn)
				stopAt, known := run.lastWrite+stopAfter, run.done == run.writers
				if known && t >= stopAt {
					return nil
				}
				d := time.Second
				if known {
					d = min(d, time.Duration(stopAt-t))
				}
				rctx, cancel := conn.WithTimeout(ctx, d)
				op := r.rec.begin(conn, i, models.Read, configPath)
				cfg, err := rd.Next(rctx)
				gaveUp := rctx.Err() != nil // before cancel, after which it always is
				cancel()
				switch {
				case err == nil:
					o := r.rec.end(conn, op, models.OK)
					o.OutData, o.OutVersion = string(cfg.Data), cfg.Version
				case gaveUp:
					r.rec.drop(op) // nothing newer before the workload's own deadline: its give-up, not an error
				case expectedFault(err):
					r.rec.fail(conn, op, err) // it learnt nothing; the reader asks again
				default:
					r.rec.fail(conn, op, err)
					return fmt.Errorf("next configuration: %w", err)
				}
			}
		})
	}
	for i := readers; i < r.plan.Clients; i++ {
		r.spawn(i, func(ctx context.Context, conn client.Conn) error {
			defer func() { run.done++ }()
			w := r.impl.ConfigWriter(conn, configPath)
			for k := 1; r.roundGoes(k - 1); k++ {
				data := fmt.Sprintf("c%d-%d", i+1, k)
				op := r.rec.begin(conn, i, models.Write, configPath)
				r.rec.op(op).Data = data
				v, err := w.Write(ctx, []byte(data), -1)
				switch {
				case err == nil:
					r.rec.end(conn, op, models.OK).OutVersion = v
				case expectedFault(err):
					r.rec.unknown(conn, op, err) // and the writer goes on to its next write
				default:
					r.rec.unknown(conn, op, err)
					return fmt.Errorf("write %q: %w", data, err)
				}
				run.lastWrite = max(run.lastWrite, now(conn))
				if err := pause(ctx, conn, wl.Step); err != nil {
					return err
				}
			}
			return nil
		})
	}
}
