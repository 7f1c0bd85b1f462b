package scenarios

import (
	"encoding/json"
	"strings"
)

// coverageFields are the JSON names of the fixed coverage keys.
var coverageFields = map[string]string{
	CovNeverStruck: "faults_never_struck_total", CovExpiries: "session_expiries", CovLeaders: "leader_changes",
	CovDisconnects: "connections_lost", CovGoneBefore: "nodes_gone_before_their_watch",
	CovWaitedBehind: "waits_behind_an_existing_node", CovCreateLost: "create_replies_lost", CovDeleteLost: "deletes_lost",
}

// coverageJSON is Coverage as JSON gives it to a program: the fixed counts
// under names of their own, the faults struck and never struck by kind,
// and the kind's situations by their names (the names a scenario's
// require: takes).
type coverageJSON struct {
	Counts      map[string]int `json:"counts,omitempty"`
	Struck      map[string]int `json:"struck,omitempty"`
	NeverStruck map[string]int `json:"never_struck,omitempty"`
	Situations  map[string]int `json:"situations,omitempty"`
}

// MarshalJSON writes c as coverageJSON.
func (c Coverage) MarshalJSON() ([]byte, error) {
	var out coverageJSON
	put := func(m *map[string]int, k string, v int) {
		if *m == nil {
			*m = map[string]int{}
		}
		(*m)[k] = v
	}
	for k, v := range c {
		switch kind, struck := strings.CutPrefix(k, "struck: "); {
		case struck:
			put(&out.Struck, kind, v)
		case strings.HasPrefix(k, "never struck: "):
			put(&out.NeverStruck, strings.TrimPrefix(k, "never struck: "), v)
		case coverageFields[k] != "":
			put(&out.Counts, coverageFields[k], v)
		default:
			put(&out.Situations, k, v)
		}
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (c *Coverage) UnmarshalJSON(data []byte) error {
	var in coverageJSON
	if err := json.Unmarshal(data, &in); err != nil {
		return err
	}
	*c = Coverage{}
	for key, field := range coverageFields {
		if v, ok := in.Counts[field]; ok {
			(*c)[key] = v
		}
	}
	for k, v := range in.Struck {
		(*c)["struck: "+k] = v
	}
	for k, v := range in.NeverStruck {
		(*c)["never struck: "+k] = v
	}
	for k, v := range in.Situations {
		(*c)[k] = v
	}
	return nil
}
