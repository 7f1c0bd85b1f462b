package fault

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zksim/zksim/client"
)

// ParseSchedule reads a schedule: one fault a line (or separated by ';'),
// blank lines and lines starting with '#' ignored.
//
//	at 1.5s crash s2
//	at 3s restart s2
//	at 1s crash leader
//	at 2s partition s1 s3
//	at 2s partition c1 s2
//	at 2s isolate s1
//	at 4s heal s1 s3
//	at 5s heal
//	at 100ms pause c1 12s
//	at 1s spike 50ms for 2s
//	when c2 create#1 applied: lose-reply
//	when c2 create#1 applied: crash applier
//	when c1 delete#1 failed: lose-reply
//	at 2s disconnect c1 for 12s
//	at 3s expire c2
//	at 1s lag s2 for 3s
//	when c1 delete#1 received: lose-request
//	when c2 getChildren#2 applied: expire c2
//	when c2 notified#1: delay 2s
func ParseSchedule(text string) (Schedule, error) {
	var out Schedule
	lineNo := 0
	for _, line := range strings.Split(text, "\n") {
		lineNo++
		for _, part := range strings.Split(line, ";") {
			part = strings.TrimSpace(part)
			if part == "" || strings.HasPrefix(part, "#") {
				continue
			}
			f, err := parseFault(part)
			if err != nil {
				return nil, fmt.Errorf("line %d: %q: %w", lineNo, part, err)
			}
			out = append(out, f)
		}
	}
	return out, nil
}

// MustParseSchedule is ParseSchedule for a schedule known to be valid (a
// program's own, a test's): it panics on an error.
func MustParseSchedule(text string) Schedule {
	s, err := ParseSchedule(text)
	if err != nil {
		panic(err)
	}
	return s
}

func parseFault(s string) (Fault, error) {
	f, words, err := parseWhen(strings.Fields(s))
	if err != nil {
		return f, err
	}
	if len(words) == 0 {
		return f, fmt.Errorf("no fault named")
	}
	kind, ok := Kind(0), false
	for k, name := range faultNames {
		if name == words[0] {
			kind, ok = k, true
		}
	}
	if !ok {
		return f, fmt.Errorf("unknown fault %q; want one of %s", words[0], strings.Join(KindNames(), ", "))
	}
	f.Kind = kind
	return f, f.parseArgs(words[0], words[1:])
}

// parseWhen reads a fault's "at TIME" or "when ...:" and returns the
// words that follow.
func parseWhen(words []string) (Fault, []string, error) {
	var f Fault
	switch {
	case len(words) >= 2 && words[0] == "at":
		d, err := time.ParseDuration(words[1])
		if err != nil || d < 0 {
			return f, nil, fmt.Errorf("time %q: want a duration such as 1.5s or 200ms", words[1])
		}
		f.At = d
		words = words[2:]
	case len(words) >= 3 && words[0] == "when" && strings.HasSuffix(words[2], ":") &&
		(strings.HasPrefix(words[2], "notified#") || strings.HasPrefix(words[2], "holds#")):
		on := OnNotified
		if strings.HasPrefix(words[2], "holds#") {
			on = OnHolds
		}
		tr, err := parseTrigger(words[1], strings.TrimSuffix(words[2], ":"), on)
		if err != nil {
			return f, nil, err
		}
		f.When = &tr
		words = words[3:]
	case len(words) >= 4 && words[0] == "when" && (words[3] == "applied:" || words[3] == "received:" || words[3] == "failed:"):
		on := OnApplied
		switch words[3] {
		case "received:":
			on = OnReceived
		case "failed:":
			on = OnFailed
		}
		tr, err := parseTrigger(words[1], words[2], on)
		if err != nil {
			return f, nil, err
		}
		f.When = &tr
		words = words[4:]
	default:
		return f, nil, fmt.Errorf(`want "at TIME FAULT", "when cN OP#K applied: FAULT", "when cN OP#K failed: FAULT", "when cN OP#K received: FAULT", "when cN notified#K: FAULT" or "when cN holds#K: FAULT"`)
	}
	return f, words, nil
}

// parseArgs reads the targets and durations of a fault of kind name,
// into f.
// faultArgs are the words after a fault's name, being read into f.
type faultArgs struct {
	f    *Fault
	name string
	args []string
}

// target reads args[i] as a target of one of the allowed kinds.
func (a faultArgs) target(i int, allowed ...TargetKind) (Target, error) {
	if i >= len(a.args) {
		return Target{}, fmt.Errorf("%s: missing target", a.name)
	}
	t, err := parseTarget(a.args[i])
	if err != nil {
		return t, err
	}
	if !slices.Contains(allowed, t.Kind) {
		return t, fmt.Errorf("%s: target %s not allowed here", a.name, a.args[i])
	}
	if t.Kind == ApplierT && (a.f.When == nil || a.f.When.On == OnHolds) {
		return t, fmt.Errorf("%s applier: only a fault tied to a request or a notification has an applier", a.name)
	}
	return t, nil
}

// dur reads args[i] as a positive duration.
func (a faultArgs) dur(i int) (time.Duration, error) {
	if i >= len(a.args) {
		return 0, fmt.Errorf("%s: missing duration", a.name)
	}
	d, err := time.ParseDuration(a.args[i])
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s: duration %q: want a positive duration such as 12s", a.name, a.args[i])
	}
	return d, nil
}

func (f *Fault) parseArgs(name string, args []string) error {
	// "crash s1 for 2s", "partition c1 s2 for 3s", "isolate s1 for 3s":
	// undone after a while.
	if n := len(args); (f.Kind == Crash || f.Kind == Partition || f.Kind == OneWay || f.Kind == Isolate || f.Kind == Disconnect || f.Kind == Lag) && n >= 2 && args[n-2] == "for" {
		d, err := faultArgs{f, name, args}.dur(n - 1)
		if err != nil {
			return err
		}
		f.For, args = d, args[:n-2]
	}
	a := faultArgs{f, name, args}
	want, err := a.read()
	if err != nil {
		return err
	}
	if len(args) > want {
		return fmt.Errorf("%s: unexpected %q", name, strings.Join(args[want:], " "))
	}
	return nil
}

// read reads the targets and durations of f's kind, and says how many
// words they took.
func (a faultArgs) read() (want int, err error) {
	f := a.f
	target, dur, args := a.target, a.dur, a.args
	switch f.Kind {
	case Crash:
		want = 1
		f.A, err = target(0, ServerT, LeaderT, ApplierT)
	case Restart, Isolate:
		want = 1
		f.A, err = target(0, ServerT)
	case Partition, OneWay:
		want = 2
		if f.A, err = target(0, ServerT, ClientT); err == nil {
			f.B, err = target(1, ServerT, ClientT)
		}
		if err == nil && f.A.Kind == ClientT && f.B.Kind == ClientT {
			err = fmt.Errorf("%s: clients have no link between them; name a server", faultNames[f.Kind])
		}
	case Heal:
		if len(args) == 0 {
			break
		}
		want = 2
		if f.A, err = target(0, ServerT, ClientT); err == nil {
			f.B, err = target(1, ServerT, ClientT)
		}
	case Pause:
		want = 2
		if f.A, err = target(0, ClientT, ServerT, LeaderT); err == nil {
			f.D, err = dur(1)
		}
	case Spike:
		want = 3
		if f.D, err = dur(0); err == nil {
			if len(args) < 3 || args[1] != "for" {
				err = fmt.Errorf("spike: want \"spike EXTRA for HOW-LONG\"")
			} else {
				f.For, err = dur(2)
			}
		}
	case LoseReply:
		if f.When == nil || f.When.On == OnReceived || f.When.On == OnHolds {
			err = fmt.Errorf("lose-reply: only a fault tied to a request applied (when cN OP#K applied: or failed:) or a notification (when cN notified#K:) has a reply to lose")
		}
	case LoseRequest:
		if f.When == nil || f.When.On != OnReceived {
			err = fmt.Errorf("lose-request: only a fault tied to a request received (when cN OP#K received:) has a request to lose")
		}
	case Delay:
		want = 1
		if f.When == nil || f.When.On == OnReceived || f.When.On == OnHolds {
			err = fmt.Errorf("delay: only a fault tied to a request applied or a notification has a message to delay")
		} else {
			f.D, err = dur(0)
		}
	case Disconnect:
		want = 1
		f.A, err = target(0, ClientT)
	case Expire:
		want = 1
		f.A, err = target(0, ClientT)
	case Lag:
		want = 1
		if f.A, err = target(0, ServerT, LeaderT, ApplierT); err == nil && f.For == 0 {
			err = fmt.Errorf("lag: want \"lag sN for HOW-LONG\"")
		}
	}
	return want, err
}

func parseTarget(s string) (Target, error) {
	switch s {
	case "leader":
		return Target{Kind: LeaderT}, nil
	case "applier":
		return Target{Kind: ApplierT}, nil
	}
	if len(s) >= 2 && (s[0] == 's' || s[0] == 'c') {
		n, err := strconv.Atoi(s[1:])
		if err == nil && n >= 1 {
			kind := ServerT
			if s[0] == 'c' {
				kind = ClientT
			}
			return Target{Kind: kind, Index: n - 1}, nil
		}
	}
	return Target{}, fmt.Errorf("target %q: want sN, cN, leader or applier", s)
}

func parseTrigger(who, what string, on TriggerOn) (Trigger, error) {
	t, err := parseTarget(who)
	if err != nil || t.Kind != ClientT {
		return Trigger{}, fmt.Errorf("trigger %q: want a client, cN", who)
	}
	name, nth, ok := strings.Cut(what, "#")
	n, err := strconv.Atoi(nth)
	if !ok || err != nil || n < 1 {
		return Trigger{}, fmt.Errorf("trigger %q: want OP#K, such as create#1, or notified#K", what)
	}
	if on == OnNotified || on == OnHolds {
		return Trigger{Client: t.Index, Nth: n, On: on}, nil
	}
	if op, ok := client.OpNamed(name); ok && op != client.OpPing && op != client.OpCreateSession && op != client.OpSetWatches {
		return Trigger{Client: t.Index, Op: op, Nth: n, On: on}, nil
	}
	return Trigger{}, fmt.Errorf("trigger %q: unknown request type %q", what, name)
}
