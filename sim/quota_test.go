package sim

import (
	"context"
	"fmt"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// A quota's statistics, as the real server kept them in the same steps:
// counted in full when the stats node is created (the create2 answer
// keeping the length of the data the client sent), then kept up to date
// in place as nodes below the path are created, set and deleted (version
// and mzxid unchanged, no watch fired), from whatever the stats node says
// (a client's own numbers, other keys kept); not for a sibling with a
// longer name; undone with a failed multi; and no longer once the limits
// node is gone.
func TestQuotaStatistics(t *testing.T) {
	run(t, Config{}, func(ctx context.Context, c client.Conn) error {
		create := func(path, data string) {
			_, err := c.Create(ctx, path, []byte(data), 0, acl)
			must(err)
		}
		const stats = "/zookeeper/quota/q/zookeeper_stats"
		expect := func(step, want string, version int32, mzxid int64) {
			t.Helper()
			data, st, err := c.Get(ctx, stats)
			must(err)
			if string(data) != want || st.Version != version || st.Mzxid != mzxid || st.DataLength != int32(len(want)) {
				t.Errorf("%s: %q version %d mzxid %#x length %d; want %q version %d mzxid %#x", step, data, st.Version, st.Mzxid,
					st.DataLength, want, version, mzxid)
			}
		}
		create("/q", "abc")
		create("/q/k", "hello")
		create("/zookeeper/quota/q", "")
		create("/zookeeper/quota/q/zookeeper_limits", "count=10,bytes=100")
		_, st, err := c.Create2(ctx, stats, []byte("count=0,bytes=0"), 0, acl)
		must(err)
		if st.DataLength != 15 {
			t.Errorf("create2's Stat: data length %d, want the 15 bytes sent", st.DataLength)
		}
		made := st.Czxid
		expect("counted when created", "count=2,bytes=8", 0, made)
		_, _, w, err := c.GetW(ctx, stats)
		must(err)
		create("/q/k2", "12345678")
		expect("a create below", "count=3,bytes=16", 0, made)
		_, err = c.Set(ctx, "/q", []byte("a"), -1)
		must(err)
		expect("a set below", "count=3,bytes=14", 0, made)
		must(c.Delete(ctx, "/q/k", -1))
		expect("a delete below", "count=2,bytes=9", 0, made)
		create("/qq", "zzz")
		expect("a sibling with a longer name", "count=2,bytes=9", 0, made)
		if ev, ok := w.Poll(); ok {
			t.Errorf("the in-place updates fired %v on the stats node", ev)
		}
		st, err = c.Set(ctx, stats, []byte("count=99,bytes=99"), -1)
		must(err)
		set := st.Mzxid
		create("/q/k3", "")
		expect("from a client's own numbers", "count=100,bytes=99", 1, set)
		st, err = c.Set(ctx, stats, []byte("count=100,bytes=5=;zz=1;aa=2"), -1)
		must(err)
		set = st.Mzxid
		create("/q/e", "")
		expect("other keys kept, sorted", "count=101,bytes=5=;aa=2;zz=1", 2, set)
		_, err = c.Multi(ctx, &zk.CreateRequest{Path: "/q/m", Data: []byte("xy"), Acl: acl},
			&zk.CreateRequest{Path: "/none/x", Acl: acl})
		if err == nil {
			t.Fatal("the multi creating under a missing parent was applied")
		}
		expect("a failed multi", "count=101,bytes=5=;aa=2;zz=1", 2, set)
		must(c.Delete(ctx, "/zookeeper/quota/q/zookeeper_limits", -1))
		create("/q/after", "after")
		expect("limits gone", "count=101,bytes=5=;aa=2;zz=1", 2, set)
		return nil
	})
}

// StatsTrack's reading and writing of a stats node's data.
func TestStatsTrack(t *testing.T) {
	for in, want := range map[string]string{
		"count=2,bytes=8":              "count=2,bytes=8",
		"count=1;bytes=2,,;x=3":        "count=1,bytes=2=;x=3",
		"bytes=5":                      "count=-1,bytes=5",
		"count=,bytes=4":               "count=-1,bytes=4",
		"":                             "count=-1,bytes=-1",
		"count=4,bytes=5=;b=1;a=2;c=0": "count=4,bytes=5=;a=2;b=1;c=0",
	} {
		s, ok := parseStatsTrack([]byte(in))
		if got := fmt.Sprint(s); !ok || got != want {
			t.Errorf("%q read and written: %q (%v), want %q", in, got, ok, want)
		}
	}
	if _, ok := parseStatsTrack([]byte("count=x")); ok {
		t.Error("count=x read as a number")
	}
}
