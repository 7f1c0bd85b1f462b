package main

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Starts that reserve the same record at the same moment: one records
// itself, every other one finds it running, however they interleave.
func TestReserveStateOneAtATime(t *testing.T) {
	for round := range 50 {
		path := filepath.Join(t.TempDir(), "ensembles", "default.json")
		var wg sync.WaitGroup
		var mu sync.Mutex
		won := 0
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// The test binary's command line holds its name.
				if reserveState(path, procOf(os.Getpid(), "zksim.test")) == nil {
					mu.Lock()
					won++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if won != 1 {
			t.Fatalf("round %d: %d starts recorded themselves at once, want 1", round, won)
		}
	}
}
