package scenarios

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zksim/zksim/models"
)

// questionScenarios are a built-in scenario whose first seed raises each
// question a check asks.
var questionScenarios = map[models.Question]string{
	models.OrphanedNode: "lock-impatient-create",
	models.LeaseLeft:    "semaphore-watch-nth-ahead",
	models.StaleRead:    "stale-read",
	models.TwoHolders:   "lock-adopts-old-node",
	models.LostItem:     "queue-plain-delete",
	models.FailedStep:   "double-barrier-exists-taken",
	models.Unconverged:  "membership-persistent",
}

// Each question is answered from the run by the question alone: the
// violations judged afresh, their messages' words changed, are answered
// as the run answered them. The history keeps each question with its
// answer, and judged again from history.json says what the run said.
func TestCausesFoundByTheQuestion(t *testing.T) {
	for _, q := range models.Questions() {
		name := questionScenarios[q]
		t.Run(string(q), func(t *testing.T) {
			sc, err := LoadScenario(name)
			if err != nil {
				t.Fatal(err)
			}
			o, err := Run(sc.Spec, 1, Options{KeepTrace: true})
			if err != nil {
				t.Fatal(err)
			}
			asked := 0
			for _, v := range o.Violations {
				if v.Question == q && v.Cause != "" {
					asked++
				}
			}
			if asked == 0 {
				t.Fatalf("%s: no violation asks %s and was answered: %v", name, q, o.Violations)
			}
			fresh, err := o.History.Judge()
			if err != nil {
				t.Fatal(err)
			}
			for i := range fresh {
				fresh[i].Message = "words the explanations must not read"
			}
			explainFromTrace(o.World, o.Result.Err, fresh)
			if len(fresh) != len(o.Violations) {
				t.Fatalf("judged afresh: %d violations, the run had %d", len(fresh), len(o.Violations))
			}
			for i, v := range fresh {
				if want := o.Violations[i]; v.Question != want.Question || v.Cause != want.Cause {
					t.Errorf("violation %d, its words changed: %s answered %q; the run: %s answered %q", i+1, v.Question, v.Cause,
						want.Question, want.Cause)
				}
			}
			data, err := json.Marshal(o.History)
			if err != nil {
				t.Fatal(err)
			}
			var saved struct{ Causes []Cause }
			if err := json.Unmarshal(data, &saved); err != nil {
				t.Fatal(err)
			}
			if n := len(causesOf(o.Violations)); len(saved.Causes) != n || !strings.Contains(string(data), `"question":"`+string(q)+`"`) {
				t.Errorf("history.json keeps %d causes, want %d with question %s: %s", len(saved.Causes), n, q, data)
			}
			again := judgedAgain(t, o)
			for i, v := range again {
				if i >= len(o.Violations) || v.String() != o.Violations[i].String() || v.Cause != o.Violations[i].Cause {
					t.Errorf("judged again from history.json: %s, want %s", v, o.Violations[i])
				}
			}
		})
	}
}

// A history written before violations carried their questions, its
// causes a map by object with the question as a key's prefix, is read and
// judged as it was: testdata/oldhistory holds one for each question, with
// what zksim check said of it then.
func TestOldHistoriesJudgedAsBefore(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "oldhistory", "*.json"))
	if err != nil || len(files) < len(models.Questions()) {
		t.Fatalf("%d old histories (%v), want one for each question", len(files), err)
	}
	for _, file := range files {
		data, err := ReadHistoryFile(file)
		if err != nil {
			t.Fatal(err)
		}
		h, err := ParseHistory(data)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		vs, err := h.Judge()
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(strings.TrimSuffix(file, ".json") + ".want")
		if err != nil {
			t.Fatal(err)
		}
		var got strings.Builder
		for _, v := range vs {
			got.WriteString(v.String() + "\n")
		}
		if got.String() != string(want) {
			t.Errorf("%s judged:\n%s\nwant:\n%s", file, got.String(), want)
		}
		if q := models.Question(strings.TrimSuffix(filepath.Base(file), ".json")); !asks(vs, q) {
			t.Errorf("%s: no violation asking %s answered: %v", file, q, vs)
		}
	}
}

// asks reports whether a violation of vs asks q and is answered.
func asks(vs []models.Violation, q models.Question) bool {
	for _, v := range vs {
		if v.Question == q && v.Cause != "" {
			return true
		}
	}
	return false
}

// Saved causes answer the violations judged again, each its own: two
// watchers of one group, the first the run could not answer; an old
// history's cause answers every violation asking its question of its
// object.
func TestSavedCausesAnswerEachViolation(t *testing.T) {
	watchers := func() []models.Violation {
		v := models.Violation{Check: "membership", Kind: models.Liveness, Object: "/g", Message: "m", Question: models.Unconverged}
		return []models.Violation{v, v, {Check: "membership", Object: "/g", Message: "m"}}
	}
	vs := watchers()
	vs[1].Explain("second")
	saved := causesOf(vs)
	data, err := json.Marshal(saved)
	if err != nil {
		t.Fatal(err)
	}
	var read Causes
	if err := json.Unmarshal(data, &read); err != nil {
		t.Fatal(err)
	}
	again := watchers()
	read.answer(again)
	if again[0].Message != "m" || again[1].Message != "m; second" || again[1].Cause != "second" || again[2].Cause != "" {
		t.Errorf("%s answered %+v", data, again)
	}
	var old Causes
	if err := json.Unmarshal([]byte(`{"view:/g":"after that view: x","/l":"the queue"}`), &old); err != nil {
		t.Fatal(err)
	}
	again = watchers()
	old.answer(again)
	if again[0].Message != "m; after that view: x" || again[1].Message != "m; after that view: x" {
		t.Errorf("an old cause answered %+v", again)
	}
}

// A history's causes name questions some check asks.
func TestHistoryRefusesAnUnknownQuestion(t *testing.T) {
	_, err := ParseHistory([]byte(`{"kind":"lock","checks":["mutex"],"causes":[{"question":"why","cause":"because"}],"ops":[]}`))
	if err == nil || !strings.Contains(err.Error(), `question "why"`) {
		t.Errorf("an unknown question: %v", err)
	}
}
