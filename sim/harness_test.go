package sim

import (
	"bytes"
	"context"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// acl is the open ACL every test node gets.
var acl = zk.WorldACL(zk.PermAll)

// body is one client's code in a test world.
type body = func(ctx context.Context, c client.Conn) error

// run builds a world from cfg, spawns one client per body, runs it and
// fails the test if the run failed. It returns the world and its result.
func run(t testing.TB, cfg Config, bodies ...body) (*World, Result) {
	t.Helper()
	w, res := runAllowingFailure(t, cfg, bodies...)
	if res.Err != nil {
		var buf bytes.Buffer
		w.Trace().WriteTo(&buf)
		t.Fatalf("run failed: %v\ntrace:\n%s", res.Err, buf.String())
	}
	return w, res
}

// runAllowingFailure is run without failing the test on a failed run.
func runAllowingFailure(t testing.TB, cfg Config, bodies ...body) (*World, Result) {
	t.Helper()
	cfg.KeepTrace = true
	w, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bodies {
		w.Spawn("", b)
	}
	return w, w.Run()
}

// must fails the client (and so the run) on err.
func must(err error) {
	if err != nil {
		panic(err)
	}
}
