package scenarios

import (
	"encoding/json"
	"maps"
	"testing"
)

// Coverage goes to JSON under names a program can read (no prose keys with
// colons): the fixed counts by name, faults struck and never struck by
// kind, the situations by name; and reads back as it was (zksim merge adds
// shards' coverage read back).
func TestCoverageJSON(t *testing.T) {
	c := Coverage{"struck: crash": 3, "never struck: lose-reply": 2, CovNeverStruck: 2, CovExpiries: 1,
		"acquires that waited for a holder": 5}
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"counts":{"faults_never_struck_total":2,"session_expiries":1},"struck":{"crash":3},` +
		`"never_struck":{"lose-reply":2},"situations":{"acquires that waited for a holder":5}}`
	if string(data) != want {
		t.Fatalf("JSON %s\nwant %s", data, want)
	}
	var back Coverage
	if err := json.Unmarshal(data, &back); err != nil || !maps.Equal(back, c) {
		t.Fatalf("read back %v (%v), want %v", back, err, c)
	}
}
