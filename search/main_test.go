package search

import (
	"os"
	"testing"

	"github.com/zksim/zksim/internal/testshrink"
)

// TestMain gives rapid's shrinking the time a loaded machine needs
// (internal/testshrink).
func TestMain(m *testing.M) { os.Exit(testshrink.Run(m)) }
