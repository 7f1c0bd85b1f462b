package serve

import (
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/live"
	"github.com/zksim/zksim/sim"
)

// noDelays is a simulated ensemble whose links, disks and reads take no
// virtual time: what a request then waits for through the front end is
// the front end's own doing (its sockets, codec, loop and the simulated
// servers' work), nothing the simulation models.
var noDelays = sim.Config{Seed: 1, Latency: -1, Jitter: -1, DiskDelay: -1, DiskJitter: -1, ReadDelay: -1, LeaderApplyJitter: -1}

// BenchmarkRequestLatency measures one go-zk client's requests, one at a
// time, through the front end and on a local live ensemble of three
// (started as the differential starts it): a small read (getData) and a
// small write (setData of 16 bytes), in µs/request. Through the front end
// twice: with the simulated ensemble's default delays (a read about
// 240µs of virtual time, a write about 1ms), and with none (noDelays), the
// latency the front end itself adds to a request:
//
//	go test -run '^$' -bench RequestLatency ./serve
func BenchmarkRequestLatency(b *testing.B) {
	e, err := live.StartEnsemble(3, live.EnsembleOptions{})
	if err != nil {
		b.Fatalf("a local ensemble: %v", err)
	}
	defer e.Stop()
	for _, op := range []string{"get", "set"} {
		b.Run("front-end/"+op, func(b *testing.B) {
			served(b, Options{Config: sim.Config{Seed: 1}}, func(addrs []string) { requestLoop(b, addrs, op) })
		})
		b.Run("front-end-no-delays/"+op, func(b *testing.B) {
			served(b, Options{Config: noDelays}, func(addrs []string) { requestLoop(b, addrs, op) })
		})
		b.Run("live/"+op, func(b *testing.B) { requestLoop(b, e.ConnectString(), op) })
	}
}

// requestLoop makes op's request b.N times, one at a time, with one go-zk
// session on addrs, and reports the mean in µs/request.
func requestLoop(b *testing.B, addrs []string, op string) {
	c := connectGoZK(b, addrs)
	defer c.Close()
	const path = "/latency"
	if _, err := c.Create(path, make([]byte, 16), 0, zk.WorldACL(zk.PermAll)); err != nil && err != zk.ErrNodeExists {
		b.Fatal(err)
	}
	data := make([]byte, 16)
	var err error
	for b.Loop() {
		if op == "get" {
			_, _, err = c.Get(path)
		} else {
			_, err = c.Set(path, data, -1)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()*1e6/float64(b.N), "µs/request")
}
