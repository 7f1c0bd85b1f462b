package models

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// In a history's JSON a client is named as timelines, reports and
// porcupine's visualization name it: "c1" for Client 0. A history written
// by hand or elsewhere may number its clients from 0 instead, as earlier
// versions of zksim wrote them.

// MarshalJSON writes the operation with its client named "cN".
func (op Operation) MarshalJSON() ([]byte, error) {
	type plain Operation
	return json.Marshal(struct {
		Client string `json:"client"`
		plain
	}{ClientName(op.Client), plain(op)})
}

// UnmarshalJSON reads an operation whose client is "cN" (N from 1) or a
// number from 0.
func (op *Operation) UnmarshalJSON(data []byte) error {
	type plain Operation
	aux := struct {
		Client json.RawMessage `json:"client"`
		*plain
	}{plain: (*plain)(op)}
	if err := json.Unmarshal(data, &aux); err != nil {
		return err
	}
	c, err := parseClient(aux.Client)
	if err != nil {
		return err
	}
	op.Client = c
	return nil
}

// ClientName is client's name: c1 for 0.
func ClientName(client int) string { return "c" + strconv.Itoa(client+1) }

// parseClient reads a client: "cN" (N from 1), or a number from 0.
func parseClient(raw json.RawMessage) (int, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return 0, nil
	}
	var name string
	if json.Unmarshal(raw, &name) == nil {
		n, err := strconv.Atoi(strings.TrimPrefix(name, "c"))
		if !strings.HasPrefix(name, "c") || err != nil || n < 1 {
			return 0, fmt.Errorf("client %q: want c1, c2, ... (or a number from 0)", name)
		}
		return n - 1, nil
	}
	var n int
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, fmt.Errorf("client %s: want c1, c2, ... (or a number from 0)", raw)
	}
	return n, nil
}
