package sim

// faultPlan holds the faults tied to events of the run.
type faultPlan struct{}

// onReply is called as server s is about to answer req; it reports whether
// the answer was taken over by a fault.
func (p *faultPlan) onReply(s *server, req *request) bool { return false }
