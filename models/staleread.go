package models

import (
	"fmt"

	"github.com/zksim/zksim/client"
)

// staleGuess is the store check's account of where a stale read came
// from (StaleRead), which a run that knows the server that answered it
// makes exact.
const staleGuess = "from a server that had not applied the write yet"

// staleRead explains a store that no linearization fits by the first
// stale read it shows: a read that returned an older version of the node
// than a write that had already returned when the read was called. A read
// is served by the session's server from its own copy, which may lag the
// leader: sync() first brings it up to date. Its Why is "" when no read
// is stale that way.
func staleRead(ops []Operation) Explanation {
	for _, r := range ops {
		if r.Kind != Get || r.Result != OK {
			continue
		}
		for _, w := range ops {
			if w.Kind != Set || w.Result != OK || w.Path != r.Path || w.Return >= r.Call || w.OutVersion <= r.OutVersion {
				continue
			}
			said := fmt.Sprintf("c%d's read at %s returned version %d (%q), but c%d's write of %q (version %d) had returned at %s, "+
				"before the read was called: a stale read, ", r.Client+1, client.FormatTime(r.Call), r.OutVersion, r.OutData,
				w.Client+1, w.Data, w.OutVersion, client.FormatTime(w.Return))
			return Explanation{Why: said + staleGuess + " (sync() before the read brings a follower up to date; on the leader, " +
				"only a write does)", Named: []Operation{w, r}, Question: StaleRead, guess: guessAfter(said, staleGuess)}
		}
	}
	return Explanation{}
}
