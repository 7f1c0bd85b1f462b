package sim

import "testing"

// The election orders votes by the epoch a server last followed or led
// before its last logged zxid (zksim found a committed transaction lost
// without it): s1 followed epoch 3's leader, which committed s1's last
// entry, an epoch-1 proposal; s2 led epoch 2, whose proposal nobody else
// logged. s1 must win, though s2's last zxid is the higher.
func TestElectionOrdersVotesByEpoch(t *testing.T) {
	s1 := &server{idx: 0, acceptedEpoch: 3, log: []*txn{{zxid: 1<<32 | 0x1c}, {zxid: 1<<32 | 0x1d}}}
	s2 := &server{idx: 1, acceptedEpoch: 2, log: []*txn{{zxid: 1<<32 | 0x1c}, {zxid: 2<<32 | 1}}}
	if !betterVote(s1, s2) || betterVote(s2, s1) {
		t.Errorf("s2 (epoch 2, last zxid %#x) beat s1 (epoch 3, last zxid %#x)", s2.lastLogged(), s1.lastLogged())
	}
	s2.acceptedEpoch = 3
	if betterVote(s1, s2) || !betterVote(s2, s1) {
		t.Errorf("in one epoch, the later last zxid should win")
	}
}
