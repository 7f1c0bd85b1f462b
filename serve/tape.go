package serve

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/sim"
)

// The tape of a served run: every connection opened and closed and every
// frame in and out, each with the virtual time the loop handed it to the
// world (or, for a frame out, the world wrote it) and its connection. It
// is JSON lines: a header saying what was served, one line per event, and
// an end line with the run's trace hash:
//
//	{"zksim_tape":1,"config":{...},"faults":"at 2s crash s1","pause":true}
//	{"t":1203400,"conn":1,"server":0,"ev":"open"}
//	{"t":1203400,"conn":1,"ev":"in","frame":"0000002c…"}
//	{"t":1571800,"conn":1,"ev":"out","frame":"00000024…"}
//	{"t":1650000,"conn":1,"ev":"gone"}
//	{"t":9000000000,"ev":"end","hash":"6f0c…"}
//
// A frame is its bytes in hex, without its length prefix. Replaying the
// tape (Replay) hands the world the same opens, frames in and closes at
// the same virtual times: the server side is rebuilt exactly, which the
// frames out and the hash, compared as it goes, confirm.

// tapeVersion is the tape format's version, in its header.
const tapeVersion = 1

// tapeHeader is a tape's first line.
type tapeHeader struct {
	Version int        `json:"zksim_tape"`
	Config  sim.Config `json:"config"`
	Faults  string     `json:"faults,omitempty"`
	// Pause says pauses were carried out on real processes: a replay
	// records them the same way.
	Pause bool `json:"pause,omitempty"`
	// Name and Checks are what the run was served as and judged by, for
	// the replay to judge it again (the front end does not judge).
	Name    string          `json:"name,omitempty"`
	Kind    string          `json:"kind,omitempty"`
	Checks  []string        `json:"checks,omitempty"`
	Judging json.RawMessage `json:"judging,omitempty"`
	Clients int             `json:"clients,omitempty"`
}

// tapeEvent is one line after the header.
type tapeEvent struct {
	T      sim.Time `json:"t"`
	Conn   int      `json:"conn,omitempty"`
	Server *int     `json:"server,omitempty"`
	As     int      `json:"as,omitempty"`
	Ev     string   `json:"ev"`
	Frame  string   `json:"frame,omitempty"`
	Line   string   `json:"line,omitempty"` // a recipe event's
	Hash   string   `json:"hash,omitempty"`
}

// TapeWriter writes a tape to a file, whole or not at all: to a
// temporary file beside it, renamed into place when the run ends. A nil
// TapeWriter writes nothing.
type TapeWriter struct {
	path string
	tmp  *os.File
	buf  *bufio.Writer
	enc  *json.Encoder
	err  error
	hash uint64
}

// CreateTape starts the tape of a run served with opts at path.
func CreateTape(path string, opts Options) (*TapeWriter, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return nil, fmt.Errorf("tape: %w", err)
	}
	t := &TapeWriter{path: path, tmp: tmp, buf: bufio.NewWriter(tmp)}
	t.enc = json.NewEncoder(t.buf)
	cfg := opts.Config
	cfg.Source = nil
	t.put(tapeHeader{Version: tapeVersion, Config: cfg, Faults: opts.Faults.String(), Pause: opts.Pause != nil,
		Name: opts.Name, Kind: opts.Kind, Checks: opts.Checks, Judging: opts.Judging, Clients: opts.Clients})
	return t, t.err
}

func (t *TapeWriter) put(v any) {
	if t.err == nil {
		t.err = t.enc.Encode(v)
	}
}

func (t *TapeWriter) open(at sim.Time, p *peer) {
	if t != nil {
		server := p.server
		t.put(tapeEvent{T: at, Conn: p.id, Server: &server, As: p.as, Ev: "open"})
	}
}

func (t *TapeWriter) in(at sim.Time, p *peer, frame []byte) {
	if t != nil {
		t.put(tapeEvent{T: at, Conn: p.id, Ev: "in", Frame: hex.EncodeToString(frame)})
	}
}

func (t *TapeWriter) out(at sim.Time, p *peer, frame []byte) {
	if t != nil {
		t.put(tapeEvent{T: at, Conn: p.id, Ev: "out", Frame: hex.EncodeToString(frame)})
	}
}

func (t *TapeWriter) recipe(at sim.Time, line []byte) {
	if t != nil {
		t.put(tapeEvent{T: at, Ev: "recipe", Line: string(line)})
	}
}

func (t *TapeWriter) gone(at sim.Time, p *peer) {
	if t != nil {
		t.put(tapeEvent{T: at, Conn: p.id, Ev: "gone"})
	}
}

// end writes the end line, with the run's hash.
func (t *TapeWriter) end(at sim.Time, hash uint64) {
	if t != nil {
		t.put(tapeEvent{T: at, Ev: "end", Hash: fmt.Sprintf("%016x", hash)}) // as zksim replay --hash prints it
	}
}

// close finishes the tape: flushed, synced and renamed into place; on an
// error the temporary file is removed and nothing is left at the path.
func (t *TapeWriter) close() error {
	if t == nil {
		return nil
	}
	if t.err == nil {
		t.err = t.buf.Flush()
	}
	if t.err == nil {
		t.err = t.tmp.Sync()
	}
	if t.err == nil {
		t.err = t.tmp.Chmod(0o644) // a temporary file is made 0600; a tape is to be read
	}
	if err := t.tmp.Close(); t.err == nil {
		t.err = err
	}
	if t.err == nil {
		t.err = os.Rename(t.tmp.Name(), t.path)
	}
	if t.err != nil {
		os.Remove(t.tmp.Name())
		return fmt.Errorf("tape %s: %w", t.path, t.err)
	}
	return nil
}

// Replayed is what a replay of a tape rebuilt.
type Replayed struct {
	// World is the world as the replay left it (its trace kept).
	World  *sim.World
	Result sim.Result
	// Hash is the hash the tape recorded; Result.Hash is the replay's.
	Hash uint64
	// Name, Checks, Judging and Faults are what the run was served as,
	// judged by and with, and struck with (Options').
	Name    string
	Kind    string
	Checks  []string
	Judging json.RawMessage
	Faults  fault.Schedule
	// Ops are what the clients recorded (recipe events), as the run had
	// them.
	Ops []RecipeOp
}

// Replay rebuilds a served run's server side from its tape: the same
// world, handed the same events at the same virtual times. It fails if a
// frame the replay writes differs from the tape's, or the hash does.
func Replay(r io.Reader) (*Replayed, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 1
	if !sc.Scan() {
		return nil, fmt.Errorf("tape: empty (%v)", sc.Err())
	}
	var h tapeHeader
	if err := json.Unmarshal(sc.Bytes(), &h); err != nil || h.Version != tapeVersion {
		return nil, fmt.Errorf("tape line 1: not a zksim tape of version %d (%v)", tapeVersion, err)
	}
	f, err := replayFront(h)
	if err != nil {
		return nil, fmt.Errorf("tape line 1: %w", err)
	}
	rp := &replayer{f: f, peers: map[int]*peer{}}
	for sc.Scan() {
		line++
		var ev tapeEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return nil, fmt.Errorf("tape line %d: %w", line, err)
		}
		if err := rp.take(ev); err != nil {
			return nil, fmt.Errorf("tape line %d: %w", line, err)
		}
		if rp.ended {
			break
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("tape line %d: %w", line+1, err)
	}
	if !rp.ended {
		return nil, fmt.Errorf("tape: no end line after line %d (the run was not finished)", line)
	}
	res := f.w.Finish()
	out := &Replayed{World: f.w, Result: res, Hash: rp.hash, Name: h.Name, Kind: h.Kind, Checks: h.Checks, Judging: h.Judging,
		Faults: f.opts.Faults, Ops: f.recipeOps}
	if res.Hash != rp.hash {
		return out, fmt.Errorf("tape: the replay's hash is %016x, the tape's %016x (a tape replays exactly on the zksim that wrote it: was it another version?)", res.Hash, rp.hash)
	}
	return out, nil
}

// replayFront is the front end a tape's header describes, begun, with
// no listener: the replay hands it what the tape says.
func replayFront(h tapeHeader) (*Front, error) {
	sched, err := fault.ParseSchedule(h.Faults)
	if err != nil {
		return nil, err
	}
	opts := Options{Config: h.Config, Faults: sched, Clients: h.Clients}
	if h.Pause {
		opts.Pause = func(string, []Ends, time.Duration) {}
	}
	f, err := New(opts)
	if err != nil {
		return nil, err
	}
	f.replaying = true
	f.w.Begin()
	return f, nil
}
