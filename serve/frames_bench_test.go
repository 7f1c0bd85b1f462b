package serve

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/sim"
)

// benchClients are the go-zk sessions BenchmarkFrontEndFrames opens, and
// benchDepth the calls outstanding on each processor (RunParallel's
// parallelism): enough that the front end, not the simulated latency a
// call waits out, sets the pace.
const (
	benchClients = 4
	benchDepth   = 16
)

// BenchmarkFrontEndFrames measures the frames a second the front end
// carries on loopback: go-zk clients on Listen'ed ports, many calls in
// flight, half small reads (getData) and half small writes (setData of 16
// bytes, replicated by the simulated ensemble), each a frame in and a
// frame out. The clients run in this process and share its processors
// with the front end:
//
//	go test -run '^$' -bench FrontEndFrames ./serve
func BenchmarkFrontEndFrames(b *testing.B) {
	served(b, Options{Config: sim.Config{Seed: 1}}, func(addrs []string) {
		conns := make([]*zk.Conn, benchClients)
		for i := range conns {
			conns[i] = connectGoZK(b, addrs)
			defer conns[i].Close()
			if _, err := conns[i].Create(benchPath(i), make([]byte, 16), 0, zk.WorldACL(zk.PermAll)); err != nil {
				b.Fatal(err)
			}
		}
		var next atomic.Int64
		b.SetParallelism(benchDepth)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			k := int(next.Add(1)) % benchClients
			framesLoop(b, pb, conns[k], benchPath(k))
		})
		b.StopTimer()
		b.ReportMetric(2*float64(b.N)/b.Elapsed().Seconds(), "frames/s")
	})
}

// framesLoop alternates a read and a write of path on c until pb says
// stop.
func framesLoop(b *testing.B, pb *testing.PB, c *zk.Conn, path string) {
	data := make([]byte, 16)
	for i := 0; pb.Next(); i++ {
		var err error
		if i%2 == 0 {
			_, _, err = c.Get(path)
		} else {
			_, err = c.Set(path, data, -1)
		}
		if err != nil {
			b.Error(err)
			return
		}
	}
}

// benchPath is client i's node.
func benchPath(i int) string { return fmt.Sprintf("/bench-%d", i) }
