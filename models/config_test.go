package models

import (
	"testing"
	"time"
)

func TestConfigCheck(t *testing.T) {
	const cfg = "/app/config"
	write := func(c int, v int32, call, ret int64, res Result) Operation {
		o := op(c, Write, cfg, call, ret, res)
		o.Data, o.OutVersion = "data", v
		return o
	}
	read := func(c int, v int32, call, ret int64) Operation {
		o := op(c, Read, cfg, call, ret, OK)
		o.OutData, o.OutVersion = "data", v
		return o
	}
	until := func(end int64, ops ...Operation) Input {
		return Input{Ops: ops, End: end, Bound: 30 * time.Second}
	}
	cases := []checkCase{
		{"an empty history", until(secs(100)), nil},
		{"a reader follows the versions", until(secs(100),
			write(0, 1, 0, secs(1), OK), read(1, 1, secs(1), secs(2)),
			write(0, 2, secs(2), secs(3), OK), read(1, 2, secs(3), secs(4)), read(1, 2, secs(5), secs(6))), nil},
		{"a reader that skips a version", until(secs(100),
			write(0, 1, 0, secs(1), OK), write(0, 2, secs(2), secs(3), OK), read(1, 2, secs(3), secs(4))), nil},
		{"a reader goes back", until(secs(100),
			write(0, 3, 0, secs(1), OK), read(1, 3, secs(1), secs(2)), read(1, 2, secs(3), secs(4)), read(1, 1, secs(5), secs(6))),
			[]wantViolation{{cfg, Safety, secs(4), []string{"c2 read version 2 of /app/config at 4.000000s, after it had read version 3 at 2.000000s", "later, 1 more of its reads were older"}}}},
		{"reads ordered by their return", until(secs(100),
			write(0, 3, 0, secs(1), OK), read(1, 2, secs(1), secs(5)), read(1, 3, secs(2), secs(3))),
			[]wantViolation{{cfg, Safety, secs(5), []string{"read version 2", "after it had read version 3 at 3.000000s"}}}},
		{"two readers, each going forward", until(secs(100),
			write(0, 3, 0, secs(1), OK), read(1, 3, secs(1), secs(2)), read(2, 2, secs(3), secs(4)), read(2, 3, secs(5), secs(6))), nil},
		{"two readers going back: one violation each", until(secs(100),
			write(0, 3, 0, secs(1), OK), read(2, 3, secs(1), secs(2)), read(2, 1, secs(3), secs(4)),
			read(1, 3, secs(1), secs(2)), read(1, 2, secs(3), secs(5))),
			[]wantViolation{{cfg, Safety, secs(4), []string{"c3 read version 1"}}, {cfg, Safety, secs(5), []string{"c2 read version 2"}}}},
		{"a reader never hears of the latest", until(secs(100),
			write(0, 1, 0, secs(1), OK), read(1, 1, secs(1), secs(2)), write(0, 2, secs(5), secs(6), OK)),
			[]wantViolation{{cfg, Liveness, secs(36), []string{"c2 never read version 2 of /app/config, which c1 wrote at 6.000000s; its last read, at 2.000000s, was of version 1", "within the bound (30s)"}}}},
		{"a run too short to judge", until(secs(35),
			write(0, 1, 0, secs(1), OK), read(1, 1, secs(1), secs(2)), write(0, 2, secs(5), secs(6), OK)),
			[]wantViolation{{cfg, Undecided, secs(35), []string{"the run ended at 35.000000s, before the latest version of /app/config (2, written by c1 at 6.000000s) plus the bound (30s), and c2 had not read it"}}}},
		{"a short run in which every reader heard of the latest", until(secs(35),
			write(0, 1, 0, secs(1), OK), write(0, 2, secs(5), secs(6), OK), read(1, 2, secs(6), secs(7))), nil},
		{"a write of unknown result is not the latest", until(secs(100),
			write(0, 1, 0, secs(1), OK), read(1, 1, secs(1), secs(2)), write(0, 2, secs(5), never, Unknown)), nil},
		{"a reader that stopped is not judged", until(secs(100),
			write(0, 1, 0, secs(1), OK), read(1, 1, secs(1), secs(2)), write(0, 2, secs(5), secs(6), OK), op(1, Fail, cfg, secs(10), secs(10), OK)), nil},
		{"a reader whose every read failed", until(secs(100),
			write(0, 1, 0, secs(1), OK), op(1, Read, cfg, secs(2), secs(3), NoNode)),
			[]wantViolation{{cfg, Liveness, secs(31), []string{"c2 never read version 1", "it read none at all"}}}},
		{"a reader that went back and never heard of the latest", until(secs(100),
			write(0, 3, 0, secs(1), OK), read(1, 2, secs(1), secs(2)), read(1, 1, secs(2), secs(3))),
			[]wantViolation{{cfg, Safety, secs(3), nil}, {cfg, Liveness, secs(31), nil}}},
		{"each configuration on its own", until(secs(100),
			Operation{Client: 0, Kind: Read, Path: "/c2", Call: 0, Return: secs(1), Result: OK, OutVersion: 2},
			Operation{Client: 0, Kind: Read, Path: "/c1", Call: secs(1), Return: secs(2), Result: OK, OutVersion: 1}), nil},
	}
	runCheckCases(t, "config", cases)
}
