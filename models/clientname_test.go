package models

import (
	"encoding/json"
	"strings"
	"testing"
)

// A history names its clients as timelines do (c1 for Client 0), and reads
// back a history numbered from 0 as earlier versions wrote it.
func TestClientNames(t *testing.T) {
	data, err := json.Marshal([]Operation{{Client: 0, Kind: Acquire, Path: "/l", Result: OK}, {Client: 2, Kind: Release, Path: "/l"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"client":"c1"`) || !strings.Contains(string(data), `"client":"c3"`) {
		t.Fatalf("%s", data)
	}
	var back []Operation
	if err := json.Unmarshal(data, &back); err != nil || back[0].Client != 0 || back[1].Client != 2 || back[0].Kind != Acquire {
		t.Fatalf("%+v %v", back, err)
	}
	var old []Operation
	if err := json.Unmarshal([]byte(`[{"client":1,"kind":"acquire","path":"/l","result":"ok"}]`), &old); err != nil || old[0].Client != 1 {
		t.Fatalf("a history numbered from 0: %+v %v", old, err)
	}
	for _, bad := range []string{`"c0"`, `"x1"`, `"one"`, `true`} {
		var ops []Operation
		if err := json.Unmarshal([]byte(`[{"client":`+bad+`}]`), &ops); err == nil {
			t.Errorf("client %s accepted", bad)
		}
	}
}
