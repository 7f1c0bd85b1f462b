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

// python runs clients processes of a Python program of this package.
func python(program string, clients int) func(string, string) string {
	return func(_, args string) string {
		return fmt.Sprintf(`cd %s && export PYTHONDONTWRITEBYTECODE=1 && for i in $(seq %d); do ZKSIM_CLIENT=$i %s %s %s & sleep 0.3; done; wait`,
			filepath.Join(Dir(), "python"), clients, Python, program, args)
	}
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
	}
}
