package scenarios

import (
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/sim"
)

// Traffic converts a kept trace into the herd metrics' records.
// (Placeholder until the conversion lands.)
func Traffic(tr *sim.Trace) []models.Traffic { return nil }
