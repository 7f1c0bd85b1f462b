package scenarios

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/zksim/zksim/models"
)

// History is what a run's checks judged, as history.json holds it: the
// operations and the run around them (when it ended, whether it was stuck,
// the liveness bound, the servers' traffic), the kind and its checks, and
// how the run ended when that shapes a verdict (a client that failed, a
// run ended for lack of progress). `zksim check` judges it again with
// Judge, the function a run's verdict comes from, so both say the same.
type History struct {
	Kind           string         `json:"kind,omitempty"`
	Checks         []string       `json:"checks,omitempty"`
	Start          int64          `json:"start_ns,omitempty"`
	End            int64          `json:"end_ns,omitempty"`
	Stuck          bool           `json:"stuck,omitempty"`
	Bound          time.Duration  `json:"bound_ns,omitempty"`
	SessionTimeout time.Duration  `json:"session_timeout_ns,omitempty"`
	Size           int            `json:"size,omitempty"`
	Proceed        int            `json:"proceed,omitempty"`
	ClientFailure  *ClientFailure `json:"client_failure,omitempty"`
	NoProgress     *NoProgress    `json:"no_progress,omitempty"`
	// Causes are what the run showed of a liveness violation's cause, by
	// object (the nodes a lock's waiters waited behind: explain.go).
	Causes  map[string]string  `json:"causes,omitempty"`
	Traffic []models.Traffic   `json:"traffic,omitempty"`
	Ops     []models.Operation `json:"ops"`
}

// ClientFailure is a client that failed (an error or a panic): a safety
// violation of the "client" check.
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

// history is the outcome's History, or one made of its Input (a live
// run's).
func (o *Outcome) history() *History {
	if o.History != nil {
		return o.History
	}
	in := o.Input
	return &History{Kind: o.Spec.Kind, Checks: o.Spec.Checks, Start: in.Start, End: in.End, Stuck: in.Stuck,
		Bound: in.Bound, SessionTimeout: in.SessionTimeout, Size: in.Size, Proceed: in.Proceed, Traffic: in.Traffic, Ops: in.Ops}
}

// Input is what the checks read.
func (h *History) Input() *models.Input {
	return &models.Input{Ops: h.Ops, Start: h.Start, End: h.End, Stuck: h.Stuck, Bound: h.Bound,
		SessionTimeout: h.SessionTimeout, Size: h.Size, Proceed: h.Proceed, Traffic: h.Traffic}
}

// Judge runs checks (the history's own when none are given) on the
// history, and adds what the run's end says: the same violations, in the
// same words, as the run that recorded it found.
func (h *History) Judge(checks ...string) ([]models.Violation, error) {
	if len(checks) == 0 {
		checks = h.Checks
	}
	var out []models.Violation
	if f := h.ClientFailure; f != nil {
		out = append(out, models.Violation{Check: "client", Kind: models.Safety, At: f.At, Message: f.Message})
	}
	vs, err := models.Run(h.Input(), checks...)
	if err != nil {
		return nil, err
	}
	if np := h.NoProgress; np != nil {
		for i := range vs {
			if vs[i].Kind == models.Liveness {
				vs[i].Message += fmt.Sprintf(" [the run was ended at %s: no client made progress and the data tree did not change for %s]",
					np.At, np.Bound)
			}
		}
	}
	explain(vs, h.Causes)
	return append(out, vs...), nil
}

// ParseHistory reads a history: the object a report's history.json holds,
// or a bare list of operations (a history recorded elsewhere). It refuses
// what no run could have recorded: an operation that returns before its
// call, or a negative client.
func ParseHistory(data []byte) (*History, error) {
	h := &History{}
	trimmed := strings.TrimSpace(string(data))
	var err error
	if strings.HasPrefix(trimmed, "[") {
		err = json.Unmarshal(data, &h.Ops)
	} else {
		dec := json.NewDecoder(strings.NewReader(trimmed))
		dec.DisallowUnknownFields()
		err = dec.Decode(h)
	}
	if err != nil {
		return nil, err
	}
	if h.Kind != "" {
		if _, err := lookupKind(h.Kind); err != nil {
			return nil, fmt.Errorf("kind %q: want one of %s", h.Kind, strings.Join(Kinds(), ", "))
		}
	}
	for _, c := range h.Checks {
		if _, err := models.Lookup(c); err != nil {
			return nil, fmt.Errorf("checks: %w", err)
		}
	}
	for i, op := range h.Ops {
		switch {
		case op.Client < 0:
			return nil, fmt.Errorf("operation %d: client %d; clients are numbered from 0 (c1)", i+1, op.Client)
		case op.Return < op.Call && op.Result != models.Pending && op.Result != models.Unknown:
			return nil, fmt.Errorf("operation %d (c%d's %s): returns at %d, before its call at %d", i+1, op.Client+1,
				models.Describe(op), op.Return, op.Call)
		}
	}
	return h, nil
}
