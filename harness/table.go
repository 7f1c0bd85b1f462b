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
	// command, when set, runs the clients for this trial in place of the
	// recipe's (one JVM per client, so that a pause stops one).
	command func(classes, args string) string
}

// Command is the shell command that runs r's clients with args, the
// compiled Java (CompileJava) in classes.
func (r Recipe) Command(classes, args string) string { return r.command(classes, args) }

// TrialCommand is the shell command that runs r's clients for trial t.
func (r Recipe) TrialCommand(t Trial, classes string) string {
	if t.command != nil {
		return t.command(classes, t.Args)
	}
	return r.command(classes, t.Args)
}

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

// The trials, by what they try. A trial without arguments runs with its
// recipe's (Recipe.Args).
var (
	contention = Trial{Faults: "none", Why: "contention"}
	failover   = Trial{Faults: "at 1s crash leader for 3s", Why: "the leader crashes while the clients work"}
	// lagging leaves a follower applying nothing for 5s, serving reads
	// from what it had, while the clients work.
	lagging = Trial{Faults: "at 1s lag s2 for 5s", Why: "a follower lags 5s behind"}
)

// failoverWhen and laggingWhen are failover and lagging tied to a
// client's request, for programs whose work is over in about a second of
// the ensemble's clock, before a fault at 1s would strike.
func failoverWhen(when string) Trial {
	return Trial{Faults: "when " + when + " applied: crash leader for 3s", Why: "the leader crashes after " + when + ", while the clients work"}
}

func laggingWhen(when string) Trial {
	return Trial{Faults: "when " + when + " applied: lag s2 for 5s", Why: "a follower lags 5s behind from " + when}
}

// cutOff tries a holder cut off from the ensemble past its session
// timeout (kazoo's programs and CuratorClients ask for 10s) while it holds
// (args: a hold long enough): the servers expire its session, and the
// next client takes over.
func cutOff(args string) Trial {
	return Trial{Faults: "at 1s disconnect c1 for 14s", Args: args, Why: "c1 cut off past its session timeout (10s) while it holds"}
}

// paused tries a holder's process stopped past its session timeout while
// it holds, as a long collection pause stops it (zksim serve stops c1's
// process alone): the servers expire its session, the next client takes
// over, and c1 goes on where it stopped.
func paused(args string) Trial {
	return Trial{Faults: "at 1s pause c1 12s", Args: args, Why: "c1's process paused past its session timeout (10s) while it holds"}
}

// curatorCutOff and curatorPaused are cutOff and paused for Curator's
// mutex, whose session asks Curator's default, 60s, which the servers cap
// at 40s (twenty ticks).
func curatorCutOff(args string) Trial {
	return Trial{Faults: "at 1s disconnect c1 for 45s", Args: args,
		Why: "c1 cut off past its session timeout (it asks 60s, the servers grant 40s) while it holds"}
}

func curatorPaused(args string) Trial {
	return Trial{Faults: "at 1s pause c1 45s", Args: args, Why: "c1's process paused past its session timeout (40s granted) while it holds"}
}

// expired tries a member's session expiring under it.
var expired = Trial{Faults: "at 2s expire c2", Why: "c2's session expires"}

// lostReply is the trial of a lost reply to a client's request, args
// the program's ("": the recipe's).
func lostReply(when, args string) Trial {
	return Trial{Faults: "when " + when + " applied: lose-reply", Args: args, Why: "the reply to " + when + " lost"}
}

// also is r with more trials, those without arguments given r's.
func (r Recipe) also(trials ...Trial) Recipe {
	for _, t := range trials {
		if t.Args == "" {
			t.Args = r.Args
		}
		r.Trials = append(r.Trials, t)
	}
	return r
}

// kind is a recipe's row, tried under contention and across a leader's
// crash with args (its other trials added with also).
func kind(lib, name, promise, scenario string, clients int, command func(string, string) string, args string) Recipe {
	return quick(lib, name, promise, scenario, clients, command, args).also(failover)
}

// quick is a row tried under contention only, whose programs are done
// too soon for a fault at a time: its other trials tie theirs to a
// request (failoverWhen, laggingWhen).
func quick(lib, name, promise, scenario string, clients int, command func(string, string) string, args string) Recipe {
	r := Recipe{Library: lib, Name: name, Promise: promise, Scenario: scenario, Clients: clients, command: command, Args: args}
	return r.also(contention)
}

// jvms runs clients JVMs of a Java program of this package whose clients
// are CuratorClients, each JVM one of them (ZKSIM_CLIENT), ended after
// giveUp seconds if it still runs.
func jvms(class string, clients int) func(string, string) string {
	return func(classes, args string) string {
		return fmt.Sprintf(`for i in $(seq %d); do ZKSIM_CLIENT=$i timeout %d java -cp %s %s %s & sleep 0.3; done; wait`,
			clients, giveUp, Classpath(classes), class, args)
	}
}

// pausedApart is paused for a program of CuratorClients run one JVM per
// client (jvms), so that the pause stops c1 alone.
func pausedApart(class string, clients int, args string) Trial {
	t := paused(args)
	t.command, t.Why = jvms(class, clients), t.Why+" (one JVM per client)"
	return t
}

// java runs clients JVMs of a Java program of this package.
func java(class string, clients int) func(string, string) string {
	return func(classes, args string) string {
		return fmt.Sprintf(`for i in $(seq %d); do java -cp %s %s %s & sleep 0.3; done; wait`, clients, Classpath(classes), class, args)
	}
}

// Recipes is the table: every recipe under contention and across a
// leader's crash, and under its kind's other trials: a holder (of a lock,
// a lease, leadership) cut off and paused past its session timeout; a
// counter's and a membership's reads from a lagging follower; a
// membership's member expiring; lost replies where a retry must tell its
// own earlier write (every schedule README explains a break under).
// Curator's holders other than the mutex are threads of one JVM, which a
// pause stops whole: they are paused run one JVM per client.
func Recipes() []Recipe {
	const kz, cu = "kazoo 2.8", "Curator 5.4"
	return []Recipe{
		kind(kz, "Lock", "one holder at a time", "lock-contention", 3, python("kazoo_lock.py", 3), "3 1 0.25").
			also(cutOff("1 14 1"), paused("1 14 1")),
		kind(cu, "InterProcessMutex", "one holder at a time", "lock-contention", 3, java("CuratorMutex", 3), "3 1000 250").
			also(curatorCutOff("1 48000 2000"), curatorPaused("1 48000 2000")),
		// The locks' holders as their documentation asks them to be:
		// listening for the connection's state, they stop using what the
		// lock protects once SUSPENDED or LOST is reported. That helps
		// when the holder is cut off, not when its process is paused: it
		// uses the resource again before it hears of anything.
		{Library: kz, Name: "Lock, its holder listening (careful)", Promise: "one holder at a time", Scenario: "lock-contention",
			Clients: 3, command: python("kazoo_lock.py", 3), Args: "1 14 1 careful",
			Trials: []Trial{cutOff("1 14 1 careful"), paused("1 14 1 careful")}},
		{Library: cu, Name: "InterProcessMutex, its holder listening (careful)", Promise: "one holder at a time",
			Scenario: "lock-contention", Clients: 3, command: java("CuratorMutex", 3), Args: "1 48000 2000 careful",
			Trials: []Trial{curatorCutOff("1 48000 2000 careful"), curatorPaused("1 48000 2000 careful")}},
		kind(kz, "Semaphore", "at most N holders", "semaphore-contention", 5, python("kazoo_semaphore.py", 5), "2 1 0.25 3").
			also(cutOff("1 14 1 3"), paused("1 14 1 3")),
		kind(kz, "ReadLock/WriteLock", "readers share, a writer alone", "shared-lock-faults", 4,
			python("kazoo_rwlock.py", 4), "2 2 1 0.25").also(cutOff("2 1 14 1"), paused("2 1 14 1")),
		kind(kz, "Election", "one leader at a time", "election-faults", 3, python("kazoo_election.py", 3), "2 1 0.25").
			also(cutOff("1 14 1"), paused("1 14 1"), lostReply("c1 create#1", ""), lostReply("c2 delete#1", "")),
		quick(kz, "Counter", "every add counted once", "counter-faults", 3, python("kazoo_counter.py", 3), "4 0.1").
			also(failoverWhen("c1 setData#2"), laggingWhen("c1 setData#1"), lostReply("c1 setData#1", "")),
		kind(kz, "Queue", "every item taken once, in order", "queue-faults", 4, python("kazoo_queue.py", 4), "2 8 0.05 1 2").
			also(lostReply("c1 delete#1", "1 8 0.05 1 2")),
		kind(kz, "LockingQueue", "every item taken once, in order", "queue-faults", 4,
			python("kazoo_locking_queue.py", 4), "2 8 0.05 1 2").also(lostReply("c1 create#5", "")),
		kind(kz, "DoubleBarrier", "all enter together, all leave together", "double-barrier-faults", 3,
			python("kazoo_double_barrier.py", 3), "3 3 0.1 1").also(lostReply("c2 delete#2", "")),
		kind(kz, "Party", "every view converges on the members", "membership-faults", 4, python("kazoo_party.py", 4),
			"4 1 2 0.05 0.5 1 30").also(lagging, expired),
		kind(cu, "InterProcessSemaphoreV2", "at most N holders", "semaphore-contention", 5, jvm("CuratorSemaphore"), "5 3 3 3 50").
			also(cutOff("5 3 1 16 1000"), pausedApart("CuratorSemaphore", 5, "5 3 1 16 1000")),
		kind(cu, "InterProcessReadWriteLock", "readers share, a writer alone", "shared-lock-faults", 4,
			jvm("CuratorReadWriteLock"), "4 3 3 50").also(cutOff("4 1 16 1000"), pausedApart("CuratorReadWriteLock", 4, "4 1 16 1000")),
		kind(cu, "LeaderLatch", "one leader at a time", "election-faults", 4, jvm("CuratorLeaderLatch"), "4 4 3 50").
			also(cutOff("4 1 16 1000"), pausedApart("CuratorLeaderLatch", 4, "4 1 16 1000")),
		kind(cu, "LeaderSelector", "one leader at a time", "election-faults", 4, jvm("CuratorLeaderSelector"), "4 4 3 50").
			also(cutOff("4 1 16 1000"), pausedApart("CuratorLeaderSelector", 4, "4 1 16 1000")),
		quick(cu, "SharedCount", "every add counted once", "counter-faults", 4, jvm("CuratorSharedCount"), "4 4 10").
			also(failoverWhen("c1 setData#2"), laggingWhen("c1 setData#1"), lostReply("c1 setData#1", "")),
		quick(cu, "DistributedAtomicLong", "every add counted once", "counter-faults", 4, jvm("CuratorAtomicLong"), "4 4 10").
			also(failoverWhen("c1 setData#2"), laggingWhen("c1 setData#1"), lostReply("c1 setData#1", "")),
		quick(cu, "DistributedQueue", "every item taken once, in order", "queue-faults", 4, jvm("CuratorQueue"), "4 8").
			also(failoverWhen("c1 delete#2"), lostReply("c1 delete#1", ""), lostReply("c3 create2#4", "")),
		quick(cu, "DistributedDoubleBarrier", "all enter together, all leave together", "double-barrier-faults", 5,
			jvm("CuratorDoubleBarrier"), "5 3 10").also(failoverWhen("c1 delete#1"), lostReply("c1 create2#2", "")),
		kind(cu, "GroupMember", "every view converges on the members", "membership-faults", 6, jvm("CuratorGroupMember"), "6").
			also(lagging, expired),
	}
}
