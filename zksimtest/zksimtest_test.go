package zksimtest_test

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/recipes"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/workload"
	"github.com/zksim/zksim/zksimtest"
)

// A user's lock checked under the default faults (crashes, leader
// crashes, partitions, isolation, spikes, lost replies): one holder at a
// time, nobody waits on a free lock. The herd check is left out: every
// waiter of this lock watches the one node, so each release wakes them all.
func TestUserLock(t *testing.T) {
	zksimtest.Lock(t, func(conn client.Conn, path string) recipes.Locker {
		return &nodeLock{conn: conn, dir: path}
	}, zksimtest.Options{Seeds: 30, Checks: []string{"mutex", "liveness"}})
}

// failure is what a fake testing.TB saw when the check failed.
type failure struct{ msg string }

// fakeT is a testing.TB whose Fatalf stops the check and keeps its message.
type fakeT struct {
	testing.TB
	name string
}

func (f *fakeT) Helper()               {}
func (f *fakeT) Name() string          { return f.name }
func (f *fakeT) Logf(string, ...any)   {}
func (f *fakeT) Errorf(string, ...any) {}
func (f *fakeT) Fatalf(format string, args ...any) {
	panic(failure{fmt.Sprintf(format, args...)})
}

// run runs fn with a fakeT and returns what it failed with ("" if it
// passed).
func run(name string, fn func(t testing.TB)) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(failure)
			if !ok {
				panic(r)
			}
			msg = f.msg
		}
	}()
	fn(&fakeT{name: name})
	return ""
}

// The careless variant of the user's lock trusts NodeExists after a lost
// create() reply: it waits on its own node for ever. The check catches it
// as a liveness violation, shrinks it to one lost reply, and prints a
// replay command.
func TestUserLockMistakeIsCaught(t *testing.T) {
	careless := func(conn client.Conn, path string) recipes.Locker {
		return &nodeLock{conn: conn, dir: path, careless: true}
	}
	msg := run("TestCareless", func(ft testing.TB) {
		zksimtest.Lock(ft, careless, zksimtest.Options{Seeds: 30, Checks: []string{"mutex", "liveness"}})
	})
	if msg == "" {
		t.Fatal("the careless lock passed 30 seeds under lost replies")
	}
	for _, want := range []string{"liveness", "lose-reply", "replay: go test ./zksimtest -run '^TestCareless$' -zksim.seed=",
		"-zksim.report DIR writes every event of the run"} {
		if !strings.Contains(msg, want) {
			t.Fatalf("the failure does not say %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "--all") { // the command's flag, which go test does not have
		t.Errorf("the failure tells a go test user of zksim's --all:\n%s", msg)
	}
	faults := replayFaults(msg)
	if n := len(strings.Split(faults, "; ")); n > 3 {
		t.Errorf("the counterexample has %d faults, want at most 3: %s", n, faults)
	}
	checkReplays(t, msg, func(ft testing.TB) {
		zksimtest.Lock(ft, careless, zksimtest.Options{Checks: []string{"mutex", "liveness"}})
	})
}

// Options.Swarm has each seed draw its own mix of the rates: the careless
// lock is caught all the same, on runs other than the fixed mix's (the
// faults its first failing seeds struck differ), and its replay line runs
// it again exactly.
func TestSwarmOption(t *testing.T) {
	careless := func(conn client.Conn, path string) recipes.Locker {
		return &nodeLock{conn: conn, dir: path, careless: true}
	}
	check := func(swarm bool) func(testing.TB) {
		return func(ft testing.TB) {
			zksimtest.Lock(ft, careless, zksimtest.Options{Seeds: 30, NoShrink: true, Swarm: swarm, Checks: []string{"mutex", "liveness"}})
		}
	}
	fixed, swarm := run("TestCareless", check(false)), run("TestCareless", check(true))
	if !strings.Contains(swarm, "liveness") {
		t.Fatalf("the careless lock passed 30 seeds of the swarm:\n%s", swarm)
	}
	if replayFaults(fixed) == replayFaults(swarm) {
		t.Errorf("the swarm's counterexample struck the fixed mix's faults: %s", replayFaults(swarm))
	}
	checkReplays(t, swarm, check(true))
}

// The first version of the user's lock, whose Unlock deletes the node
// again after a lost reply without looking whose it is, fails Lock with
// the default options as an ownership violation naming both sessions and
// the node: the name came back as the next holder's node, and the second
// delete took the lock from it.
func TestLockDeletingAnotherSessionsNodeIsCaught(t *testing.T) {
	blind := func(conn client.Conn, path string) recipes.Locker {
		return &nodeLock{conn: conn, dir: path, blind: true}
	}
	check := func(ft testing.TB) { zksimtest.Lock(ft, blind, zksimtest.Options{}) }
	msg := run("TestBlindUnlock", check)
	for _, want := range []string{"ownership (safety) on /zksim/lock", "deleted /zksim/lock/holder", "live session 0x",
		"a client may delete only its own nodes"} {
		if !strings.Contains(msg, want) {
			t.Fatalf("the failure does not say %q:\n%s", want, msg)
		}
	}
	checkReplays(t, msg, check)
}

// The bound and the horizon the Options state are the run's, and the
// replay line carries them, so that the replay is the same experiment.
func TestOptionsCarryTheBoundAndHorizon(t *testing.T) {
	careless := func(conn client.Conn, path string) recipes.Locker {
		return &nodeLock{conn: conn, dir: path, careless: true}
	}
	opt := zksimtest.Options{Seeds: 30, Checks: []string{"mutex", "liveness"}, Bound: 7 * time.Second, Horizon: 9 * time.Second}
	msg := run("TestCarelessBound", func(ft testing.TB) { zksimtest.Lock(ft, careless, opt) })
	options := replayQuoted(msg, "zksim.options")
	if !strings.Contains(options, "bound: 7s") || !strings.Contains(options, "horizon: 9s") {
		t.Fatalf("the replay line's options %q do not carry the bound and the horizon:\n%s", options, msg)
	}
	checkReplays(t, msg, func(ft testing.TB) { zksimtest.Lock(ft, careless, opt) })
}

// replayFaults is the -zksim.faults of a failure's replay line.
func replayFaults(msg string) string { return replayQuoted(msg, "zksim.faults") }

// replayQuoted is the quoted value of flag name in msg's replay line ("":
// none).
func replayQuoted(msg, name string) string {
	replay := msg[strings.Index(msg, "replay: "):]
	i := strings.Index(replay, "-"+name+"='")
	if i < 0 {
		return ""
	}
	rest := replay[i+len(name)+3:]
	return rest[:strings.IndexByte(rest, '\'')]
}

// replayed runs check as msg's replay line says (its -zksim flags set in
// this process, reset after) and returns what it failed with.
func replayed(t *testing.T, msg string, check func(testing.TB)) string {
	t.Helper()
	i := strings.Index(msg, "replay: ")
	if i < 0 {
		t.Fatalf("no replay line:\n%s", msg)
	}
	replay := msg[i:]
	for _, arg := range strings.Fields(replay)[6:9] { // -zksim.seed= -zksim.clients= -zksim.rounds=
		name, value, _ := strings.Cut(strings.TrimPrefix(arg, "-"), "=")
		if err := flag.Set(name, value); err != nil {
			t.Fatal(err)
		}
	}
	if err := flag.Set("zksim.faults", replayFaults(msg)); err != nil {
		t.Fatal(err)
	}
	if err := flag.Set("zksim.options", replayQuoted(msg, "zksim.options")); err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, f := range []string{"zksim.seed", "zksim.clients", "zksim.rounds", "zksim.faults", "zksim.options"} {
			flag.Set(f, flag.Lookup(f).DefValue)
		}
	}()
	name := strings.Split(strings.TrimPrefix(strings.Fields(replay)[5], "'^"), "$")[0]
	return run(name, check)
}

// traceHash is the "trace hash H" a failure's report names ("" for none).
func traceHash(s string) string { return regexp.MustCompile(`trace hash [0-9a-f]{16}`).FindString(s) }

// checkReplays runs check again with the flags of the replay line that
// ends msg, and fails t unless it fails the same way: the same violation,
// the same trace hash.
func checkReplays(t *testing.T, msg string, check func(testing.TB)) {
	t.Helper()
	again := replayed(t, msg, check)
	hash := traceHash
	replay := msg[strings.Index(msg, "replay: "):]
	if hash(msg) == "" || hash(again) != hash(msg) {
		t.Fatalf("the replay flags gave %q, want %q:\n%s\nthe replay:\n%.2000s", hash(again), hash(msg), replay, again)
	}
}

// The exhaustive exploration finds the careless lock's mistake in every
// schedule of one fault and says how many it ran; the lock itself holds
// on all of them, lost read replies and notifications included.
func TestExploreUserLock(t *testing.T) {
	lock := func(careless bool) func(conn client.Conn, path string) recipes.Locker {
		return func(conn client.Conn, path string) recipes.Locker {
			return &nodeLock{conn: conn, dir: path, careless: careless}
		}
	}
	opt := zksimtest.ExploreOptions{Options: zksimtest.Options{Clients: 2, Checks: []string{"mutex", "liveness"},
		Workload: workload.Shape{Rounds: 1}}, Reads: true, Notifications: true,
		Faults: []string{"lose-reply", "crash leader for 1s", "disconnect {c} for {under}"}}
	zksimtest.Explore(t, "lock", recipes.Implementation{Locker: lock(false)}, opt)
	msg := run("TestExploreCareless", func(ft testing.TB) {
		zksimtest.Explore(ft, "lock", recipes.Implementation{Locker: lock(true)}, opt)
	})
	if !strings.Contains(msg, "liveness") || !strings.Contains(msg, "replay: go test ./zksimtest -run '^TestExploreCareless$'") {
		t.Fatalf("the careless lock was not caught by the exploration:\n%s", msg)
	}
	checkReplays(t, msg, func(ft testing.TB) {
		zksimtest.Explore(ft, "lock", recipes.Implementation{Locker: lock(true)}, opt)
	})
}

// logT is a fakeT that keeps what was logged.
type logT struct {
	fakeT
	logs []string
}

func (l *logT) Logf(format string, args ...any) {
	l.logs = append(l.logs, fmt.Sprintf(format, args...))
}

// A search stops at its wall-clock budget and says how many seeds it ran,
// rather than failing or running on.
func TestBudgetStopsTheSearch(t *testing.T) {
	lt := &logT{fakeT: fakeT{name: "TestBudget"}}
	zksimtest.Lock(lt, func(conn client.Conn, path string) recipes.Locker {
		return &nodeLock{conn: conn, dir: path}
	}, zksimtest.Options{Seeds: 100000, Budget: time.Millisecond, Checks: []string{"mutex", "liveness"}})
	if len(lt.logs) != 1 || !strings.Contains(lt.logs[0], "within the budget of 1ms") {
		t.Fatalf("logged %q; want the seeds run within the budget", lt.logs)
	}
}

// An exploration stops at its wall-clock budget too, and says that it
// explored only part of its bound.
func TestBudgetStopsTheExploration(t *testing.T) {
	lt := &logT{fakeT: fakeT{name: "TestBudgetExplore"}}
	zksimtest.Explore(lt, "lock", recipes.Implementation{Locker: func(conn client.Conn, path string) recipes.Locker {
		return &nodeLock{conn: conn, dir: path}
	}}, zksimtest.ExploreOptions{Options: zksimtest.Options{Clients: 3, Budget: time.Millisecond,
		Checks: []string{"mutex", "liveness"}}, MaxFaults: 3, Reads: true})
	if len(lt.logs) != 1 || !strings.Contains(lt.logs[0], "explored within the budget of 1ms, not all of them") {
		t.Fatalf("logged %q; want the schedules explored within the budget", lt.logs)
	}
}

// The recipe's semaphore passes the default faults; a semaphore that
// counts before it creates, outside any lock (kazoo #213), is caught
// letting three hold a semaphore of two, and its counterexample replays.
func TestSemaphore(t *testing.T) {
	zksimtest.Semaphore(t, func(conn client.Conn, path string, max int) recipes.Semaphore {
		return recipes.NewSemaphore(conn, path, max)
	}, zksimtest.Options{Seeds: 20})
	checkThenCreate := func(conn client.Conn, path string, max int) recipes.Semaphore {
		return recipes.NewCheckThenCreateSemaphore(conn, path, max)
	}
	// Its waiters all watch the lease directory: the herd check is left
	// out, as it would find that first.
	opt := zksimtest.Options{Seeds: 20, Checks: []string{"semaphore", "liveness"}}
	check := func(ft testing.TB) { zksimtest.Semaphore(ft, checkThenCreate, opt) }
	msg := run("TestCheckThenCreate", check)
	for _, want := range []string{"semaphore (safety)", "held it at once, where at most 2 may"} {
		if !strings.Contains(msg, want) {
			t.Fatalf("the failure does not say %q:\n%s", want, msg)
		}
	}
	checkReplays(t, msg, check)
}

// Options{Faults: "none"} runs without faults, as -zksim.faults=none does
// (it was refused: "none" is no schedule).
func TestOptionsFaultsNone(t *testing.T) {
	msg := run("TestOptionsFaultsNone", func(ft testing.TB) {
		zksimtest.Lock(ft, func(conn client.Conn, path string) recipes.Locker { return recipes.NewLock(conn, path) },
			zksimtest.Options{Faults: "none", Seeds: 3})
	})
	if msg != "" {
		t.Fatalf("Options{Faults: \"none\"}: %s", msg)
	}
}

// The replay line names the test's package as `go test` takes it from the
// module's root, and pasted there it fails again with the same trace hash
// (it once named no package: from the root it ran no test and exited 0,
// as if the bug were fixed). The line is the tutorial's §7, which
// TestUserSessionLockKeepingItsOldNodeIsCaught holds to what the test
// prints; its trace hash is the one the same flags give in this process.
func TestReplayLineRunsFromTheModuleRoot(t *testing.T) {
	tutorial, err := os.ReadFile("../docs/tutorial.md")
	if err != nil {
		t.Fatal(err)
	}
	_, line, _ := strings.Cut(string(tutorial), "replay: go test ./zksimtest -run '^TestKeepsNode$' ")
	line, _, _ = strings.Cut(line, "\n")
	if line == "" {
		t.Fatal("docs/tutorial.md prints no replay line of TestKeepsNode naming ./zksimtest")
	}
	line = "go test ./zksimtest -count=1 -run '^TestKeepsNode$' " + line
	want := "replay: " + strings.Replace(line, "-count=1 ", "", 1)
	hash := traceHash(replayed(t, want, func(ft testing.TB) {
		zksimtest.Lock(ft, keepsNode, zksimtest.Options{Ensemble: sim.Config{LocalSessionLoss: true}})
	}))
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	if err == nil || hash == "" || !strings.Contains(string(out), hash) || !strings.Contains(string(out), "--- FAIL: TestKeepsNode") {
		t.Fatalf("%s, run from the module root: %v (want it to fail with %q)\n%s", line, err, hash, out)
	}
}

// A pass says what its runs met (the faults that struck, the situations
// the waits met): a pass is worth what it exercised, and `go test -v`
// once printed no more than the seeds.
func TestPassSaysWhatItsRunsMet(t *testing.T) {
	lt := &logT{fakeT: fakeT{name: "TestPass"}}
	zksimtest.Lock(lt, func(conn client.Conn, path string) recipes.Locker { return recipes.NewLock(conn, path) },
		zksimtest.Options{Seeds: 5})
	if len(lt.logs) != 1 || !strings.Contains(lt.logs[0], "the runs met: ") || !strings.Contains(lt.logs[0], "struck: ") {
		t.Fatalf("logged %q; want what the runs met", lt.logs)
	}
}
