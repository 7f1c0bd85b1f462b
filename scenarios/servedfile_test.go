package scenarios

import (
	"strings"
	"testing"
)

func TestAServedScenarioMayLeaveTheWorkloadOut(t *testing.T) {
	sc, err := ParseServedScenario("outage.yaml", []byte(`
description: the leader goes, then a client's session
ensemble: {servers: 5, session_timeout: 4s}
faults:
  - at 2s crash leader for 3s
  - at 6s expire c7
`))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Name != "outage" || sc.Spec.Ensemble.Servers != 5 || len(sc.Spec.Faults) != 2 || sc.Spec.Kind != "" {
		t.Fatalf("read %+v", sc.Spec)
	}
	for _, c := range []struct{ file, want string }{
		{"clients: 3\nfaults: [at 1s crash s1]\n", "outage.yaml:1: clients: a scenario without a kind is served"},
		{"faults: [at 1s crash s4]\n", "outage.yaml:1: faults[0]: no server s4 in an ensemble of 3"},
		{"faults: [at 1s crush s1]\n", `outage.yaml:1: faults[0]: unknown fault "crush"`},
	} {
		_, err := ParseServedScenario("outage.yaml", []byte(c.file))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %v; want it to begin %q", c.file, err, c.want)
		}
	}
	if _, err := ParseServedScenario("lock.yaml", []byte("kind: lock\nclients: 3\n")); err != nil {
		t.Fatalf("a scenario with a kind: %v", err)
	}
}
