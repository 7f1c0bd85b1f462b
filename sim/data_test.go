package sim

import (
	"context"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// Data crosses the wire as go-zk sends it: a nil slice as a null buffer,
// which the server stores and answers as null (nil), an empty one as a
// zero-length buffer (an empty, non-nil slice). Create, Set and a multi's
// create and set alike.
func TestEmptyDataIsNotNil(t *testing.T) {
	type read struct {
		path string
		nil_ bool
	}
	var got []read
	run(t, Config{}, func(ctx context.Context, c client.Conn) error {
		_, err := c.Create(ctx, "/nil", nil, 0, acl)
		must(err)
		_, err = c.Create(ctx, "/empty", []byte{}, 0, acl)
		must(err)
		_, err = c.Create(ctx, "/set-empty", []byte("x"), 0, acl)
		must(err)
		_, err = c.Set(ctx, "/set-empty", []byte{}, -1)
		must(err)
		_, err = c.Create(ctx, "/set-nil", []byte("x"), 0, acl)
		must(err)
		_, err = c.Set(ctx, "/set-nil", nil, -1)
		must(err)
		_, err = c.Multi(ctx, &zk.CreateRequest{Path: "/multi-empty", Data: []byte{}, Acl: acl},
			&zk.CreateRequest{Path: "/multi-nil", Acl: acl})
		must(err)
		for _, p := range []string{"/nil", "/empty", "/set-empty", "/set-nil", "/multi-empty", "/multi-nil"} {
			d, st, err := c.Get(ctx, p)
			must(err)
			if len(d) != 0 || st.DataLength != 0 {
				t.Errorf("%s: %q, dataLength %d; want no data", p, d, st.DataLength)
			}
			got = append(got, read{p, d == nil})
		}
		return nil
	})
	want := map[string]bool{"/nil": true, "/empty": false, "/set-empty": false, "/set-nil": true, "/multi-empty": false, "/multi-nil": true}
	for _, r := range got {
		if r.nil_ != want[r.path] {
			t.Errorf("%s reads back nil=%v, want nil=%v", r.path, r.nil_, want[r.path])
		}
	}
	if len(got) != len(want) {
		t.Fatalf("read %d nodes, want %d", len(got), len(want))
	}
}

// ZooKeeper's own nodes hold empty data, not none: the server makes them
// with new byte[0], and a client reads an empty slice (the configuration
// node too, on a standalone server, which writes no configuration).
func TestOwnNodesReadEmpty(t *testing.T) {
	for _, servers := range []int{1, 3} {
		run(t, Config{Servers: servers}, func(ctx context.Context, c client.Conn) error {
			paths := []string{"/", "/zookeeper", "/zookeeper/quota"}
			if servers == 1 {
				paths = append(paths, "/zookeeper/config")
			}
			for _, p := range paths {
				data, _, err := c.Get(ctx, p)
				if err != nil || data == nil || len(data) != 0 {
					t.Errorf("%d servers: get %s = %q (nil %v), %v; want an empty slice", servers, p, data, data == nil, err)
				}
			}
			return nil
		})
	}
}
