package recipes_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/trace"
)

// namingDir is where the tests register names.
const namingDir = "/names"

// namingWaitFor sleeps in 10ms steps until cond holds (a test's barrier
// between clients, which run one at a time).
func namingWaitFor(ctx context.Context, conn client.Conn, cond func() bool) error {
	for !cond() {
		if err := conn.Sleep(ctx, 10*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

// namingRegister registers name until it succeeds, retrying the errors a
// caller must expect under faults.
func namingRegister(ctx context.Context, r recipes.NameService, name string, data []byte) error {
	for {
		err := r.Register(ctx, name, data)
		if err == nil || !faulty(err) {
			return err
		}
	}
}

// Without faults, every name resolves to what was registered, from every
// client; a missing name says so; listing gives every name; registering
// again is idempotent, someone else's name is taken; unregistering works.
func TestNamingResolves(t *testing.T) {
	const n = 4
	for seed := uint64(1); seed <= 20; seed++ {
		w := newWorld(t, seed, 3)
		registered, checked := 0, 0
		want := map[string]string{}
		for i := 0; i < n; i++ {
			want[fmt.Sprintf("svc-%d", i)] = fmt.Sprintf("10.0.0.%d:80", i)
			want[fmt.Sprintf("static-%d", i)] = fmt.Sprintf("static data %d", i)
		}
		var all []string
		for name := range want {
			all = append(all, name)
		}
		slices.Sort(all)
		for i := 0; i < n; i++ {
			w.Spawn("", func(ctx context.Context, conn client.Conn) error {
				eph := recipes.NewNameRegistry(conn, namingDir, true)
				per := recipes.NewNameRegistry(conn, namingDir, false)
				svc, static := fmt.Sprintf("svc-%d", i), fmt.Sprintf("static-%d", i)
				if err := eph.Register(ctx, svc, []byte(want[svc])); err != nil {
					return fmt.Errorf("register %s: %w", svc, err)
				}
				if err := per.Register(ctx, static, []byte(want[static])); err != nil {
					return fmt.Errorf("register %s: %w", static, err)
				}
				registered++
				if err := namingWaitFor(ctx, conn, func() bool { return registered == n }); err != nil {
					return err
				}
				for _, name := range all {
					got, err := eph.Resolve(ctx, name)
					if err != nil || string(got) != want[name] {
						return fmt.Errorf("resolve %s: %q, %v; want %q", name, got, err, want[name])
					}
				}
				_, err := per.Resolve(ctx, "nobody")
				if !errors.Is(err, recipes.ErrNameNotFound) || !errors.Is(err, zk.ErrNoNode) {
					return fmt.Errorf("resolve a missing name: %v, want ErrNameNotFound wrapping zk.ErrNoNode", err)
				}
				names, err := per.Names(ctx)
				if err != nil || !slices.Equal(names, all) {
					return fmt.Errorf("names: %v, %v; want %v", names, err, all)
				}
				if err := eph.Register(ctx, svc, []byte(want[svc])); err != nil {
					return fmt.Errorf("registering %s again: %v, want nil", svc, err)
				}
				if err := per.Register(ctx, static, []byte(want[static])); err != nil {
					return fmt.Errorf("registering %s again: %v, want nil", static, err)
				}
				other := fmt.Sprintf("svc-%d", (i+1)%n)
				if err := eph.Register(ctx, other, []byte(want[other])); !errors.Is(err, recipes.ErrNameTaken) {
					return fmt.Errorf("registering another session's %s: %v, want ErrNameTaken", other, err)
				}
				if err := per.Register(ctx, "static-0", []byte("else")); !errors.Is(err, recipes.ErrNameTaken) {
					return fmt.Errorf("registering static-0 with other data: %v, want ErrNameTaken", err)
				}
				if err := eph.Unregister(ctx, other); !errors.Is(err, recipes.ErrNameTaken) {
					return fmt.Errorf("unregistering another session's %s: %v, want ErrNameTaken", other, err)
				}
				checked++
				if err := namingWaitFor(ctx, conn, func() bool { return checked == n }); err != nil {
					return err
				}
				if err := per.Unregister(ctx, static); err != nil {
					return fmt.Errorf("unregister %s: %w", static, err)
				}
				if _, err := per.Resolve(ctx, static); !errors.Is(err, recipes.ErrNameNotFound) {
					return fmt.Errorf("resolve %s after unregistering it: %v, want ErrNameNotFound", static, err)
				}
				return nil
			})
		}
		run(t, w)
		if registered != n || checked != n {
			t.Fatalf("seed %d: %d registered, %d checked; want %d", seed, registered, checked, n)
		}
	}
}

// Under crashes, leader crashes, partitions, pauses past the session
// timeout and lost create() replies, the name service holds:
//   - Register succeeds or fails only with an error a caller must expect
//     under faults (never ErrNameTaken for its own name);
//   - every Resolve that answers data answers exactly what was registered;
//   - a persistent name resolves (from any client) once its Register
//     returned;
//   - in the end each client resolves its persistent name to its data, and
//     its ephemeral name to its data if its session is the one that
//     registered it, and to ErrNameNotFound if that session expired.
func TestNamingUnderFaults(t *testing.T) {
	const n = 4
	rates := fault.Rates{Crash: 0.2, LeaderCrash: 0.2, Partition: 0.3, Pause: 0.2, Spike: 0.2, LoseReply: 2}
	expired := 0
	for seed := uint64(1); seed <= 30; seed++ {
		w := newWorld(t, seed, 3)
		data := func(name string) []byte { return []byte("data of " + name) }
		registeredAt := map[string]time.Time{} // persistent names, when Register returned
		for i := 0; i < n; i++ {
			w.Spawn("", func(ctx context.Context, conn client.Conn) error {
				eph := recipes.NewNameRegistry(conn, namingDir, true)
				per := recipes.NewNameRegistry(conn, namingDir, false)
				svc, static := fmt.Sprintf("svc-%d", i), fmt.Sprintf("static-%d", i)
				if err := namingRegister(ctx, eph, svc, data(svc)); err != nil {
					return fmt.Errorf("register %s: %w", svc, err)
				}
				session := conn.SessionID()
				if err := namingRegister(ctx, per, static, data(static)); err != nil {
					return fmt.Errorf("register %s: %w", static, err)
				}
				registeredAt[static] = conn.Now()
				for round := 0; round < 10; round++ {
					if err := conn.Sleep(ctx, 300*time.Millisecond); err != nil {
						return err
					}
					for j := 0; j < n; j++ {
						for _, name := range []string{fmt.Sprintf("svc-%d", j), fmt.Sprintf("static-%d", j)} {
							start := conn.Now()
							got, err := per.Resolve(ctx, name)
							switch {
							case err == nil && !bytes.Equal(got, data(name)):
								return fmt.Errorf("resolve %s: %q, want %q", name, got, data(name))
							case errors.Is(err, recipes.ErrNameNotFound):
								if at, ok := registeredAt[name]; ok && !start.Before(at) {
									return fmt.Errorf("resolve %s at %v: not found, registered at %v",
										name, start.Sub(client.Epoch), at.Sub(client.Epoch))
								}
							case err != nil && !faulty(err):
								return fmt.Errorf("resolve %s: %w", name, err)
							}
						}
					}
				}
				for {
					got, err := per.Resolve(ctx, static)
					if faulty(err) {
						continue
					}
					if err != nil || !bytes.Equal(got, data(static)) {
						return fmt.Errorf("own %s at the end: %q, %v", static, got, err)
					}
					break
				}
				for {
					got, err := per.Resolve(ctx, svc)
					if faulty(err) {
						continue
					}
					same := conn.SessionID() == session
					switch {
					case same && (err != nil || !bytes.Equal(got, data(svc))):
						return fmt.Errorf("own %s at the end, same session: %q, %v", svc, got, err)
					case !same && !errors.Is(err, recipes.ErrNameNotFound):
						return fmt.Errorf("own %s at the end, session expired: %q, %v; want ErrNameNotFound", svc, got, err)
					case !same:
						expired++
					}
					return nil
				}
			})
		}
		if err := w.Inject(fault.RandomSchedule(sim.NewSeeded(seed), rates, 3*time.Second, 3, n)); err != nil {
			t.Fatal(err)
		}
		res := w.Run()
		if res.Err != nil || len(res.Violations) > 0 {
			t.Fatalf("seed %d: %v %v\n%s", seed, res.Err, res.Violations, traceTail(w, 40))
		}
		if len(registeredAt) != n {
			t.Fatalf("seed %d: %d persistent names registered, want %d", seed, len(registeredAt), n)
		}
	}
	t.Logf("%d ephemeral registrations vanished with their expired sessions", expired)
	if expired == 0 {
		t.Fatal("no session expired in any seed: the test does not test expiry")
	}
}

// An ephemeral name vanishes when its owner's session expires (its owner
// paused past its 10s session timeout); a persistent one stays. The owner,
// back with a new session, registers it again.
func TestNamingEphemeralVanishesWithItsOwner(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		w := newWorld(t, seed, 3)
		reregistered := false
		w.Spawn("", func(ctx context.Context, conn client.Conn) error {
			eph := recipes.NewNameRegistry(conn, namingDir, true)
			per := recipes.NewNameRegistry(conn, namingDir, false)
			if err := eph.Register(ctx, "a", []byte("A")); err != nil {
				return err
			}
			if err := per.Register(ctx, "b", []byte("B")); err != nil {
				return err
			}
			session := conn.SessionID()
			if err := conn.Sleep(ctx, 3*time.Second); err != nil { // paused from 1s to 16s
				return err
			}
			if _, err := eph.Resolve(ctx, "a"); !errors.Is(err, recipes.ErrNameNotFound) {
				return fmt.Errorf("after the expiry, own a: %v, want ErrNameNotFound", err)
			}
			if conn.SessionID() == session {
				return errors.New("the session did not expire")
			}
			if err := eph.Register(ctx, "a", []byte("A2")); err != nil {
				return fmt.Errorf("registering a again: %w", err)
			}
			reregistered = true
			return conn.Sleep(ctx, 5*time.Second) // while c2 resolves it
		})
		w.Spawn("", func(ctx context.Context, conn client.Conn) error {
			r := recipes.NewNameRegistry(conn, namingDir, false)
			expect := func(at time.Duration, name, want string) error {
				if err := conn.Sleep(ctx, at-conn.Now().Sub(client.Epoch)); err != nil {
					return err
				}
				got, err := r.Resolve(ctx, name)
				if want == "" {
					if !errors.Is(err, recipes.ErrNameNotFound) || !errors.Is(err, zk.ErrNoNode) {
						return fmt.Errorf("at %v %s resolves to %q, %v; want not found", at, name, got, err)
					}
					return nil
				}
				if err != nil || string(got) != want {
					return fmt.Errorf("at %v %s resolves to %q, %v; want %q", at, name, got, err, want)
				}
				return nil
			}
			for _, e := range []struct {
				at         time.Duration
				name, want string
			}{
				{500 * time.Millisecond, "a", "A"}, {500 * time.Millisecond, "b", "B"},
				{14 * time.Second, "a", ""}, {14 * time.Second, "b", "B"},
				{20 * time.Second, "a", "A2"}, {20 * time.Second, "b", "B"},
			} {
				if err := expect(e.at, e.name, e.want); err != nil {
					return err
				}
			}
			return nil
		})
		inject(t, w, "at 1s pause c1 15s")
		run(t, w)
		if !reregistered {
			t.Fatalf("seed %d: c1 did not register a again", seed)
		}
	}
}

// A lost create() reply: c1's registration is applied but its reply lost.
// The recipe recognises its own node (ephemeral: by its owner session;
// persistent: by its data) and Register succeeds, with one node created.
// The naming-no-recovery variant reports its own name taken, for good.
func TestNamingLostCreateReply(t *testing.T) {
	// create#1 answers NoNode (no /names yet), create#2 is /names, create#3
	// the name's node.
	const lostReply = "when c1 create#3 applied: lose-reply"
	created := func(w *sim.World) int {
		n := 0
		for _, r := range w.Trace().Records() {
			if r.Kind == trace.KApply && r.From == trace.ServerActor(0) && r.Op == client.OpCreate &&
				r.Code == 0 && r.Path == namingDir+"/a" {
				n++
			}
		}
		return n
	}
	type newRegistry func(conn client.Conn, dir string, ephemeral bool) *recipes.NameRegistry
	scenario := func(seed uint64, newReg newRegistry, ephemeral bool) (w *sim.World, registerErr error) {
		w = newWorld(t, seed, 3)
		w.Spawn("", func(ctx context.Context, conn client.Conn) error {
			r := newReg(conn, namingDir, ephemeral)
			registerErr = r.Register(ctx, "a", []byte("A"))
			again := r.Register(ctx, "a", []byte("A"))
			got, err := r.Resolve(ctx, "a")
			if err != nil || string(got) != "A" {
				return fmt.Errorf("resolve a: %q, %v", got, err)
			}
			if (registerErr == nil) != (again == nil) {
				return fmt.Errorf("the second Register said %v, the first %v", again, registerErr)
			}
			if ephemeral {
				ok, st, err := conn.Exists(ctx, namingDir+"/a")
				if err != nil || !ok || st.EphemeralOwner != conn.SessionID() {
					return fmt.Errorf("the node is not c1's: %v %v %+v", ok, err, st)
				}
			}
			return nil
		})
		inject(t, w, lostReply)
		run(t, w)
		return w, registerErr
	}
	for seed := uint64(1); seed <= 5; seed++ {
		for _, ephemeral := range []bool{true, false} {
			w, err := scenario(seed, recipes.NewNameRegistry, ephemeral)
			if err != nil || created(w) != 1 {
				t.Fatalf("seed %d ephemeral %v: the recipe's Register said %v with %d nodes created, want nil and 1",
					seed, ephemeral, err, created(w))
			}
			if !strings.Contains(traceTail(w, 1000), "lose-reply") {
				t.Fatalf("seed %d: the reply was not lost", seed)
			}
			_, err = scenario(seed, recipes.NewNoRecoveryNameRegistry, ephemeral)
			if !errors.Is(err, recipes.ErrNameTaken) {
				t.Fatalf("seed %d ephemeral %v: the no-recovery variant's Register said %v, want ErrNameTaken for its own node",
					seed, ephemeral, err)
			}
		}
	}
}

// A Register whose context ends while its create() is held on a cut link
// leaves nothing behind: the create is applied once the link heals, and
// Register's clean-up, queued after it, deletes it.
func TestNamingCancelledRegisterLeavesNothing(t *testing.T) {
	namingCancelled(t, "register", func(ctx context.Context, conn client.Conn) error {
		return recipes.NewNameRegistry(conn, namingDir, true).Register(ctx, "a", []byte("A"))
	})
}

// namingCancelled runs call (which creates namingDir/a) as c1, with a
// context that ends 2s later, while c1 is cut from every server from 50ms
// to 5s; c2 checks at 8s that a does not exist, and that its create was
// applied (so that the clean-up had something to do).
func namingCancelled(t *testing.T, kind string, call body) {
	for seed := uint64(1); seed <= 5; seed++ {
		w := newWorld(t, seed, 3)
		var callErr error
		w.Spawn("", func(ctx context.Context, conn client.Conn) error {
			if err := conn.Sleep(ctx, 100*time.Millisecond); err != nil {
				return err
			}
			cctx, cancel := conn.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			callErr = call(cctx, conn)
			return conn.Sleep(ctx, 10*time.Second) // the session lives on
		})
		w.Spawn("", func(ctx context.Context, conn client.Conn) error {
			r := recipes.NewNameRegistry(conn, namingDir, false)
			if err := r.Register(ctx, "b", nil); err != nil {
				return err // creates namingDir
			}
			if err := conn.Sleep(ctx, 8*time.Second); err != nil {
				return err
			}
			if got, err := r.Resolve(ctx, "a"); !errors.Is(err, recipes.ErrNameNotFound) {
				return fmt.Errorf("after the cancelled %s, a resolves to %q, %v; want not found", kind, got, err)
			}
			return nil
		})
		inject(t, w, "at 50ms partition s1 c1; at 50ms partition s2 c1; at 50ms partition s3 c1; at 5s heal")
		run(t, w)
		if !errors.Is(callErr, context.DeadlineExceeded) {
			t.Fatalf("%s, seed %d: %v, want the context's deadline", kind, seed, callErr)
		}
		applied := false
		for _, r := range w.Trace().Records() {
			applied = applied || (r.Kind == trace.KApply && r.Op == client.OpCreate && r.Code == 0 && r.Path == namingDir+"/a")
		}
		if !applied {
			t.Fatalf("%s, seed %d: the create was never applied: the test tests nothing", kind, seed)
		}
	}
}
