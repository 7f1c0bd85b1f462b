package models

import (
	"errors"
	"fmt"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/go-zookeeper/zk"
)

const never = int64(1<<63 - 1)

func op(client int, kind OpKind, path string, call, ret int64, res Result) Operation {
	return Operation{Client: client, Kind: kind, Path: path, Call: call, Return: ret, Result: res}
}

func TestStoreModel(t *testing.T) {
	create := func(c int, p, data string, call, ret int64, res Result) Operation {
		o := op(c, Create, p, call, ret, res)
		o.Data = data
		return o
	}
	set := func(c int, p, data string, v int32, call, ret int64, res Result, out int32) Operation {
		o := op(c, Set, p, call, ret, res)
		o.Data, o.Version, o.OutVersion = data, v, out
		return o
	}
	get := func(c int, p string, call, ret int64, res Result, data string, v int32) Operation {
		o := op(c, Get, p, call, ret, res)
		o.OutData, o.OutVersion = data, v
		return o
	}
	del := func(c int, p string, v int32, call, ret int64, res Result) Operation {
		o := op(c, Delete, p, call, ret, res)
		o.Version = v
		return o
	}
	cases := []struct {
		name string
		ops  []Operation
		want porcupine.CheckResult
	}{
		{"create then read it", []Operation{
			create(0, "/a", "x", 0, 10, OK), get(1, "/a", 20, 30, OK, "x", 0)}, porcupine.Ok},
		{"a read after a completed write sees it", []Operation{
			create(0, "/a", "x", 0, 10, OK), set(0, "/a", "y", -1, 20, 30, OK, 1),
			get(1, "/a", 40, 50, OK, "x", 0)}, porcupine.Illegal},
		{"a read concurrent with a write may see either", []Operation{
			create(0, "/a", "x", 0, 10, OK), set(0, "/a", "y", -1, 20, 40, OK, 1),
			get(1, "/a", 30, 50, OK, "x", 0)}, porcupine.Ok},
		{"two creates cannot both succeed", []Operation{
			create(0, "/a", "x", 0, 10, OK), create(1, "/a", "y", 0, 10, OK)}, porcupine.Illegal},
		{"one create wins, the other finds it", []Operation{
			create(0, "/a", "x", 0, 10, OK), create(1, "/a", "y", 0, 10, NodeExists)}, porcupine.Ok},
		{"versions count sets", []Operation{
			create(0, "/a", "x", 0, 10, OK), set(0, "/a", "y", 0, 20, 30, OK, 1),
			set(1, "/a", "z", 0, 40, 50, BadVersion, 0), set(1, "/a", "z", 1, 60, 70, OK, 2)}, porcupine.Ok},
		{"a set cannot report a version it could not make", []Operation{
			create(0, "/a", "x", 0, 10, OK), set(0, "/a", "y", -1, 20, 30, OK, 5)}, porcupine.Illegal},
		{"delete with the wrong version fails", []Operation{
			create(0, "/a", "x", 0, 10, OK), del(0, "/a", 3, 20, 30, OK)}, porcupine.Illegal},
		{"an unknown create that happened is seen", []Operation{
			create(0, "/a", "x", 0, never, Unknown), get(1, "/a", 20, 30, OK, "x", 0)}, porcupine.Ok},
		{"an unknown create that never happened", []Operation{
			create(0, "/a", "x", 0, never, Unknown), get(1, "/a", 20, 30, NoNode, "", 0)}, porcupine.Ok},
		{"an unknown create cannot happen before its call", []Operation{
			get(1, "/a", 0, 10, OK, "x", 0), create(0, "/a", "x", 20, never, Unknown)}, porcupine.Illegal},
		{"paths are independent", []Operation{
			create(0, "/a", "x", 0, 10, OK), get(1, "/b", 20, 30, NoNode, "", 0),
			create(1, "/b", "y", 40, 50, OK)}, porcupine.Ok},
		{"a result the store cannot give", []Operation{
			create(0, "/a", "x", 0, 10, NotEmpty)}, porcupine.Illegal},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := CheckStore(tc.ops)
			if got != tc.want {
				t.Fatalf("%s, want %s", got, tc.want)
			}
		})
	}
}

func TestPartitionPerPath(t *testing.T) {
	ops := Porcupine([]Operation{op(0, Get, "/b", 0, 1, NoNode), op(0, Get, "/a", 0, 1, NoNode), op(1, Get, "/b", 2, 3, NoNode)})
	parts := StoreModel.Porcupine().Partition(ops)
	if len(parts) != 2 || len(parts[0]) != 1 || len(parts[1]) != 2 || parts[0][0].Input.(Operation).Path != "/a" {
		t.Fatalf("partitions %v, want /a then /b", parts)
	}
}

func TestResultOf(t *testing.T) {
	cases := map[error]Result{
		nil:                                     OK,
		zk.ErrNoNode:                            NoNode,
		zk.ErrNodeExists:                        NodeExists,
		zk.ErrBadVersion:                        BadVersion,
		zk.ErrNotEmpty:                          NotEmpty,
		zk.ErrConnectionClosed:                  Unknown,
		zk.ErrNoServer:                          Failed,
		zk.ErrSessionExpired:                    Failed,
		fmt.Errorf("wrapped: %w", zk.ErrNoNode): NoNode,
		errors.New("other"):                     Failed,
	}
	for err, want := range cases {
		if got := resultOf(err); got != want {
			t.Errorf("resultOf(%v) = %s, want %s", err, got, want)
		}
	}
}

func TestDescribe(t *testing.T) {
	o := Operation{Kind: Set, Path: "/a", Data: "y", Version: 2, Result: OK, OutVersion: 3}
	if got, want := Describe(o), `set /a "y" v2 → ok v3`; got != want {
		t.Fatalf("Describe = %q, want %q", got, want)
	}
	o = Operation{Kind: Get, Path: "/a", Synced: true, Result: OK, OutData: "y", OutVersion: 3}
	if got, want := Describe(o), `sync+get /a → ok "y" v3`; got != want {
		t.Fatalf("Describe = %q, want %q", got, want)
	}
}
