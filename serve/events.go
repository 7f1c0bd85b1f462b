package serve

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/zksim/zksim/sim"
)

// Recipe events: what each client believed ("I hold the lock", "I took
// item X"), which the servers cannot see. A client records an operation's
// call before it calls the recipe and its return after, on a 127.0.0.1
// socket of the front end (Front.ListenEvents; zksim serve gives its
// address as ZKSIM_EVENTS), one JSON object a line, each answered by one
// line before the client goes on, so that the order they were recorded in
// is the order they happened in, on the world's clock:
//
//	→ {"call": "acquire", "session": 72057594037927937, "path": "/zksim/lock"}
//	← {"id": 1, "at": 1203400}
//	→ {"return": 1, "result": "ok", "token": 3}
//	← {"at": 1571800}
//	→ {"instant": "use", "session": 72057594037927937, "path": "/zksim/lock", "token": 3}
//	← {"at": 2571800}
//
// "session" is the client's ZooKeeper session id (a number, or "0x…"): the
// operation is that session's client's (cN, as the faults name it). A
// call's fields are an operation's in a history (models.Operation): "path",
// "data", "token", "shared", "priority"; a return's "result" (ok, failed,
// unknown, no-node, node-exists, bad-version, not-empty, rejected),
// "error", "out" (the data read or taken) and "token". An answer with
// "error" refuses the line (a session the servers never opened, a return
// of no call). A return may say what the call turned out to be, "as": a
// candidate's acquire given up after a while is a withdrawal,
//
//	→ {"return": 4, "result": "ok", "as": "withdraw"}
//
// as zksim's own election workload records one (it left, and comes back
// later; not an acquire that failed). The events go on the tape with the frames, so a replay
// rebuilds them too.

// RecipeOp is one operation a client recorded, on the world's clock.
type RecipeOp struct {
	Client   int // the session's client, 0 for c1
	Kind     string
	Path     string
	Data     string
	Token    int64
	Shared   bool
	Priority int
	Result   string // "" while pending
	Error    string
	Out      string
	Call     sim.Time
	Return   sim.Time
}

// eventLine is a line a client sends.
type eventLine struct {
	Call     string          `json:"call,omitempty"`
	Instant  string          `json:"instant,omitempty"`
	Return   int             `json:"return,omitempty"`
	Session  json.RawMessage `json:"session,omitempty"`
	Path     string          `json:"path,omitempty"`
	Data     string          `json:"data,omitempty"`
	Token    int64           `json:"token,omitempty"`
	Shared   bool            `json:"shared,omitempty"`
	Priority int             `json:"priority,omitempty"`
	Result   string          `json:"result,omitempty"`
	Error    string          `json:"error,omitempty"`
	Out      string          `json:"out,omitempty"`
	As       string          `json:"as,omitempty"`
}

// eventAnswer is the line a client is answered with.
type eventAnswer struct {
	ID    int      `json:"id,omitempty"`
	At    sim.Time `json:"at"`
	Error string   `json:"error,omitempty"`
}

// ListenEvents opens the recipe events' socket on 127.0.0.1 and returns
// its address.
func (f *Front) ListenEvents() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("serve: listening for recipe events: %w", err)
	}
	f.mu.Lock()
	f.listeners = append(f.listeners, l)
	f.mu.Unlock()
	go func() {
		for {
			nc, err := l.Accept()
			if err != nil {
				return
			}
			go f.readEvents(nc)
		}
	}()
	return l.Addr().String(), nil
}

// readEvents hands each line of one events connection to the loop, and
// writes back the loop's answer before it reads the next.
func (f *Front) readEvents(nc net.Conn) {
	defer nc.Close()
	sc := bufio.NewScanner(nc)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		ev := event{kind: evRecipe, frame: append([]byte(nil), sc.Bytes()...), answer: make(chan []byte, 1)}
		select {
		case f.events <- ev:
		case <-f.done:
			return
		}
		var ans []byte
		select {
		case ans = <-ev.answer:
		case <-f.done:
			return
		}
		if _, err := nc.Write(append(ans, '\n')); err != nil {
			return
		}
	}
}

// recipe records one line of recipe events, now, and says what to answer.
func (f *Front) recipe(line []byte) []byte {
	ans := f.recordEvent(line)
	ans.At = f.now
	out, _ := json.Marshal(ans)
	return out
}

// recordEvent records a line's operation, or says why it cannot.
func (f *Front) recordEvent(line []byte) eventAnswer {
	var l eventLine
	if err := json.Unmarshal(line, &l); err != nil {
		return eventAnswer{Error: "not an event: " + err.Error()}
	}
	if l.Return > 0 {
		return f.recordReturn(l)
	}
	kind := l.Call + l.Instant
	if kind == "" || l.Call != "" && l.Instant != "" {
		return eventAnswer{Error: `want one of "call", "instant" or "return"`}
	}
	c, err := f.sessionClient(l.Session)
	if err != nil {
		return eventAnswer{Error: err.Error()}
	}
	op := RecipeOp{Client: c, Kind: kind, Path: l.Path, Data: l.Data, Token: l.Token, Shared: l.Shared, Priority: l.Priority,
		Call: f.now}
	if l.Instant != "" {
		op.Result, op.Return, op.Out = resultOf(l.Result), f.now, l.Out
	}
	f.recipeOps = append(f.recipeOps, op)
	return eventAnswer{ID: len(f.recipeOps)}
}

// recordReturn records the return of the call l names.
func (f *Front) recordReturn(l eventLine) eventAnswer {
	if l.Return > len(f.recipeOps) || f.recipeOps[l.Return-1].Result != "" {
		return eventAnswer{Error: fmt.Sprintf("return of %d: no call of that id awaits its return", l.Return)}
	}
	op := &f.recipeOps[l.Return-1]
	op.Result, op.Error, op.Out, op.Return = resultOf(l.Result), l.Error, l.Out, f.now
	if l.Token != 0 {
		op.Token = l.Token
	}
	if l.As != "" {
		op.Kind = l.As
	}
	return eventAnswer{}
}

// sessionClient is the client whose session a line names.
func (f *Front) sessionClient(raw json.RawMessage) (int, error) {
	s := strings.Trim(string(raw), `"`)
	id, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		u, uerr := strconv.ParseUint(s, 0, 64)
		if uerr != nil {
			return 0, fmt.Errorf("session %s: want the client's session id (a number, or 0x…)", raw)
		}
		id = int64(u)
	}
	o := f.owners[id]
	if o == nil {
		return 0, fmt.Errorf("session %#x: no session the servers opened", id)
	}
	return o.Index(), nil
}

// resultOf is a line's result as a history has it: lower case, ok when
// the line gives none.
func resultOf(r string) string {
	if r == "" {
		return "ok"
	}
	return strings.ToLower(r)
}

// RecipeOps are the operations the clients recorded; read them once Run
// has returned.
func (f *Front) RecipeOps() []RecipeOp { return f.recipeOps }
