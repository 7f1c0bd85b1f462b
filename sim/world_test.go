package sim

import (
	"strings"
	"testing"
)

// An ensemble's size is 1, 3, 5 or 7, 3 when none is named: the default
// fills only a size left out, and any other size is refused.
func TestEnsembleSize(t *testing.T) {
	for _, n := range []int{0, 1, 3, 5, 7} {
		if _, err := New(Config{Seed: 1, Servers: n}); err != nil {
			t.Errorf("%d servers: %v", n, err)
		}
	}
	if got := (Config{}).ServerCount(); got != DefaultServers {
		t.Errorf("no size named: %d servers, want %d", got, DefaultServers)
	}
	for _, n := range []int{-1, 2, 4, 9} {
		if _, err := New(Config{Seed: 1, Servers: n}); err == nil || !strings.Contains(err.Error(), "want 1, 3, 5 or 7") {
			t.Errorf("%d servers: %v, want refused", n, err)
		}
	}
}
