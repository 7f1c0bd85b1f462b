package recipes_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/trace"
)

// configPath is the configuration node of the tests.
const configPath = "/app/config"

// configData is the configuration the writer writes k-th.
func configData(k int) string { return fmt.Sprintf("config %d", k) }

// configRun records what a writer wrote and what each reader delivered.
type configRun struct {
	written   map[int32]string // version → data
	delivered [][]recipes.Configuration
	wrote     int
}

// configWriter writes configurations 1..n, gap apart: the first with
// version -1 (it creates the node), each later one as a compare-and-set on
// the version the previous write returned. It retries the errors a caller
// must expect under faults; with one writer, nothing else may fail.
func configWriter(r *configRun, n int, gap time.Duration) body {
	return func(ctx context.Context, conn client.Conn) error {
		c := recipes.NewConfigNode(conn, configPath)
		version := int32(-1)
		for k := 1; k <= n; k++ {
			if err := conn.Sleep(ctx, gap); err != nil {
				return err
			}
			for {
				v, err := c.Write(ctx, []byte(configData(k)), version)
				if faulty(err) {
					continue
				}
				if err != nil {
					return fmt.Errorf("write %d at version %d: %w", k, version, err)
				}
				if _, dup := r.written[v]; dup || (version >= 0 && v != version+1) {
					return fmt.Errorf("write %d at version %d made version %d", k, version, v)
				}
				r.written[v] = configData(k)
				r.wrote, version = k, v
				break
			}
		}
		return nil
	}
}

// configReader delivers configurations with reader until it delivers the
// n-th, within limit.
func configReader(r *configRun, newReader func(client.Conn) recipes.ConfigReader, n int, limit time.Duration) body {
	i := len(r.delivered)
	r.delivered = append(r.delivered, nil)
	return func(ctx context.Context, conn client.Conn) error {
		ctx, cancel := conn.WithTimeout(ctx, limit)
		defer cancel()
		reader := newReader(conn)
		for {
			cfg, err := reader.Next(ctx)
			if faulty(err) {
				continue
			}
			if err != nil {
				return fmt.Errorf("next after %d configurations: %w", len(r.delivered[i]), err)
			}
			r.delivered[i] = append(r.delivered[i], cfg)
			if string(cfg.Data) == configData(n) {
				return nil
			}
		}
	}
}

// check checks that every reader delivered configurations in increasing
// order (never going back), each one as written at its version, and ended
// with the last one; and, if every is set, that it delivered every version
// written, from the first.
func (r *configRun) check(n int, every bool) error {
	if r.wrote != n {
		return fmt.Errorf("the writer wrote %d configurations, want %d", r.wrote, n)
	}
	for i, got := range r.delivered {
		for j, cfg := range got {
			if want, ok := r.written[cfg.Version]; !ok || string(cfg.Data) != want {
				return fmt.Errorf("reader %d delivered %q at version %d; written there: %q", i, cfg.Data, cfg.Version, want)
			}
			if j > 0 && (cfg.Czxid != got[j-1].Czxid || cfg.Version <= got[j-1].Version) {
				return fmt.Errorf("reader %d delivered version %d after version %d", i, cfg.Version, got[j-1].Version)
			}
		}
		if len(got) == 0 || string(got[len(got)-1].Data) != configData(n) {
			return fmt.Errorf("reader %d did not deliver the last configuration: %d delivered", i, len(got))
		}
		if every && len(got) != n {
			return fmt.Errorf("reader %d delivered %d configurations, want every one of %d", i, len(got), n)
		}
	}
	return nil
}

func configRecipeReader(c client.Conn) recipes.ConfigReader {
	return recipes.NewConfigWatcher(c, configPath)
}

// Without faults, with writes 50ms apart, every reader delivers every
// version, in order. A reader may start before the node exists.
func TestConfigReadersSeeEveryVersion(t *testing.T) {
	const n = 10
	for seed := uint64(1); seed <= 20; seed++ {
		w := newWorld(t, seed, 3)
		r := &configRun{written: map[int32]string{}}
		w.Spawn("", configWriter(r, n, 50*time.Millisecond))
		for i := 0; i < 3; i++ {
			w.Spawn("", configReader(r, configRecipeReader, n, time.Minute))
		}
		run(t, w)
		if err := r.check(n, true); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}

// Under crashes, leader crashes, partitions, lost write replies, and
// pauses past the session timeout (readers' and the writer's sessions
// expire), the readers never deliver a version older than one they
// delivered, deliver each version with the data written at it, and all
// deliver the last configuration once the faults are over. The writer's
// compare-and-set writes survive lost replies: each write makes exactly
// the next version.
func TestConfigUnderFaults(t *testing.T) {
	const n, readers = 20, 3
	rates := fault.Rates{Crash: 0.2, LeaderCrash: 0.2, Partition: 0.3, Pause: 0.2, Spike: 0.2, LoseReply: 2}
	for seed := uint64(1); seed <= 40; seed++ {
		w := newWorld(t, seed, 3)
		r := &configRun{written: map[int32]string{}}
		w.Spawn("", configWriter(r, n, 100*time.Millisecond))
		for i := 0; i < readers; i++ {
			w.Spawn("", configReader(r, configRecipeReader, n, 2*time.Minute))
		}
		sched := fault.RandomSchedule(sim.NewSeeded(seed), rates, 3*time.Second, 3, readers+1)
		if err := w.Inject(sched); err != nil {
			t.Fatal(err)
		}
		res := w.Run()
		if res.Err != nil || len(res.Violations) > 0 {
			t.Fatalf("seed %d: %v %v\n%s\n%s", seed, res.Err, res.Violations, sched, traceTail(w, 40))
		}
		if err := r.check(n, false); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, sched)
		}
	}
}

// A reader whose session expires in the middle (paused 15s) carries on in
// its new session, and does not go back; a leader crash and a partition
// on the way change nothing.
func TestConfigReaderAcrossExpiry(t *testing.T) {
	const n = 30
	for seed := uint64(1); seed <= 10; seed++ {
		w := newWorld(t, seed, 3)
		r := &configRun{written: map[int32]string{}}
		w.Spawn("", configWriter(r, n, time.Second))
		w.Spawn("", configReader(r, configRecipeReader, n, 2*time.Minute))
		w.Spawn("", configReader(r, configRecipeReader, n, 2*time.Minute))
		inject(t, w, "at 2500ms pause c2 15s; at 5s crash leader; at 8s partition s1 c3; at 12s heal; at 14s restart s1; at 14s restart s2; at 14s restart s3")
		run(t, w)
		if err := r.check(n, false); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		var sessions []int64
		for _, rec := range w.Trace().Records() {
			if rec.Kind == trace.KState && rec.From == trace.ClientActor(1) && rec.Sess != 0 && (len(sessions) == 0 || sessions[len(sessions)-1] != rec.Sess) {
				sessions = append(sessions, rec.Sess)
			}
		}
		if len(sessions) < 2 {
			t.Fatalf("seed %d: c2's session did not expire (sessions %x)", seed, sessions)
		}
		if got := len(r.delivered[0]); got >= n {
			t.Fatalf("seed %d: c2 delivered %d of %d versions while paused 15s", seed, got, n)
		}
	}
}

// A reader whose session expires while the configuration does not change
// reads it again in its new session (its watch is gone with the old one),
// and does not deliver it again: the next configuration it delivers is the
// next version.
func TestConfigReaderDoesNotRedeliverAfterExpiry(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		w := newWorld(t, seed, 3)
		r := &configRun{written: map[int32]string{}}
		w.Spawn("", configWriter(r, 3, 20*time.Second)) // at 20s, 40s, 60s
		w.Spawn("", configReader(r, configRecipeReader, 3, 2*time.Minute))
		inject(t, w, "at 21s pause c2 15s")
		run(t, w)
		if err := r.check(3, true); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if n := count(w, trace.KExpire); n != 1 {
			t.Fatalf("seed %d: %d sessions expired, want c2's", seed, n)
		}
	}
}

// A compare-and-set write at a stale version fails with BadVersion, and
// one on a missing node with NoNode; version -1 writes whatever the
// version is.
func TestConfigWriteVersions(t *testing.T) {
	w := newWorld(t, 1, 3)
	w.Spawn("", func(ctx context.Context, conn client.Conn) error {
		c := recipes.NewConfigNode(conn, configPath)
		if _, err := c.Write(ctx, []byte("x"), 0); !errors.Is(err, zk.ErrNoNode) {
			return fmt.Errorf("write at version 0 on a missing node: %v, want NoNode", err)
		}
		if v, err := c.Write(ctx, []byte("a"), -1); err != nil || v != 0 {
			return fmt.Errorf("first write: %d, %v; want version 0", v, err)
		}
		if v, err := c.Write(ctx, []byte("b"), 0); err != nil || v != 1 {
			return fmt.Errorf("write at 0: %d, %v; want version 1", v, err)
		}
		if _, err := c.Write(ctx, []byte("c"), 0); !errors.Is(err, zk.ErrBadVersion) {
			return fmt.Errorf("write at stale version 0: %v, want BadVersion", err)
		}
		if v, err := c.Write(ctx, []byte("d"), -1); err != nil || v != 2 {
			return fmt.Errorf("write at -1: %d, %v; want version 2", v, err)
		}
		return nil
	})
	run(t, w)
}

// A write whose reply is lost is recognised after the retry's BadVersion:
// it made exactly one version, and Write returns it.
func TestConfigLostWriteReply(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		for _, fault := range []string{"when c1 setData#2 applied: lose-reply", "when c1 create#3 applied: lose-reply"} {
			w := newWorld(t, seed, 3)
			r := &configRun{written: map[int32]string{}}
			w.Spawn("", configWriter(r, 4, 10*time.Millisecond))
			w.Spawn("", configReader(r, configRecipeReader, 4, time.Minute))
			inject(t, w, fault)
			run(t, w)
			if err := r.check(4, false); err != nil {
				t.Fatalf("seed %d, %s: %v", seed, fault, err)
			}
			if len(r.written) != 4 || r.written[3] != configData(4) {
				t.Fatalf("seed %d, %s: versions written %v, want 0..3", seed, fault, r.written)
			}
			lost := false
			for _, rec := range w.Trace().Records() {
				lost = lost || rec.Kind == trace.KFault
			}
			if !lost {
				t.Fatalf("seed %d: %s did not strike", seed, fault)
			}
		}
	}
}

// The teaching variants: the read-once reader delivers the first
// configuration and never another; the one-shot watcher delivers the first
// change and none after. Both wait until their deadline while the recipe's
// reader, in the same run, delivers every version.
func TestConfigVariantsMissUpdates(t *testing.T) {
	const n = 5
	for _, v := range []struct {
		name      string
		newReader func(client.Conn) recipes.ConfigReader
		sees      int
	}{
		{"config-read-once", func(c client.Conn) recipes.ConfigReader { return recipes.NewReadOnceConfigWatcher(c, configPath) }, 1},
		{"config-oneshot-watch", func(c client.Conn) recipes.ConfigReader { return recipes.NewOneshotConfigWatcher(c, configPath) }, 2},
	} {
		for seed := uint64(1); seed <= 5; seed++ {
			w := newWorld(t, seed, 3)
			r := &configRun{written: map[int32]string{}}
			w.Spawn("", configWriter(r, n, 100*time.Millisecond))
			w.Spawn("", configReader(r, configRecipeReader, n, time.Minute))
			var variantErr error
			w.Spawn("", func(ctx context.Context, conn client.Conn) error {
				if err := conn.Sleep(ctx, 150*time.Millisecond); err != nil { // once the node exists
					return err
				}
				variantErr = configReader(r, v.newReader, n, 5*time.Second)(ctx, conn)
				return nil
			})
			run(t, w)
			if err := r.check(n, true); err == nil || !errors.Is(variantErr, context.DeadlineExceeded) {
				t.Fatalf("%s, seed %d: the variant ended with %v (check: %v), want it stuck until its deadline",
					v.name, seed, variantErr, err)
			}
			if got := r.delivered[1]; len(got) != v.sees {
				t.Fatalf("%s, seed %d: the variant delivered %d configurations, want %d", v.name, seed, len(got), v.sees)
			}
			r.delivered = r.delivered[:1]
			if err := r.check(n, true); err != nil {
				t.Fatalf("%s, seed %d: the recipe's reader: %v", v.name, seed, err)
			}
		}
	}
}
