package zksimtest

import (
	"os"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/testshrink"
)

// TestMain turns the wall-clock budgets off (defaultBudget here, rapid's
// shrink time in internal/testshrink): the searches and the shrinking the
// tests assert on end by their counts, whatever the machine's speed, and
// a loaded machine takes longer, never somewhere else.
func TestMain(m *testing.M) {
	defaultBudget = 24 * time.Hour
	os.Exit(testshrink.Run(m))
}
