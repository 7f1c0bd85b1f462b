package sim

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/fault"
)

// go-zk's protected create: the name carries a guid of 32 hex digits,
// another for each call and each client; after a lost reply the node is
// found again by its guid rather than created twice.
func TestProtectedCreate(t *testing.T) {
	named := regexp.MustCompile(`^/p/_c_[0-9a-f]{32}-lock-[0-9]{10}$`)
	w, err := New(Config{Seed: 3, KeepTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	var kids []string
	body := func(ctx context.Context, c client.Conn) error {
		if c.(*Client).idx == 0 {
			_, err := c.Create(ctx, "/p", nil, 0, acl)
			must(err)
		} else {
			must(c.Sleep(ctx, 50_000_000))
		}
		for i := 0; i < 2; i++ {
			p, err := c.CreateProtectedEphemeralSequential(ctx, "/p/lock-", nil, acl)
			must(err)
			paths = append(paths, p)
		}
		if c.(*Client).idx == 0 {
			kids, _, err = c.Children(ctx, "/p")
			must(err)
			// Another session of the process draws another guid.
			n, err := c.NewSession(ctx)
			must(err)
			p, err := n.CreateProtectedEphemeralSequential(ctx, "/p/lock-", nil, acl)
			must(err)
			paths = append(paths, p)
		}
		return nil
	}
	w.Spawn("", body)
	w.Spawn("", body)
	sched, err := fault.ParseSchedule("when c1 create#2 applied: lose-reply")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Inject(sched); err != nil {
		t.Fatal(err)
	}
	if res := w.Run(); res.Err != nil {
		t.Fatal(res.Err)
	}
	var trace strings.Builder
	w.Trace().WriteTo(&trace)
	if !strings.Contains(trace.String(), "fault: when c1 create#2 applied: lose-reply") {
		t.Fatalf("the lost reply did not strike:\n%s", trace.String())
	}
	guids := map[string]bool{}
	for _, p := range paths {
		if !named.MatchString(p) {
			t.Errorf("%s: not a protected name", p)
		}
		guids[p[6:38]] = true
	}
	if len(guids) != 5 {
		t.Errorf("%d distinct guids among %v, want 5", len(guids), paths)
	}
	if len(kids) < 2 {
		t.Errorf("c1's children of /p: %v", kids)
	}
	if len(kids) > 4 {
		t.Errorf("the lost reply left an orphan: %v", kids)
	}
}
