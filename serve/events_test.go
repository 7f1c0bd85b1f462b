package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/zksim/zksim/sim"
)

// eventsClient writes recipe events' lines and reads their answers.
type eventsClient struct {
	t  *testing.T
	nc net.Conn
	r  *bufio.Reader
}

func (c *eventsClient) send(line string) eventAnswer {
	c.t.Helper()
	if _, err := fmt.Fprintln(c.nc, line); err != nil {
		c.t.Fatal(err)
	}
	text, err := c.r.ReadString('\n')
	if err != nil {
		c.t.Fatal(err)
	}
	var a eventAnswer
	if err := json.Unmarshal([]byte(text), &a); err != nil {
		c.t.Fatal(err)
	}
	return a
}

// A client's recorded operations are its session's client's, on the
// world's clock; a return may say what its call became (a withdrawal);
// a line the front end cannot take is answered with why;
// the tape keeps them, and its replay rebuilds them.
func TestRecipeEventsAreRecordedAndReplayed(t *testing.T) {
	tape := filepath.Join(t.TempDir(), "run.tape")
	opts := Options{Config: sim.Config{Seed: 2}}
	var err error
	if opts.Tape, err = CreateTape(tape, opts); err != nil {
		t.Fatal(err)
	}
	f, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ops := runWithEvents(t, f, func(addrs []string, ev *eventsClient) {
		c1, c2 := connectGoZK(t, addrs), connectGoZK(t, addrs)
		defer c1.Close()
		defer c2.Close()
		call := ev.send(fmt.Sprintf(`{"call": "acquire", "session": %d, "path": "/lock"}`, c2.SessionID()))
		if call.ID != 1 || call.Error != "" {
			t.Fatalf("a call answered %+v", call)
		}
		if a := ev.send(`{"return": 1, "result": "ok", "token": 7}`); a.Error != "" || a.At < call.At {
			t.Fatalf("a return answered %+v (the call at %s)", a, call.At)
		}
		// c1's acquire given up: a withdrawal, as its return says.
		ev.send(fmt.Sprintf(`{"call": "acquire", "session": %d, "path": "/lock"}`, c1.SessionID()))
		if a := ev.send(`{"return": 2, "result": "ok", "as": "withdraw"}`); a.Error != "" {
			t.Fatalf("a withdrawal's return answered %+v", a)
		}
		for line, why := range map[string]string{
			`{"return": 1}`: "a second return", `{"call": "acquire", "session": 12345, "path": "/lock"}`: "an unknown session",
			`{"instant": "use"}`: "no session", `not json`: "not JSON",
		} {
			if a := ev.send(line); a.Error == "" {
				t.Errorf("%s (%s) was taken: %+v", line, why, a)
			}
		}
	})
	if len(ops) != 2 || ops[0].Client != 1 || ops[0].Kind != "acquire" || ops[0].Result != "ok" || ops[0].Token != 7 ||
		ops[1].Client != 0 || ops[1].Kind != "withdraw" || ops[1].Result != "ok" {
		t.Fatalf("recorded %+v; want c2's acquire, ok, token 7, and c1's withdrawal", ops)
	}
	fh, err := os.Open(tape)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	r, err := Replay(fh)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Ops) != 2 || r.Ops[0] != ops[0] || r.Ops[1] != ops[1] {
		t.Fatalf("the replay rebuilt %+v; the run recorded %+v", r.Ops, ops)
	}
}

// runWithEvents runs f on 127.0.0.1 with its events socket while body
// runs, and returns what the clients recorded.
func runWithEvents(t *testing.T, f *Front, body func(addrs []string, ev *eventsClient)) []RecipeOp {
	t.Helper()
	addrs, err := f.Listen()
	if err != nil {
		t.Fatal(err)
	}
	events, err := f.ListenEvents()
	if err != nil {
		t.Fatal(err)
	}
	nc, err := net.Dial("tcp", events)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := f.Run(ctx); done <- err }()
	body(addrs, &eventsClient{t: t, nc: nc, r: bufio.NewReader(nc)})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	return f.RecipeOps()
}
