package scenarios

import (
	"strings"
	"testing"

	"github.com/zksim/zksim/models"
)

// A saved history judges as its run did: each client that failed is a
// violation of the "client" check, in the run's words, whether the history
// holds them as a list (a live run's clients fail on their own) or as the
// one failure histories held before.
func TestHistoryJudgesItsClientFailures(t *testing.T) {
	for _, tc := range []struct {
		json string
		want []string
	}{
		{`{"kind":"lock","checks":["mutex"],"client_failures":[{"at_ns":5,"message":"c1 failed: boom"},{"at_ns":0,"message":"c2 failed: bang"}],"ops":[]}`,
			[]string{"c1 failed: boom", "c2 failed: bang"}},
		{`{"kind":"lock","checks":["mutex"],"client_failure":{"at_ns":5,"message":"c1 failed: boom"},"ops":[]}`,
			[]string{"c1 failed: boom"}},
		{`{"kind":"lock","checks":["mutex"],"ops":[]}`, nil},
	} {
		h, err := ParseHistory([]byte(tc.json))
		if err != nil {
			t.Fatalf("%s: %v", tc.json, err)
		}
		vs, err := h.Judge()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, v := range vs {
			if v.Check != "client" || v.Kind != models.Safety {
				t.Errorf("%s: %+v", tc.json, v)
			}
			got = append(got, v.Message)
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s: judged %q, want %q", tc.json, got, tc.want)
		}
	}
}
