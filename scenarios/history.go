package scenarios

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/workload"
)

// History is what a run's checks judged, as history.json holds it: the
// operations and the run around them (when it ended, whether it was stuck,
// the liveness bound, the servers' traffic), the kind and its checks, and
// how the run ended when that shapes a verdict (a client that failed, a
// run ended for lack of progress). `zksim check` judges it again with
// Judge, the function a run's verdict comes from, so both say the same.
type History struct {
	Kind           string          `json:"kind,omitempty"`
	Checks         []string        `json:"checks,omitempty"`
	Start          int64           `json:"start_ns,omitempty"`
	End            int64           `json:"end_ns,omitempty"`
	Stuck          bool            `json:"stuck,omitempty"`
	Bound          time.Duration   `json:"bound_ns,omitempty"`
	SessionTimeout time.Duration   `json:"session_timeout_ns,omitempty"`
	Size           int             `json:"size,omitempty"`
	Proceed        int             `json:"proceed,omitempty"`
	Permits        int             `json:"permits,omitempty"`
	ClientFailures []ClientFailure `json:"client_failures,omitempty"`
	NoProgress     *NoProgress     `json:"no_progress,omitempty"`
	// OldClientFailure is how a history written before client_failures
	// held its one failure: read into ClientFailures, never written.
	OldClientFailure *ClientFailure `json:"client_failure,omitempty"`
	// Causes are the questions the run's violations asked and what the
	// run showed of their causes (the nodes a lock's waiters waited
	// behind, the server a stale read came from, what struck between two
	// holdings: explain.go), one for each violation that asked, which
	// Judge gives the violations it finds.
	Causes  Causes           `json:"causes,omitempty"`
	Traffic []models.Traffic `json:"traffic,omitempty"`
	// ForeignDeletes are the ephemeral nodes deleted by another client's
	// session, which the ownership check judges.
	ForeignDeletes []models.ForeignDelete `json:"foreign_deletes,omitempty"`
	// Leftovers are the nodes left by clients that had closed their
	// sessions, which the leaks check judges (gathered when it runs).
	Leftovers []models.Leftover  `json:"leftovers,omitempty"`
	Ops       []models.Operation `json:"ops"`
}

// ClientFailure is a client that failed (an error or a panic): a safety
// violation of the "client" check. At is when, where the world knows it
// (a simulated run ends at its first failure; a live run's clients fail
// on their own, each told when the run ends).
type ClientFailure struct {
	At      int64  `json:"at_ns"`
	Message string `json:"message"`
}

// NoProgress is a run ended because nothing happened for Bound: its
// liveness violations say so.
type NoProgress struct {
	At    string        `json:"at"` // as the simulator prints a time
	Bound time.Duration `json:"bound_ns"`
}

// Input is what the checks read.
func (h *History) Input() *models.Input {
	return &models.Input{Ops: h.Ops, Start: h.Start, End: h.End, Stuck: h.Stuck, Bound: h.Bound,
		SessionTimeout: h.SessionTimeout, Size: h.Size, Proceed: h.Proceed, Permits: h.Permits, Traffic: h.Traffic, ForeignDeletes: h.ForeignDeletes,
		Leftovers: h.Leftovers}
}

// Judge runs checks (the history's own when none are given) on the
// history, and adds what the run's end says: the same violations, in the
// same words, as the run that recorded it found.
func (h *History) Judge(checks ...string) ([]models.Violation, error) {
	if len(checks) == 0 {
		checks = h.Checks
	}
	var out []models.Violation
	for _, f := range h.ClientFailures {
		out = append(out, models.Violation{Check: "client", Kind: models.Safety, At: f.At, Message: f.Message})
	}
	vs, err := models.Run(h.Input(), checks...)
	if err != nil {
		return nil, err
	}
	if len(h.ClientFailures) > 0 {
		// The run ended at the first failure, which is its verdict: the
		// waits it cut short are moot, not undecided.
		vs = slices.DeleteFunc(vs, func(v models.Violation) bool {
			return v.Check == "liveness" && v.Kind == models.Undecided
		})
	}
	if np := h.NoProgress; np != nil {
		for i := range vs {
			if vs[i].Kind == models.Liveness {
				vs[i].Message += fmt.Sprintf(" [the run was ended at %s: no client made progress and the data tree did not change for %s]",
					np.At, np.Bound)
			}
		}
	}
	h.Causes.answer(vs)
	return append(out, vs...), nil
}

// ParseHistory reads a history: the object a report's history.json holds,
// or a bare list of operations (a history recorded elsewhere). It refuses
// what no run could have recorded: an operation that returns before its
// call, or a negative client.
func ParseHistory(data []byte) (*History, error) {
	h := &History{}
	trimmed := strings.TrimSpace(string(data))
	if trimmed == "" {
		return nil, errors.New("empty: want a history (an object with kind, checks and ops, or a list of operations)")
	}
	bare := strings.HasPrefix(trimmed, "[")
	dec := json.NewDecoder(strings.NewReader(trimmed))
	dec.DisallowUnknownFields()
	var err error
	if bare {
		err = dec.Decode(&h.Ops)
	} else {
		err = dec.Decode(h)
	}
	if err != nil {
		return nil, err
	}
	if dec.InputOffset() < int64(len(trimmed)) {
		return nil, fmt.Errorf("more after the history, at byte %d: a history file holds one JSON document", dec.InputOffset())
	}
	if old := h.OldClientFailure; old != nil {
		h.ClientFailures, h.OldClientFailure = append([]ClientFailure{*old}, h.ClientFailures...), nil
	}
	if err := h.checkHeader(bare); err != nil {
		return nil, err
	}
	if err := h.Causes.check(); err != nil {
		return nil, err
	}
	for i, op := range h.Ops {
		if err := checkOperation(i, op); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// checkHeader checks a history's kind and checks: a history zksim wrote
// names its kind, and each check is one of the kind's (a check of another
// kind would find nothing to judge).
func (h *History) checkHeader(bare bool) error {
	if !bare && h.Kind == "" {
		return fmt.Errorf("kind: missing; want one of %s (a bare list of operations, recorded elsewhere, needs none)",
			strings.Join(workload.Kinds(), ", "))
	}
	if h.Kind != "" {
		if _, err := workload.Lookup(h.Kind); err != nil {
			return fmt.Errorf("kind %q: want one of %s", h.Kind, strings.Join(workload.Kinds(), ", "))
		}
	}
	for _, c := range h.Checks {
		if _, err := models.Lookup(c); err != nil {
			return fmt.Errorf("checks: %w", err)
		}
		if kc := KindChecks(h.Kind); kc != nil && !slices.Contains(kc, c) {
			return fmt.Errorf("checks: %q is not a check of kind %s; want one of %s", c, h.Kind, strings.Join(kc, ", "))
		}
	}
	return nil
}

// checkOperation checks the ith operation of a history: a known kind and
// result, a client numbered from 0, times from the run's start, and no
// return before its call (but for one whose outcome is not known).
func checkOperation(i int, op models.Operation) error {
	switch {
	case !op.Kind.Known():
		return fmt.Errorf("operation %d: kind %q; not an operation zksim records", i+1, op.Kind)
	case !op.Result.Known():
		return fmt.Errorf("operation %d (c%d's %s): result %q; want ok, no-node, node-exists, bad-version, not-empty, "+
			"unknown, failed, pending or rejected", i+1, op.Client+1, op.Kind, op.Result)
	case op.Client < 0:
		return fmt.Errorf("operation %d: client %d; clients are numbered from 0 (c1)", i+1, op.Client)
	case op.Call < 0 || op.Return < 0:
		return fmt.Errorf("operation %d (c%d's %s): a time before the run's start (call %d, return %d)", i+1, op.Client+1,
			op.Kind, op.Call, op.Return)
	case op.Return < op.Call && op.Result != models.Pending && op.Result != models.Unknown:
		return fmt.Errorf("operation %d (c%d's %s): returns at %d, before its call at %d", i+1, op.Client+1,
			models.Describe(op), op.Return, op.Call)
	}
	return nil
}

// maxHistoryFile bounds what ReadHistoryFile reads: a history.json of a
// million operations is a few hundred megabytes.
const maxHistoryFile = 1 << 30

// ReadHistoryFile reads a history file: a regular file (not a directory, a
// device or a FIFO, which would never end or never begin) of at most a
// gigabyte.
func ReadHistoryFile(name string) ([]byte, error) {
	return readRegularFile(name, "a history file", maxHistoryFile)
}
