package models

import "testing"

func TestNamingCheck(t *testing.T) {
	const dir = "/app/names"
	register := func(c int, binding string, call, ret int64, res Result) Operation {
		o := op(c, Register, dir, call, ret, res)
		o.Data = binding
		return o
	}
	resolve := func(c int, name string, call, ret int64, res Result, value string) Operation {
		o := op(c, Resolve, dir, call, ret, res)
		o.Data, o.OutData = name, value
		return o
	}
	run := func(ops ...Operation) Input { return Input{Ops: ops, End: secs(100)} }
	cases := []checkCase{
		{"an empty history", run(), nil},
		{"one owner, one told it was taken", run(
			register(0, "svc=host-1", 0, secs(1), OK), register(1, "svc=host-2", 0, secs(2), NodeExists),
			resolve(2, "svc", secs(3), secs(4), OK, "host-1")), nil},
		{"two clients own a name", run(
			register(0, "svc=host-1", 0, secs(1), OK), register(1, "svc=host-2", 0, secs(2), OK)),
			[]wantViolation{{dir + "/svc", Safety, secs(2), []string{`c1 registered "svc" as "host-1" at 1.000000s, and c2 registered it as "host-2" at 2.000000s while c1 still owned it`}}}},
		{"three clients own a name: one violation", run(
			register(0, "svc=host-1", 0, secs(1), OK), register(1, "svc=host-2", 0, secs(2), OK), register(2, "svc=host-3", 0, secs(3), OK)),
			[]wantViolation{{dir + "/svc", Safety, secs(2), nil}}},
		{"two registrations of one binding", run(
			register(0, "svc=host-1", 0, secs(1), OK), register(1, "svc=host-1", 0, secs(2), OK)), nil},
		{"a name taken after its owner stopped", run(
			register(0, "svc=host-1", 0, secs(1), OK), op(0, Fail, dir, secs(2), secs(2), OK), register(1, "svc=host-2", secs(3), secs(15), OK)), nil},
		{"a name taken before its owner stopped", run(
			register(0, "svc=host-1", 0, secs(1), OK), register(1, "svc=host-2", secs(3), secs(15), OK), op(0, Fail, dir, secs(20), secs(20), OK)),
			[]wantViolation{{dir + "/svc", Safety, secs(15), nil}}},
		{"one client registering twice", run(
			register(0, "svc=host-1", 0, secs(1), OK), register(0, "svc=host-2", secs(2), secs(3), OK)), nil},
		{"different names", run(
			register(0, "a=host-1", 0, secs(1), OK), register(1, "b=host-2", 0, secs(2), OK)), nil},
		{"an orphaned registration: told taken, but it was its own", run(
			register(0, "svc=host-1", 0, secs(1), NodeExists), resolve(1, "svc", secs(2), secs(3), OK, "host-1"),
			resolve(2, "svc", secs(4), secs(5), OK, "host-1")),
			[]wantViolation{{dir + "/svc", Liveness, secs(3), []string{`c2 resolved "svc" to "host-1" at 3.000000s, the value of c1's Register called at 0.000000s, which was told the name was taken`, "nobody else can register it"}}}},
		{"a registration that failed with an error, resolved later, may be owned", run(
			failedCall(register(0, "svc=host-1", 0, secs(1), Failed), "zk: connection closed"), resolve(1, "svc", secs(2), secs(3), OK, "host-1")), nil},
		{"a registration that failed, then told taken, resolved later, may be owned", run(
			register(0, "svc=host-1", 0, secs(1), Failed), register(0, "svc=host-1", secs(1), secs(2), NodeExists),
			resolve(1, "svc", secs(3), secs(4), OK, "host-1")), nil},
		{"a registration of unknown result may be owned", run(
			register(0, "svc=host-1", 0, never, Unknown), resolve(1, "svc", secs(2), secs(3), OK, "host-1")), nil},
		{"a value someone else registered", run(
			register(0, "svc=host-1", 0, secs(1), NodeExists), register(1, "svc=host-1", 0, secs(0.5), OK),
			resolve(2, "svc", secs(2), secs(3), OK, "host-1")), nil},
		{"a name not found", run(
			register(0, "svc=host-1", 0, secs(1), Failed), resolve(1, "svc", secs(2), secs(3), NoNode, "")), nil},
		{"each name on its own", run(
			register(0, "b=host-1", 0, secs(1), NodeExists), resolve(1, "b", secs(2), secs(3), OK, "host-1"),
			register(0, "a=host-1", 0, secs(1), OK), register(1, "a=host-2", 0, secs(2), OK)),
			[]wantViolation{{dir + "/a", Safety, secs(2), nil}, {dir + "/b", Liveness, secs(3), nil}}},
		{"a name lost: resolved as missing after its owner was told it owns it", run(
			register(0, "svc=host-1", 0, secs(1), OK), resolve(1, "svc", secs(2), secs(3), NoNode, ""),
			resolve(2, "svc", secs(4), secs(5), NoNode, "")),
			[]wantViolation{{dir + "/svc", Safety, secs(3), []string{`c1 registered "svc" as "host-1" at 1.000000s, and c2, resolving it at 2.000000s, was told there is no such name`}}}},
		{"a name resolved to another value than its owner's", run(
			register(0, "svc=host-1", 0, secs(1), OK), register(1, "svc=host-2", 0, never, Unknown),
			resolve(2, "svc", secs(2), secs(3), OK, "host-2")),
			[]wantViolation{{dir + "/svc", Safety, secs(3), []string{`resolving it at 2.000000s, got "host-2"`}}}},
		{"a resolve that began before the registration returned may miss it", run(
			register(0, "svc=host-1", 0, secs(2), OK), resolve(1, "svc", secs(1), secs(3), NoNode, "")), nil},
		{"a name gone with its owner that stopped", run(
			register(0, "svc=host-1", 0, secs(1), OK), op(0, Fail, dir, secs(2), secs(2), OK),
			resolve(1, "svc", secs(3), secs(4), NoNode, "")), nil},
	}
	runCheckCases(t, "naming", cases)
}
