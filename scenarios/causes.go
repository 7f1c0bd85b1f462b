package scenarios

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/zksim/zksim/models"
)

// Cause is what a run showed of one violation's cause, as history.json
// keeps it: the violation (its check and object) and the question it
// asked, with the answer. `zksim check` judges the history again, and the
// violations it finds take their answers from these (Causes.answer), so
// that check says what the run said.
type Cause struct {
	Check    string          `json:"check,omitempty"`
	Object   string          `json:"object,omitempty"`
	Question models.Question `json:"question"`
	Cause    string          `json:"cause,omitempty"`
	// every marks a cause read from an old history, which kept one cause
	// by question and object (causes["held:"+object], say): the cause of
	// every violation that asks it of the object, whatever its check.
	every bool
}

// Causes are the causes of a run's violations, one for each violation
// that asked a question, in the order the violations were found (an
// answer may be ""); a history written before violations carried their
// questions held a map by object, with the question as a prefix, which
// UnmarshalJSON reads too.
type Causes []Cause

// causesOf are the questions vs ask and the answers the run found.
func causesOf(vs []models.Violation) Causes {
	var out Causes
	for _, v := range vs {
		if v.Question != models.NoQuestion {
			out = append(out, Cause{Check: v.Check, Object: v.Object, Question: v.Question, Cause: v.Cause})
		}
	}
	return out
}

// answer answers each violation of vs that asks a question with its
// cause: the first not yet taken of the same check, object and question,
// so that two violations on one object (two watchers of a group) each
// take their own, in the order they were found.
func (cs Causes) answer(vs []models.Violation) {
	taken := make([]bool, len(cs))
	for i := range vs {
		v := &vs[i]
		if v.Question == models.NoQuestion {
			continue
		}
		for k, c := range cs {
			if c.Question != v.Question || c.Object != v.Object || taken[k] || !c.every && c.Check != v.Check {
				continue
			}
			taken[k] = !c.every
			v.Explain(c.Cause)
			break
		}
	}
}

// check refuses a cause whose question no check asks.
func (cs Causes) check() error {
	for i, c := range cs {
		if c.Question == models.NoQuestion || !c.Question.Known() {
			var qs []string
			for _, q := range models.Questions() {
				qs = append(qs, string(q))
			}
			return fmt.Errorf("causes: cause %d: question %q; want one of %s", i+1, c.Question, strings.Join(qs, ", "))
		}
	}
	return nil
}

// UnmarshalJSON reads causes as zksim writes them (a list), or as a
// history written before violations carried their questions held them: a
// map by object, whose key's prefix said the question ("stale:",
// "held:", "lost:", "failed:", "view:"; none for what a lock's or a
// semaphore's waiters waited behind).
func (cs *Causes) UnmarshalJSON(data []byte) error {
	if !bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		var list []Cause
		if err := json.Unmarshal(data, &list); err != nil {
			return err
		}
		*cs = list
		return nil
	}
	var old map[string]string
	if err := json.Unmarshal(data, &old); err != nil {
		return err
	}
	*cs = oldCauses(old)
	return nil
}

// oldQuestions are the prefixes of an old history's cause keys, and the
// questions they stood for.
var oldQuestions = []struct {
	prefix   string
	question models.Question
}{
	{"stale:", models.StaleRead}, {"held:", models.TwoHolders}, {"lost:", models.LostItem},
	{"failed:", models.FailedStep}, {"view:", models.Unconverged},
}

// oldCauses are the causes of an old history's map, in the order of its
// keys. A key without a prefix (an object: its paths begin with "/") was
// the cause of a liveness violation's waiters, whichever it asked: a
// lock's orphaned node or a semaphore's lease.
func oldCauses(old map[string]string) Causes {
	var out Causes
	for _, key := range slices.Sorted(maps.Keys(old)) {
		found := false
		for _, o := range oldQuestions {
			if object, ok := strings.CutPrefix(key, o.prefix); ok {
				out = append(out, Cause{Object: object, Question: o.question, Cause: old[key], every: true})
				found = true
				break
			}
		}
		if !found {
			out = append(out, Cause{Object: key, Question: models.OrphanedNode, Cause: old[key], every: true},
				Cause{Object: key, Question: models.LeaseLeft, Cause: old[key], every: true})
		}
	}
	return out
}
