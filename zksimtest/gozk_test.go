package zksimtest

import (
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/fault"
)

// goZKLock is go-zookeeper/zk's own lock, unmodified.
func goZKLock(conn *zk.Conn, path string) GoZKLocker {
	return zk.NewLock(conn, path, zk.WorldACL(zk.PermAll))
}

func TestGoZKLockHoldsUnderContention(t *testing.T) {
	GoZKLock(t, goZKLock, GoZKOptions{Clients: 3, Seeds: 3})
}

// go-zk's lock does not watch its session: a holder cut off from the
// ensemble for longer than its session timeout goes on using the
// resource after the servers expired its session and gave the lock to
// the next client.
func TestGoZKLockBreaksWhenItsHolderIsCutOff(t *testing.T) {
	opt := GoZKOptions{Clients: 2, Rounds: 1, Hold: 10 * time.Second, Step: time.Second}.withDefaults()
	sched, err := fault.ParseSchedule("at 1s disconnect c1 for 8s")
	if err != nil {
		t.Fatal(err)
	}
	run := runGoZKLock(t, 1, sched, goZKLock, opt)
	if run.err != nil {
		t.Fatal(run.err)
	}
	if !run.o.Failed() || run.o.Violations[0].Check != "mutex" {
		t.Fatalf("violations %v; want the mutex check to find two holders", run.o.Violations)
	}
	if !strings.Contains(run.o.Violations[0].Message, "c1") || !strings.Contains(run.o.Violations[0].Message, "c2") {
		t.Fatalf("the violation names not both holders: %s", run.o.Violations[0].Message)
	}
	again := runGoZKLock(t, 1, sched, goZKLock, opt)
	if again.o == nil || again.o.Result.Hash != run.o.Result.Hash {
		t.Fatalf("the same seed ran to hashes %x and %x", run.o.Result.Hash, again.o.Result.Hash)
	}
}
