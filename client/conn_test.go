package client

import "testing"

// AddWatch sends ZooKeeper's own numbers for its modes: PERSISTENT is 0,
// PERSISTENT_RECURSIVE 1 (a real server reads them so).
func TestAddWatchModeOf(t *testing.T) {
	for recursive, want := range map[bool]int32{false: 0, true: 1} {
		if got := int32(AddWatchModeOf(recursive)); got != want {
			t.Errorf("AddWatchModeOf(%v) = %d, want %d", recursive, got, want)
		}
	}
}
