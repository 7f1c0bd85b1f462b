package harness

import (
	"fmt"
	"path/filepath"
)

// The table of library recipes zksim judges: each recipe, unmodified, as
// a small program of this package run by zksim serve under a built-in
// scenario of its kind, with the schedules it is tried under. make
// libraries runs the whole table; make test runs each recipe once,
// without faults.

// Recipe is one library recipe and how it is run.
type Recipe struct {
	Library  string // "kazoo 2.8", "Curator 5.4"
	Name     string // the recipe's class or function: "Lock", "InterProcessMutex"
	Promise  string // what it promises, in a few words
	Scenario string // the built-in scenario it is served as (its kind's checks judge it)
	Clients  int
	// command is the shell command that runs the clients (one process
	// each, or the JVM's threads), args given to each.
	command func(classes, args string) string
	// Args are the program's arguments under no fault: a short run.
	Args string
	// Trials are the schedules it is tried under (make libraries).
	Trials []Trial
}

// Trial is a schedule a recipe is tried under, and the program's
// arguments for it (a hold long enough for the schedule to matter).
type Trial struct {
	Faults string
	Args   string
	// Why is what the schedule tries, for the table.
	Why string
}

// Command is the shell command that runs r's clients with args, the
// compiled Java (CompileJava) in classes.
func (r Recipe) Command(classes, args string) string { return r.command(classes, args) }

// python runs clients processes of a Python program of this package,
// each its number in ZKSIM_CLIENT and ended after giveUp seconds if it
// still runs (a recipe whose clients wait for each other for ever).
func python(program string, clients int) func(string, string) string {
	return func(_, args string) string {
		return fmt.Sprintf(`cd %s && export PYTHONDONTWRITEBYTECODE=1 && for i in $(seq %d); do ZKSIM_CLIENT=$i timeout %d %s %s %s & sleep 0.3; done; wait`,
			filepath.Join(Dir(), "python"), clients, giveUp, Python, program, args)
	}
}

// giveUp is how long, in seconds, a library's client may run.
const giveUp = 120

// jvm runs a Java program of this package whose clients are the JVM's
// threads (CuratorClients), ended after giveUp seconds if it still runs.
func jvm(class string) func(string, string) string {
	return func(classes, args string) string {
		return fmt.Sprintf(`timeout %d java -cp %s %s %s`, giveUp, Classpath(classes), class, args)
	}
}

// failover tries a recipe across a leader's crash and the election after
// it, while its clients work.
var failover = Trial{Faults: "at 1s crash leader for 3s", Why: "the leader crashes while the clients work"}

// also is r with more trials, each with r's arguments: the schedules
// found to break it (README explains each).
func (r Recipe) also(trials ...Trial) Recipe {
	for _, t := range trials {
		t.Args = r.Args
		r.Trials = append(r.Trials, t)
	}
	return r
}

// lostReply is the trial of a lost reply to a client's request.
func lostReply(when string) Trial {
	return Trial{Faults: "when " + when + " applied: lose-reply", Why: "the reply to " + when + " lost"}
}

// kinds are, for a recipe of each other kind, its row: what it promises,
// its scenario and clients, and its arguments (one set, for every trial).
func kinds(lib, name, promise, scenario string, clients int, command func(string, string) string, args string) Recipe {
	return Recipe{Library: lib, Name: name, Promise: promise, Scenario: scenario, Clients: clients, command: command, Args: args,
		Trials: []Trial{{Faults: "none", Args: args, Why: "contention"}, {Faults: failover.Faults, Args: args, Why: failover.Why}}}
}

// java runs clients JVMs of a Java program of this package.
func java(class string, clients int) func(string, string) string {
	return func(classes, args string) string {
		return fmt.Sprintf(`for i in $(seq %d); do java -cp %s %s %s & sleep 0.3; done; wait`, clients, Classpath(classes), class, args)
	}
}

// cutOff is the schedule that tries a holder cut off from the ensemble
// past its session timeout (kazoo asks for 10s) while it holds: the
// session expires on the servers, and the next client takes over.
// Curator asks for 60s, which the servers cap at 40s (twenty ticks):
// curatorCutOff outlasts that.
var (
	cutOff        = Trial{Faults: "at 1s disconnect c1 for 14s", Why: "c1 cut off past its session timeout (10s) while it holds"}
	curatorCutOff = Trial{Faults: "at 1s disconnect c1 for 45s", Why: "c1 cut off past its session timeout (40s) while it holds"}
)

// Recipes is the table.
func Recipes() []Recipe {
	return []Recipe{
		{Library: "kazoo 2.8", Name: "Lock", Promise: "one holder at a time", Scenario: "lock-contention", Clients: 3,
			command: python("kazoo_lock.py", 3), Args: "2 1 0.25",
			Trials: []Trial{{Faults: "none", Args: "3 1 0.25", Why: "contention"},
				{Faults: cutOff.Faults, Args: "1 14 1", Why: cutOff.Why}}},
		{Library: "Curator 5.4", Name: "InterProcessMutex", Promise: "one holder at a time", Scenario: "lock-contention", Clients: 3,
			command: java("CuratorMutex", 3), Args: "2 1000 250",
			Trials: []Trial{{Faults: "none", Args: "3 1000 250", Why: "contention"},
				{Faults: curatorCutOff.Faults, Args: "1 48000 2000", Why: curatorCutOff.Why}}},
		kinds("kazoo 2.8", "Semaphore", "at most N holders", "semaphore-contention", 5, python("kazoo_semaphore.py", 5), "2 1 0.25 3"),
		kinds("kazoo 2.8", "ReadLock/WriteLock", "readers share, a writer alone", "shared-lock-faults", 4,
			python("kazoo_rwlock.py", 4), "2 2 1 0.25"),
		kinds("kazoo 2.8", "Election", "one leader at a time", "election-faults", 3, python("kazoo_election.py", 3), "2 1 0.25"),
		kinds("kazoo 2.8", "Counter", "every add counted once", "counter-faults", 3, python("kazoo_counter.py", 3), "4 0.1").
			also(lostReply("c1 setData#1")),
		kinds("kazoo 2.8", "Queue", "every item taken once, in order", "queue-faults", 4, python("kazoo_queue.py", 4), "2 8 0.05 1 2"),
		kinds("kazoo 2.8", "LockingQueue", "every item taken once, in order", "queue-faults", 4,
			python("kazoo_locking_queue.py", 4), "2 8 0.05 1 2"),
		kinds("kazoo 2.8", "DoubleBarrier", "all enter together, all leave together", "double-barrier-faults", 3,
			python("kazoo_double_barrier.py", 3), "3 3 0.1 1").also(lostReply("c2 delete#2")),
		kinds("kazoo 2.8", "Party", "every view converges on the members", "membership-faults", 4, python("kazoo_party.py", 4),
			"4 1 2 0.05 0.5 1 30").also(Trial{Faults: "at 2s expire c2", Why: "c2's session expires"}),
		kinds("Curator 5.4", "InterProcessSemaphoreV2", "at most N holders", "semaphore-contention", 5, jvm("CuratorSemaphore"), "5 3 3 3 50"),
		kinds("Curator 5.4", "InterProcessReadWriteLock", "readers share, a writer alone", "shared-lock-faults", 4,
			jvm("CuratorReadWriteLock"), "4 3 3 50"),
		kinds("Curator 5.4", "LeaderLatch", "one leader at a time", "election-faults", 4, jvm("CuratorLeaderLatch"), "4 4 3 50"),
		kinds("Curator 5.4", "LeaderSelector", "one leader at a time", "election-faults", 4, jvm("CuratorLeaderSelector"), "4 4 3 50"),
		kinds("Curator 5.4", "SharedCount", "every add counted once", "counter-faults", 4, jvm("CuratorSharedCount"), "4 4 10").
			also(lostReply("c1 setData#1")),
		kinds("Curator 5.4", "DistributedAtomicLong", "every add counted once", "counter-faults", 4, jvm("CuratorAtomicLong"), "4 4 10").
			also(lostReply("c1 setData#1")),
		kinds("Curator 5.4", "DistributedQueue", "every item taken once, in order", "queue-faults", 4, jvm("CuratorQueue"), "4 8"),
		kinds("Curator 5.4", "DistributedDoubleBarrier", "all enter together, all leave together", "double-barrier-faults", 5,
			jvm("CuratorDoubleBarrier"), "5 3 10").also(lostReply("c1 create2#2")),
		kinds("Curator 5.4", "GroupMember", "every view converges on the members", "membership-faults", 6, jvm("CuratorGroupMember"), "6"),
	}
}
