package scenarios

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/recipes"
)

// flakyLock is a user's lock whose Lock fails the first time it is called
// (its connection lost, an error a caller must expect) and whose Unlock
// always fails with an error of its own.
type flakyLock struct {
	inner  recipes.Locker
	calls  int
	unlock error
}

func (l *flakyLock) Lock(ctx context.Context) (*recipes.Lease, error) {
	if l.calls++; l.calls == 1 {
		return nil, zk.ErrConnectionClosed
	}
	return l.inner.Lock(ctx)
}

func (l *flakyLock) Unlock(ctx context.Context) error {
	_ = l.inner.Unlock(ctx)
	return l.unlock
}

// The history says what the user's code did: a Lock that returned an error
// is there, failed, with its error, and the workload's retry after it; an
// Unlock that returned an error is a failed release, called when Unlock
// was called; and one client alone whose Unlock fails breaks no mutual
// exclusion (it once got "none gets past c1's release → pending").
func TestHistorySaysWhatTheUsersCodeDid(t *testing.T) {
	impl := recipes.Implementation{Locker: func(conn client.Conn, path string) recipes.Locker {
		return &flakyLock{inner: recipes.NewLock(conn, path), unlock: errors.New("could not tidy up")}
	}}
	o, err := Run(Spec{Kind: "lock", Clients: 1, Impl: &impl, Faults: nil}, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var acquires, releases []models.Operation
	for _, op := range o.Input.Ops {
		switch op.Kind {
		case models.Acquire:
			acquires = append(acquires, op)
		case models.Release:
			releases = append(releases, op)
		}
	}
	if len(acquires) < 2 || acquires[0].Result != models.Failed || !strings.Contains(acquires[0].Error, "connection closed") ||
		acquires[1].Result != models.OK || acquires[1].Call < acquires[0].Return {
		t.Fatalf("acquires %+v: want the failed Lock, with its error, then the retry", acquires)
	}
	if len(releases) != 1 || releases[0].Result != models.Failed || releases[0].Error != "could not tidy up" {
		t.Fatalf("releases %+v: want the failed Unlock, with its error", releases)
	}
	var uses []models.Operation
	for _, op := range o.Input.Ops {
		if op.Kind == models.Use {
			uses = append(uses, op)
		}
	}
	if len(uses) == 0 || releases[0].Call < uses[len(uses)-1].Return {
		t.Fatalf("the release called at %d, before the holder's last use (%+v): want when Unlock was called", releases[0].Call, uses)
	}
	for _, v := range o.Violations {
		if v.Kind == models.Safety && v.Check != "client" {
			t.Errorf("one client alone broke %s: %s", v.Check, v.Message)
		}
	}
	if len(o.Violations) == 0 || !strings.Contains(o.Violations[0].Message, "could not tidy up") {
		t.Errorf("violations %v: want the client's failure, with Unlock's error", o.Violations)
	}
}
