package models

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/zksim/zksim/client"
)

// The lock histories below are on /lock unless onPath says otherwise;
// times are virtual ns, clients 0-based (c1 is client 0).

// lkAcquire is client c's exclusive acquire, granted token, called at call
// and returned at ret.
func lkAcquire(c int, token, call, ret int64) Operation {
	o := op(c, Acquire, "/lock", call, ret, OK)
	o.Token = token
	return o
}

// lkShared is client c's shared (read) acquire.
func lkShared(c int, token, call, ret int64) Operation {
	o := lkAcquire(c, token, call, ret)
	o.Shared = true
	return o
}

// lkWaiting is client c's acquire still waiting when the run ended at end.
func lkWaiting(c int, call, end int64) Operation {
	return op(c, Acquire, "/lock", call, end, Pending)
}

// lkUse is client c acting on the protected resource at at, presenting
// token, with the resource's answer res (OK or Rejected).
func lkUse(c int, token, at int64, res Result) Operation {
	o := op(c, Use, "/lock", at, at, res)
	o.Token = token
	return o
}

// lkRelease is client c letting go: it last relied on the lock at call and
// let go at ret.
func lkRelease(c int, call, ret int64) Operation {
	return op(c, Release, "/lock", call, ret, OK)
}

// onPath is o on path p.
func onPath(p string, o Operation) Operation {
	o.Path = p
	return o
}

// modelCase is a hand-made history and what a model must say of it.
type modelCase struct {
	name string
	ops  []Operation
	want porcupine.CheckResult
}

// runModelCases checks each case with Linearize, and that CheckModel
// agrees: no violation for a linearizable history, one per object that is
// not, named for the model and the object.
func runModelCases(t *testing.T, m Model, cases []modelCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := Linearize(m, tc.ops)
			if got != tc.want {
				t.Fatalf("Linearize: %s, want %s", got, tc.want)
			}
			vs := CheckModel(m, tc.ops)
			if tc.want == porcupine.Ok {
				if len(vs) != 0 {
					t.Fatalf("CheckModel: %v, want no violation", vs)
				}
				return
			}
			if len(vs) != 1 {
				t.Fatalf("CheckModel: %d violations %v, want 1", len(vs), vs)
			}
			v := vs[0]
			if v.Check != m.Name || v.Kind != Safety || v.Object != tc.ops[0].Path {
				t.Fatalf("violation %s: want check %s, safety, on %s", v, m.Name, tc.ops[0].Path)
			}
			if !strings.Contains(v.Message, "no linearization as a "+m.Doc) {
				t.Fatalf("message %q does not name the model", v.Message)
			}
		})
	}
}

// stuckCase is a history a model rejects, and the operation no
// linearization gets past.
type stuckCase struct {
	name  string
	model Model
	ops   []Operation
	stuck Operation
}

// runStuckCases checks that each rejection's violation names the object,
// the client and the operation it got stuck on, and when that returned.
func runStuckCases(t *testing.T, cases []stuckCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			vs := CheckModel(tc.model, tc.ops)
			if len(vs) != 1 {
				t.Fatalf("%d violations %v, want 1", len(vs), vs)
			}
			v := vs[0]
			if v.Object != tc.stuck.Path {
				t.Errorf("object %q, want %q", v.Object, tc.stuck.Path)
			}
			// The stuck operation first; then those the explanation names.
			if len(v.Ops) == 0 || v.Ops[0] != tc.stuck {
				t.Errorf("ops %v, want the stuck %s first", v.Ops, Describe(tc.stuck))
			}
			if v.At != tc.stuck.Return {
				t.Errorf("at %s, want %s", client.FormatTime(v.At), client.FormatTime(tc.stuck.Return))
			}
			for _, want := range []string{tc.stuck.Path, fmt.Sprintf("c%d's %s", tc.stuck.Client+1, Describe(tc.stuck)), client.FormatTime(tc.stuck.Call)} {
				if !strings.Contains(v.Message, want) {
					t.Errorf("message %q does not say %q", v.Message, want)
				}
			}
		})
	}
}

func TestMutexModel(t *testing.T) {
	runModelCases(t, MutexModel, []modelCase{
		{"an empty history", nil, porcupine.Ok},
		{"two holders one after the other", []Operation{
			lkAcquire(0, 1, 0, 10), lkUse(0, 1, 20, OK), lkRelease(0, 20, 30),
			lkAcquire(1, 2, 40, 50), lkUse(1, 2, 60, OK), lkRelease(1, 60, 70)}, porcupine.Ok},
		{"an acquire waiting while another holds returns after the release", []Operation{
			lkAcquire(0, 1, 0, 10), lkAcquire(1, 2, 5, 50), lkUse(0, 1, 15, OK),
			lkRelease(0, 15, 30), lkUse(1, 2, 55, OK)}, porcupine.Ok},
		{"a release overlapping the next acquire may end first", []Operation{
			lkAcquire(0, 1, 0, 10), lkRelease(0, 10, 40), lkAcquire(1, 2, 20, 30)}, porcupine.Ok},
		{"a lease lost during a pause, learnt late, after the next holder used it", []Operation{
			lkAcquire(0, 1, 0, 10), lkUse(0, 1, 12, OK), lkRelease(0, 12, 100),
			lkAcquire(1, 2, 50, 60), lkUse(1, 2, 70, OK), lkRelease(1, 70, 80)}, porcupine.Ok},
		{"uses at the same instant as a release and an acquire", []Operation{
			lkAcquire(0, 1, 0, 10), lkUse(0, 1, 20, OK), lkRelease(0, 20, 20),
			lkAcquire(1, 2, 20, 20), lkUse(1, 2, 20, OK)}, porcupine.Ok},
		{"a holder still holding at the end", []Operation{
			lkAcquire(0, 1, 0, 10), lkUse(0, 1, 20, OK)}, porcupine.Ok},
		{"two holders at once", []Operation{
			lkAcquire(0, 1, 0, 10), lkAcquire(1, 2, 20, 30)}, porcupine.Illegal},
		{"two holders at once, both acting", []Operation{
			lkAcquire(0, 1, 0, 10), lkAcquire(1, 2, 5, 15), lkUse(0, 1, 20, OK), lkUse(1, 2, 21, OK),
			lkRelease(0, 20, 30), lkRelease(1, 21, 31)}, porcupine.Illegal},
		{"a paused holder acting after its lease passed on", []Operation{
			lkAcquire(0, 1, 0, 10), lkAcquire(1, 2, 50, 60), lkUse(0, 1, 70, OK), lkRelease(0, 70, 100)}, porcupine.Illegal},
		{"a use by a client that never held the lock", []Operation{
			lkAcquire(0, 1, 0, 10), lkUse(1, 0, 20, OK)}, porcupine.Illegal},
		{"a use of a free lock", []Operation{lkUse(0, 0, 20, OK)}, porcupine.Illegal},
		{"a use after its own release", []Operation{
			lkAcquire(0, 1, 0, 10), lkRelease(0, 10, 20), lkUse(0, 1, 30, OK)}, porcupine.Illegal},
		{"a release by a non-holder", []Operation{
			lkAcquire(0, 1, 0, 10), lkRelease(1, 20, 30)}, porcupine.Illegal},
		{"a release of a free lock", []Operation{lkRelease(0, 0, 10)}, porcupine.Illegal},
		{"an acquire by the holder itself", []Operation{
			lkAcquire(0, 1, 0, 10), lkAcquire(0, 2, 20, 30)}, porcupine.Illegal},
		{"a rejected use by a non-holder touched nothing", []Operation{
			lkAcquire(0, 1, 0, 10), lkUse(1, 0, 20, Rejected), lkUse(0, 1, 30, OK)}, porcupine.Ok},
		{"an acquire waiting at the end while another holds", []Operation{
			lkAcquire(0, 1, 0, 10), lkWaiting(1, 20, 100), lkUse(0, 1, 50, OK)}, porcupine.Ok},
		{"an acquire waiting at the end since before another's grant", []Operation{
			lkWaiting(1, 0, 100), lkAcquire(0, 1, 20, 30), lkUse(0, 1, 40, OK)}, porcupine.Ok},
		{"a client told its acquire failed acts on the lock", []Operation{
			op(0, Acquire, "/lock", 0, never, Unknown), lkUse(0, 1, 20, OK)}, porcupine.Illegal},
		{"an acquire of unknown outcome excuses nothing", []Operation{
			op(1, Acquire, "/lock", 0, never, Unknown), lkAcquire(0, 1, 20, 30), lkAcquire(2, 2, 40, 50)}, porcupine.Illegal},
		// Whatever a release returned, its holder let go: an Unlock that
		// failed, or was still under way when the run ended, leaves no
		// holder acting (it once made one client alone a safety violation).
		{"a release that did not return ok lets go", []Operation{
			lkAcquire(0, 1, 0, 10), op(0, Release, "/lock", 20, 30, Pending), lkAcquire(1, 2, 40, 50),
			op(1, Release, "/lock", 60, 70, Failed), lkAcquire(2, 3, 80, 90)}, porcupine.Ok},
		{"a release by a client that does not hold, whatever it returned", []Operation{
			lkAcquire(0, 1, 0, 10), op(1, Release, "/lock", 20, 30, Failed)}, porcupine.Illegal},
		{"an acquire its caller was told failed holds nothing", []Operation{
			op(0, Acquire, "/lock", 0, 10, Failed), lkUse(0, 1, 20, OK)}, porcupine.Illegal},
		// A release is taken from its holder's last use: a holder that
		// stopped acting is no holder, though it called Unlock later.
		{"a release takes effect from its holder's last use", []Operation{
			lkAcquire(0, 1, 0, 10), lkUse(0, 1, 15, OK), lkAcquire(1, 2, 20, 30), lkUse(1, 2, 35, OK),
			op(0, Release, "/lock", 40, 50, OK)}, porcupine.Ok},
		{"locks are independent", []Operation{
			onPath("/a", lkAcquire(0, 1, 0, 10)), onPath("/b", lkAcquire(1, 1, 0, 10)),
			onPath("/a", lkUse(0, 1, 20, OK)), onPath("/b", lkUse(1, 1, 20, OK))}, porcupine.Ok},
	})
}

func TestFencedMutexModel(t *testing.T) {
	runModelCases(t, FencedMutexModel, []modelCase{
		{"an empty history", nil, porcupine.Ok},
		{"two holders one after the other, tokens growing", []Operation{
			lkAcquire(0, 1, 0, 10), lkUse(0, 1, 20, OK), lkRelease(0, 20, 30),
			lkAcquire(1, 2, 40, 50), lkUse(1, 2, 60, OK), lkRelease(1, 60, 70)}, porcupine.Ok},
		{"the first grant may be token 0", []Operation{
			lkAcquire(0, 0, 0, 10), lkUse(0, 0, 20, OK)}, porcupine.Ok},
		{"a holder using its token again", []Operation{
			lkAcquire(0, 1, 0, 10), lkUse(0, 1, 20, OK), lkUse(0, 1, 30, OK)}, porcupine.Ok},
		{"a paused holder's stale use is refused", []Operation{
			lkAcquire(0, 1, 0, 10), lkAcquire(1, 2, 50, 60), lkUse(1, 2, 70, OK),
			lkUse(0, 1, 80, Rejected), lkRelease(0, 10, 90)}, porcupine.Ok},
		{"two holders at once, the resource seeing them in token order", []Operation{
			lkAcquire(0, 1, 0, 10), lkAcquire(1, 2, 20, 30), lkUse(0, 1, 25, OK), lkUse(1, 2, 35, OK)}, porcupine.Ok},
		{"concurrent grants ordered by their tokens", []Operation{
			lkAcquire(0, 2, 0, 30), lkAcquire(1, 1, 10, 20)}, porcupine.Ok},
		{"uses at the same instant ordered by their tokens", []Operation{
			lkAcquire(0, 1, 0, 10), lkAcquire(1, 2, 20, 30), lkUse(1, 2, 40, OK), lkUse(0, 1, 40, OK)}, porcupine.Ok},
		{"a stale use accepted after a newer one", []Operation{
			lkAcquire(0, 1, 0, 10), lkAcquire(1, 2, 20, 30), lkUse(1, 2, 40, OK), lkUse(0, 1, 50, OK)}, porcupine.Illegal},
		{"decreasing tokens", []Operation{
			lkAcquire(0, 5, 0, 10), lkRelease(0, 10, 20), lkAcquire(1, 3, 30, 40)}, porcupine.Illegal},
		{"the same token granted twice", []Operation{
			lkAcquire(0, 1, 0, 10), lkRelease(0, 10, 20), lkAcquire(1, 1, 30, 40)}, porcupine.Illegal},
		{"a refusal with nothing newer accepted", []Operation{
			lkAcquire(0, 1, 0, 10), lkUse(0, 1, 20, Rejected)}, porcupine.Illegal},
		{"a refusal of the token the resource accepted last", []Operation{
			lkAcquire(0, 1, 0, 10), lkUse(0, 1, 20, OK), lkUse(0, 1, 30, Rejected)}, porcupine.Illegal},
		{"an acquire waiting at the end", []Operation{
			lkAcquire(0, 1, 0, 10), lkWaiting(1, 20, 100), lkUse(0, 1, 50, OK)}, porcupine.Ok},
		{"a use that did not return ok or rejected", []Operation{
			lkAcquire(0, 1, 0, 10), op(0, Use, "/lock", 20, 20, Failed)}, porcupine.Illegal},
	})
}

func TestElectionModel(t *testing.T) {
	runModelCases(t, ElectionModel, []modelCase{
		{"an empty history", nil, porcupine.Ok},
		{"one leader after another", []Operation{
			lkAcquire(0, 1, 0, 10), lkUse(0, 1, 20, OK), lkRelease(0, 20, 30),
			lkAcquire(1, 2, 5, 50), lkUse(1, 2, 60, OK)}, porcupine.Ok},
		{"a resignation overlapping the next leader's campaign", []Operation{
			lkAcquire(0, 1, 0, 10), lkRelease(0, 10, 40), lkAcquire(1, 2, 20, 30)}, porcupine.Ok},
		{"candidates still campaigning at the end", []Operation{
			lkAcquire(0, 1, 0, 10), lkWaiting(1, 5, 100), lkWaiting(2, 5, 100)}, porcupine.Ok},
		{"two leaders at once", []Operation{
			lkAcquire(0, 1, 0, 10), lkAcquire(1, 2, 20, 30)}, porcupine.Illegal},
		{"a deposed leader acting as leader", []Operation{
			lkAcquire(0, 1, 0, 10), lkAcquire(1, 2, 50, 60), lkUse(0, 1, 70, OK), lkRelease(0, 70, 100)}, porcupine.Illegal},
		{"a follower acting as leader", []Operation{
			lkAcquire(0, 1, 0, 10), lkUse(1, 0, 20, OK)}, porcupine.Illegal},
		{"a follower resigning", []Operation{
			lkAcquire(0, 1, 0, 10), lkRelease(1, 20, 30)}, porcupine.Illegal},
	})
}

// The election model is the mutex model renamed: every field but its name
// and doc is the mutex's (the same function, the same kinds), so a change
// to the mutex model is the election's too.
func TestElectionModelIsTheMutexModel(t *testing.T) {
	if ElectionModel.Name != "election" || ElectionModel.Doc == MutexModel.Doc {
		t.Errorf("election model named %q, %q", ElectionModel.Name, ElectionModel.Doc)
	}
	e, m := reflect.ValueOf(ElectionModel), reflect.ValueOf(MutexModel)
	for i := range e.NumField() {
		name := e.Type().Field(i).Name
		a, b := e.Field(i), m.Field(i)
		switch {
		case name == "Name" || name == "Doc":
		case a.Kind() == reflect.Func:
			if a.Pointer() != b.Pointer() {
				t.Errorf("the election's %s is not the mutex's", name)
			}
		case !reflect.DeepEqual(a.Interface(), b.Interface()):
			t.Errorf("the election's %s is %v, the mutex's %v", name, a, b)
		}
	}
}

func TestLockViolationNamesTheStuckOperation(t *testing.T) {
	second := lkAcquire(1, 2, 20, 30)
	stale := lkUse(0, 1, 50, OK)
	decreasing := lkAcquire(1, 3, 30, 40)
	stranger := lkRelease(1, 20, 30)
	runStuckCases(t, []stuckCase{
		{"two holders", MutexModel, []Operation{lkAcquire(0, 1, 0, 10), second}, second},
		{"two leaders", ElectionModel, []Operation{lkAcquire(0, 1, 0, 10), second}, second},
		{"a release by a non-holder", MutexModel, []Operation{lkAcquire(0, 1, 0, 10), stranger}, stranger},
		{"a stale use accepted", FencedMutexModel, []Operation{
			lkAcquire(0, 1, 0, 10), lkAcquire(1, 2, 20, 30), lkUse(1, 2, 40, OK), stale}, stale},
		{"decreasing tokens", FencedMutexModel, []Operation{
			lkAcquire(0, 5, 0, 10), lkRelease(0, 10, 20), decreasing}, decreasing},
	})
}

func TestLockModelsRegistered(t *testing.T) {
	assertRegistered(t, MutexModel, FencedMutexModel, ElectionModel)
}

// assertRegistered checks that each model, and the safety checker of the
// same name that runs it, can be found by name.
func assertRegistered(t *testing.T, models ...Model) {
	t.Helper()
	for _, m := range models {
		got, err := LookupModel(m.Name)
		if err != nil || got.Doc != m.Doc {
			t.Errorf("LookupModel(%q) = %q, %v; want the model", m.Name, got.Doc, err)
		}
		c, err := Lookup(m.Name)
		if err != nil || c.Kind != Safety || c.Doc != m.Doc {
			t.Errorf("Lookup(%q) = %s %q, %v; want its safety checker", m.Name, c.Kind, c.Doc, err)
		}
	}
}
