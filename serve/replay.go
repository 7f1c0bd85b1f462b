package serve

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strconv"
)

// replayer hands a tape's events to a front end with no client: the
// frames the replay writes are kept (Front.written) and checked against
// the tape's, in order.
type replayer struct {
	f     *Front
	peers map[int]*peer
	ended bool
	hash  uint64
}

// take hands one tape event to the world, at its virtual time.
func (r *replayer) take(ev tapeEvent) error {
	f := r.f
	if ev.T < f.now {
		return fmt.Errorf("event at %s, before the one above it (%s)", ev.T, f.now)
	}
	f.now = ev.T
	if err := f.w.RunUntil(f.now); err != nil {
		return err
	}
	switch ev.Ev {
	case "open":
		if ev.Server == nil || *ev.Server < 0 || *ev.Server >= f.servers {
			return fmt.Errorf("open: no server %v in an ensemble of %d", ev.Server, f.servers)
		}
		p := newPeer(f, nil, *ev.Server)
		if ev.As < 0 || ev.As > len(f.named) {
			return fmt.Errorf("open: no client c%d among the %d made", ev.As, len(f.named))
		}
		p.as = ev.As
		f.opened(p)
		if p.id != ev.Conn {
			return fmt.Errorf("open: the replay numbers this connection %d, the tape %d", p.id, ev.Conn)
		}
		r.peers[p.id] = p
	case "in", "gone":
		p := r.peers[ev.Conn]
		if p == nil {
			return fmt.Errorf("%s: no connection %d opened above", ev.Ev, ev.Conn)
		}
		if ev.Ev == "gone" {
			f.gone(p)
			return nil
		}
		frame, err := hex.DecodeString(ev.Frame)
		if err != nil {
			return fmt.Errorf("in: frame: %w", err)
		}
		f.arrived(p, frame)
	case "out":
		return r.check(ev)
	case "recipe":
		f.recipe([]byte(ev.Line))
	case "end":
		h, err := strconv.ParseUint(ev.Hash, 16, 64)
		if err != nil {
			return fmt.Errorf("end: hash %q: %w", ev.Hash, err)
		}
		r.hash, r.ended = h, true
	default:
		return fmt.Errorf("unknown event %q", ev.Ev)
	}
	return nil
}

// check compares the next frame the replay wrote with the tape's.
func (r *replayer) check(ev tapeEvent) error {
	f := r.f
	if len(f.written) == 0 {
		return fmt.Errorf("out: the tape has a frame for connection %d that the replay did not write", ev.Conn)
	}
	got := f.written[0]
	f.written = f.written[1:]
	want, err := hex.DecodeString(ev.Frame)
	if err != nil {
		return fmt.Errorf("out: frame: %w", err)
	}
	if got.conn != ev.Conn || !bytes.Equal(got.frame, want) {
		return fmt.Errorf("out: the replay wrote %x on connection %d, the tape %x on %d", got.frame, got.conn, want, ev.Conn)
	}
	return nil
}

// writtenFrame is a frame a replay wrote, and on which connection.
type writtenFrame struct {
	conn  int
	frame []byte
}

// sent puts a frame written to p on the tape and, in a replay, keeps it
// to check against the tape's.
func (f *Front) sent(p *peer, frame []byte) {
	f.opts.Tape.out(f.w.Now(), p, frame)
	if f.replaying {
		f.written = append(f.written, writtenFrame{p.id, frame})
	}
}
