package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestExitStatus(t *testing.T) {
	cases := []struct {
		args   []string
		status int
		out    string // in stdout
		errOut string // in stderr
	}{
		{[]string{"list"}, 0, "lock-herd", ""},
		{[]string{"demo", "--clients", "2"}, 0, "turns taken in order:", ""},
		{[]string{"demo", "--clients", "0"}, 2, "", "--clients: want 1 to 1000, got 0"},
		{[]string{"demo", "--servers", "4"}, 2, "", "--servers: want 1, 3, 5 or 7"},
		{[]string{"demo", "--faults", "at 1s smash s1"}, 2, "", `--faults: line 1: "at 1s smash s1": unknown fault "smash"`},
		{[]string{"demo", "--faults", "at 1s crash s9"}, 2, "", "no server s9 in an ensemble of 3"},
		{[]string{"demo", "--no-such-flag"}, 2, "", "unknown flag"},
		{[]string{"frobnicate"}, 2, "", "unknown command"},
	}
	for _, tc := range cases {
		var out, errOut bytes.Buffer
		status := run(tc.args, &out, &errOut)
		if status != tc.status || !strings.Contains(out.String(), tc.out) || !strings.Contains(errOut.String(), tc.errOut) {
			t.Errorf("zksim %v: status %d (want %d)\nstdout: %.200s\nstderr: %s", tc.args, status, tc.status, out.String(), errOut.String())
		}
	}
}

// The demo's timeline is the same for the same seed and faults.
func TestDemoIsReproducible(t *testing.T) {
	args := []string{"demo", "--seed", "5", "--clients", "4", "--faults", "at 6ms crash leader"}
	var a, b, e bytes.Buffer
	if run(args, &a, &e) != 0 || run(args, &b, &e) != 0 {
		t.Fatalf("demo failed: %s", e.String())
	}
	if a.String() != b.String() {
		t.Fatal("two demo runs with the same seed printed different timelines")
	}
}
