package scenarios

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/zksim/zksim/fault"
	"github.com/zksim/zksim/models"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/workload"
)

// Scenario is an experiment with its expected verdict: a Spec, how many
// seeds to run it on, and what the checks must conclude. A scenario file
// states one, and so is a regression test.
type Scenario struct {
	Name        string
	Description string
	Spec        Spec
	// Seeds is how many seeds a run takes by default.
	Seeds int
	// Expect is the verdict the scenario must reach.
	Expect Expectation
	// Source is where it was read from: a file's path, or "built-in".
	Source string
	// Require are situations (Coverage keys) the runs must reach: a set of
	// runs that never reaches one is weak, not as expected.
	Require []string
}

// Expectation is a scenario's expected verdict: every run holds (Pass),
// or some run breaks the named check with a violation of the given kind
// (a checker can find more than one kind: config's readers going back are
// a safety violation, a reader never hearing of the last version a
// liveness one).
type Expectation struct {
	Pass  bool                 `json:"pass"`
	Check string               `json:"check,omitempty"`
	Kind  models.ViolationKind `json:"kind,omitempty"`
}

// Met reports whether violations (of every run, together) are the
// verdict e expects: none, or one of the expected check and kind, and
// nothing more serious beside it. A scenario that expects a liveness
// violation (a waiter stuck) is not as expected when a safety violation
// (two holders) shows too: the more serious finding is news, the lesson
// the scenario states is not the whole story, and a CI run must say so.
// A less serious one beside it (a herd beside two holders) changes
// nothing.
func (e Expectation) Met(violations []models.Violation) bool {
	if e.Pass {
		return len(violations) == 0
	}
	found := false
	for _, v := range violations {
		if v.Check == e.Check && v.Kind == e.Kind {
			found = true
		}
	}
	return found && !slices.ContainsFunc(violations, func(v models.Violation) bool {
		return v.Kind.Rank() < e.Kind.Rank()
	})
}

func (e Expectation) String() string {
	if e.Pass {
		return "pass"
	}
	return fmt.Sprintf("%s violation (%s)", e.Kind, e.Check)
}

// The scenario file's schema. Every field is optional but kind; zero
// values take the kind's defaults. Field names are snake_case.
type fileScenario struct {
	Name        string       `yaml:"name"`
	Description string       `yaml:"description"`
	Kind        string       `yaml:"kind"`
	Variant     string       `yaml:"variant"`
	Ensemble    fileEnsemble `yaml:"ensemble"`
	Clients     int          `yaml:"clients"`
	Workload    fileWorkload `yaml:"workload"`
	Faults      faultList    `yaml:"faults"`
	Rates       *fileRates   `yaml:"rates"`
	Horizon     duration     `yaml:"horizon"`
	Swarm       bool         `yaml:"swarm"`
	Checks      []string     `yaml:"checks"`
	Bound       duration     `yaml:"bound"`
	Seeds       int          `yaml:"seeds"`
	Expect      fileExpect   `yaml:"expect"`
	Require     []string     `yaml:"require"`
}

type fileEnsemble struct {
	Servers        int      `yaml:"servers"`
	TickTime       duration `yaml:"tick_time"`
	SyncLimit      int      `yaml:"sync_limit"`
	SessionTimeout duration `yaml:"session_timeout"`
	// Latency to ElectionTime are delays: absent takes the simulator's
	// default, 0s means none (jitter: 0s makes every message take exactly
	// the latency).
	Latency      *duration `yaml:"latency"`
	Jitter       *duration `yaml:"jitter"`
	DiskDelay    *duration `yaml:"disk_delay"`
	ElectionTime *duration `yaml:"election_time"`
	MaxTime      duration  `yaml:"max_time"`
	// LocalSessionLoss: clients give a session up by their own clock
	// (sim.Config.LocalSessionLoss).
	LocalSessionLoss bool `yaml:"local_session_loss"`
	// ExtendedTypes enables TTL nodes (sim.Config.ExtendedTypes).
	ExtendedTypes bool `yaml:"extended_types"`
	// ContainerCheckInterval: sim.Config.ContainerCheckInterval.
	ContainerCheckInterval duration `yaml:"container_check_interval"`
}

type fileWorkload struct {
	Rounds   int      `yaml:"rounds"`
	Steps    int      `yaml:"steps"`
	Step     duration `yaml:"step"`
	Think    duration `yaml:"think"`
	Fenced   bool     `yaml:"fenced"`
	Careless bool     `yaml:"careless"`
	// CheckBeforeUse: workload.Shape.CheckBeforeUse.
	CheckBeforeUse bool `yaml:"check_before_use"`
	Readers        int  `yaml:"readers"`
	Consumers      int  `yaml:"consumers"`
	Size           int  `yaml:"size"`
	Failures       int  `yaml:"failures"`
	Sync           bool `yaml:"sync"`
	Together       bool `yaml:"together"`
}

type fileRates struct {
	Crash       float64 `yaml:"crash"`
	LeaderCrash float64 `yaml:"leader_crash"`
	Partition   float64 `yaml:"partition"`
	Isolate     float64 `yaml:"isolate"`
	Pause       float64 `yaml:"pause"`
	Spike       float64 `yaml:"spike"`
	LoseReply   float64 `yaml:"lose_reply"`
	Disconnect  float64 `yaml:"disconnect"`
	Outage      float64 `yaml:"outage"`
	Expire      float64 `yaml:"expire"`
	ShortPause  float64 `yaml:"short_pause"`
	Lag         float64 `yaml:"lag"`
	OneWay      float64 `yaml:"one_way"`
	LoseRequest float64 `yaml:"lose_request"`
	Triggered   float64 `yaml:"triggered"`
}

type fileExpect struct {
	Verdict string `yaml:"verdict"`
	Check   string `yaml:"check"`
	Kind    string `yaml:"kind"`
}

// faultList is a scenario's faults in the schedule syntax: a list, one
// fault (or several, "; "-separated) an item, or a block of lines. An item
// "when c1 create#3 applied: lose-reply" reads as a mapping in YAML; it is
// taken back as the text it was.
type faultList []faultLine

type faultLine struct {
	text string
	line int
}

func (l *faultList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode: // a block: one fault a line
		for i, text := range strings.Split(n.Value, "\n") {
			if strings.TrimSpace(text) != "" {
				*l = append(*l, faultLine{text, n.Line + i})
			}
		}
		return nil
	case yaml.SequenceNode:
		for _, item := range n.Content {
			switch {
			case item.Kind == yaml.ScalarNode:
				*l = append(*l, faultLine{item.Value, item.Line})
			case item.Kind == yaml.MappingNode && len(item.Content) == 2 && item.Content[0].Kind == yaml.ScalarNode &&
				item.Content[1].Kind == yaml.ScalarNode:
				*l = append(*l, faultLine{item.Content[0].Value + ": " + item.Content[1].Value, item.Line})
			default:
				return fmt.Errorf("line %d: want a fault such as \"at 1s crash leader\", got %s", item.Line, describeNode(item))
			}
		}
		return nil
	}
	return fmt.Errorf("line %d: want a list of faults, got %s", n.Line, describeNode(n))
}

// duration is a YAML duration such as 10s or 250ms.
type duration time.Duration

func (d *duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil {
		return fmt.Errorf("line %d: want a duration such as 10s or 250ms, got %s", n.Line, describeNode(n))
	}
	*d = duration(v)
	return nil
}

// maxFileSize bounds a scenario file.
const maxFileSize = 1 << 20

// ParseScenario reads a scenario file's text (name is the file's name, for
// messages). Unknown fields, wrong types and values out of range are
// errors (a *FileError) that name the file, the line, the field and what
// was expected.
func ParseScenario(name string, data []byte) (*Scenario, error) {
	f, p, err := decodeScenarioFile(name, data)
	if err != nil {
		return nil, err
	}
	k, err := p.recipeKind(f)
	if err != nil {
		return nil, err
	}
	sc := &Scenario{Name: scenarioName(f), Description: f.Description, Seeds: f.Seeds, Source: name, Require: f.Require}
	if err := p.checkNumbers(f, k); err != nil {
		return nil, err
	}
	s := Spec{Name: sc.Name, Kind: f.Kind, Variant: f.Variant, Clients: f.Clients, Horizon: time.Duration(f.Horizon),
		Swarm: f.Swarm, Checks: f.Checks, Bound: time.Duration(f.Bound), Ensemble: ensembleOf(f), Workload: workloadOf(f)}
	if s.Faults, err = p.faults(f, s, k); err != nil {
		return nil, err
	}
	if s.Rates, err = p.rates(f); err != nil {
		return nil, err
	}
	if f.Swarm && s.Rates == nil {
		return nil, p.fail(p.line("swarm"), "swarm", "true draws each seed's own mix of the random faults' rates, and the file gives none: add rates")
	}
	if sc.Expect, err = p.expectation(f); err != nil {
		return nil, err
	}
	if _, _, err := s.withDefaults(); err != nil {
		return nil, p.fail(0, "", "%s", err)
	}
	if err := p.checkRequire(f, k); err != nil {
		return nil, err
	}
	if err := p.checkExpectedAmongChecks(sc.Expect, s); err != nil {
		return nil, err
	}
	sc.Spec = s
	return sc, nil
}

// fileParse is what the steps of ParseScenario share: the file's name and
// the line of each field written in it, for errors that point at them.
type fileParse struct {
	name  string
	lines map[string]int
}

// fail is a *FileError at line (0: none) and field ("": none).
func (p *fileParse) fail(line int, field, format string, args ...any) error {
	return &FileError{File: p.name, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

func (p *fileParse) line(field string) int { return p.lines[field] }

// decodeScenarioFile decodes a scenario file strictly: at most
// maxFileSize bytes, one YAML document, a mapping of known fields, whole
// numbers where integers belong.
func decodeScenarioFile(name string, data []byte) (*fileScenario, *fileParse, error) {
	p := &fileParse{name: name}
	if len(data) > maxFileSize {
		return nil, nil, p.fail(0, "", "%d bytes; a scenario file holds at most %d", len(data), maxFileSize)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		line, msg := yamlLine(err.Error())
		return nil, nil, p.fail(line, "", "%s", msg)
	}
	if root.Kind == 0 || len(root.Content) == 0 {
		return nil, nil, p.fail(0, "", "empty: want a mapping with at least kind:")
	}
	if doc := root.Content[0]; doc.Kind != yaml.MappingNode {
		return nil, nil, p.fail(doc.Line, "", "want a mapping of fields (name:, kind:, ...), got %s", describeNode(doc))
	}
	p.lines = fieldLines(root.Content[0], "")
	var f fileScenario
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, nil, decodeError(name, err, p.lines)
	}
	var second yaml.Node
	if err := dec.Decode(&second); err != io.EOF {
		return nil, nil, p.fail(second.Line, "", "a second YAML document; a scenario file holds one (remove the --- and what follows)")
	}
	if field, n := notWhole(root.Content[0], "", wholeFields); n != nil {
		return nil, nil, p.fail(n.Line, field, "%s; want a whole number", n.Value)
	}
	return &f, p, nil
}

// recipeKind is the file's recipe kind, its variant checked against it.
func (p *fileParse) recipeKind(f *fileScenario) (*workload.Kind, error) {
	if f.Kind == "" {
		return nil, p.fail(0, "kind", "missing; want one of %s", strings.Join(workload.Kinds(), ", "))
	}
	k, err := workload.Lookup(f.Kind)
	if err != nil {
		return nil, p.fail(p.line("kind"), "kind", "%q; want one of %s", f.Kind, strings.Join(workload.Kinds(), ", "))
	}
	if f.Variant != "" {
		if _, err := k.Variant(f.Variant); err != nil {
			return nil, p.fail(p.line("variant"), "variant", "%s", strings.TrimPrefix(err.Error(), "variant: "))
		}
	}
	return k, nil
}

// scenarioName is the file's name: field, else its variant's, else its
// kind's.
func scenarioName(f *fileScenario) string {
	switch {
	case f.Name != "":
		return f.Name
	case f.Variant != "":
		return f.Variant
	}
	return f.Kind
}

// checkNumbers checks every count and duration of the file against its
// range; an explicit zero, which would silently take the default, is
// refused.
func (p *fileParse) checkNumbers(f *fileScenario, k *workload.Kind) error {
	if err := p.checkCounts(f); err != nil {
		return err
	}
	if f.Workload.Fenced && k.Fenceless() != "" {
		return p.fail(p.line("workload.fenced"), "workload.fenced", "%s", k.Fenceless())
	}
	if f.Clients != 0 && f.Clients < k.MinClients() {
		return p.fail(p.line("clients"), "clients", "%d; a %s scenario needs at least %d", f.Clients, f.Kind, k.MinClients())
	}
	return p.checkDurations(f)
}

// checkCounts checks the file's integer fields.
func (p *fileParse) checkCounts(f *fileScenario) error {
	for _, c := range []struct {
		field   string
		v       int
		lo, hi  int
		allowed []int
	}{
		{"ensemble.servers", f.Ensemble.Servers, 0, 7, []int{0, 1, 3, 5, 7}},
		{"ensemble.sync_limit", f.Ensemble.SyncLimit, 0, 100, nil},
		{"clients", f.Clients, 0, 10000, nil},
		{"workload.rounds", f.Workload.Rounds, 0, 100000, nil},
		{"workload.steps", f.Workload.Steps, 0, 100000, nil},
		{"workload.readers", f.Workload.Readers, 0, 10000, nil},
		{"workload.consumers", f.Workload.Consumers, 0, 10000, nil},
		{"workload.size", f.Workload.Size, 0, 10000, nil},
		{"workload.failures", f.Workload.Failures, 0, 10000, nil},
		{"seeds", f.Seeds, 0, 10000000, nil},
	} {
		written := p.line(c.field) > 0
		switch {
		case c.v == 0 && written && c.field != "workload.failures":
			return p.fail(p.line(c.field), c.field, "0; 0 takes the default: omit the field for that, or give a number from 1 to %d", c.hi)
		case c.allowed != nil && !slices.Contains(c.allowed, c.v):
			return p.fail(p.line(c.field), c.field, "%d; want 1, 3, 5 or 7", c.v)
		case c.v < c.lo || c.v > c.hi:
			return p.fail(p.line(c.field), c.field, "%d; want a number from 1 to %d", c.v, c.hi)
		}
	}
	return nil
}

// checkDurations checks the file's durations.
func (p *fileParse) checkDurations(f *fileScenario) error {
	for _, c := range []struct {
		field     string
		d         duration
		hi, least time.Duration
	}{
		{"ensemble.tick_time", f.Ensemble.TickTime, time.Minute, time.Millisecond},
		{"ensemble.session_timeout", f.Ensemble.SessionTimeout, time.Hour, time.Millisecond},
		{"ensemble.max_time", f.Ensemble.MaxTime, 100 * time.Hour, time.Second},
		{"ensemble.container_check_interval", f.Ensemble.ContainerCheckInterval, time.Hour, time.Millisecond},
		{"workload.step", f.Workload.Step, time.Hour, 0},
		{"workload.think", f.Workload.Think, time.Hour, 0},
		{"horizon", f.Horizon, 100 * time.Hour, 0},
		{"bound", f.Bound, 100 * time.Hour, 0},
	} {
		d := time.Duration(c.d)
		if d == 0 && p.line(c.field) > 0 {
			return p.fail(p.line(c.field), c.field, "0s; a zero duration takes the default: omit the field for that, or give one from %s to %s",
				max(c.least, time.Nanosecond), c.hi)
		}
		if d < 0 || d > c.hi || (d != 0 && d < c.least) {
			return p.fail(p.line(c.field), c.field, "%s; want a duration from %s to %s", d, max(c.least, time.Nanosecond), c.hi)
		}
	}
	for _, c := range []struct {
		field string
		d     *duration
	}{
		{"ensemble.latency", f.Ensemble.Latency}, {"ensemble.jitter", f.Ensemble.Jitter},
		{"ensemble.disk_delay", f.Ensemble.DiskDelay}, {"ensemble.election_time", f.Ensemble.ElectionTime},
	} {
		if c.d != nil && (*c.d < 0 || time.Duration(*c.d) > time.Minute) {
			return p.fail(p.line(c.field), c.field, "%s; want a delay from 0s (none) to 1m0s, or no field for the default", time.Duration(*c.d))
		}
	}
	return nil
}

// simDelay is a delay field as sim.Config takes it: 0 when absent (the
// default), -1 for none.
func simDelay(d *duration) time.Duration {
	switch {
	case d == nil:
		return 0
	case *d == 0:
		return -1
	}
	return time.Duration(*d)
}

// fileDelay is sim.Config's delay as the file's field: absent for the
// default (0), 0s for none (negative).
func fileDelay(d time.Duration) *duration {
	switch {
	case d == 0:
		return nil
	case d < 0:
		d = 0
	}
	v := duration(d)
	return &v
}

// ensembleOf is the file's ensemble: field as the simulator takes it.
func ensembleOf(f *fileScenario) sim.Config {
	e := f.Ensemble
	return sim.Config{Servers: e.Servers, TickTime: time.Duration(e.TickTime),
		SyncLimit: e.SyncLimit, SessionTimeout: time.Duration(e.SessionTimeout),
		Latency: simDelay(e.Latency), Jitter: simDelay(e.Jitter),
		DiskDelay: simDelay(e.DiskDelay), ElectionTime: simDelay(e.ElectionTime),
		MaxTime: time.Duration(e.MaxTime), LocalSessionLoss: e.LocalSessionLoss,
		ExtendedTypes: e.ExtendedTypes, ContainerCheckInterval: time.Duration(e.ContainerCheckInterval)}
}

// workloadOf is the file's workload: field.
func workloadOf(f *fileScenario) workload.Shape {
	w := f.Workload
	return workload.Shape{Rounds: w.Rounds, Steps: w.Steps, Step: time.Duration(w.Step), Think: time.Duration(w.Think),
		Fenced: w.Fenced, Careless: w.Careless, Readers: w.Readers, Consumers: w.Consumers, Size: w.Size, Failures: w.Failures, Sync: w.Sync,
		Together: w.Together, CheckBeforeUse: w.CheckBeforeUse}
}

// faults parses the file's faults: list, each fault naming clients and
// servers the scenario has.
func (p *fileParse) faults(f *fileScenario, s Spec, k *workload.Kind) (fault.Schedule, error) {
	var out fault.Schedule
	for i, fl := range f.Faults {
		field := fmt.Sprintf("faults[%d]", i)
		sched, err := fault.ParseSchedule(fl.text)
		if err != nil {
			return nil, p.fail(fl.line, field, "%s", strings.TrimPrefix(strings.TrimPrefix(err.Error(), "line 1: "), fmt.Sprintf("%q: ", fl.text)))
		}
		for _, flt := range sched {
			if err := faultFits(flt, s, k); err != nil {
				return nil, p.fail(fl.line, field, "%s", err)
			}
		}
		out = append(out, sched...)
	}
	return out, nil
}

// rates is the file's rates: field (nil when absent), every rate a number
// from 0 to 1000 a second.
func (p *fileParse) rates(f *fileScenario) (*fault.Rates, error) {
	r := f.Rates
	if r == nil {
		return nil, nil
	}
	rv := reflect.ValueOf(*r)
	rt := rv.Type()
	for i := 0; i < rt.NumField(); i++ {
		if v := rv.Field(i).Float(); math.IsNaN(v) || v < 0 || v > 1000 {
			field := "rates." + tagName(rt.Field(i))
			return nil, p.fail(p.line(field), field, "%g; want a rate per second from 0 to 1000", v)
		}
	}
	return &fault.Rates{Crash: r.Crash, LeaderCrash: r.LeaderCrash, Partition: r.Partition, Isolate: r.Isolate,
		Pause: r.Pause, Spike: r.Spike, LoseReply: r.LoseReply, Disconnect: r.Disconnect, Outage: r.Outage,
		Expire: r.Expire, ShortPause: r.ShortPause, Lag: r.Lag, LoseRequest: r.LoseRequest, Triggered: r.Triggered,
		OneWay: r.OneWay}, nil
}

// expectation is the file's expect: field, its checks: named checks
// known, and checks of its kind.
func (p *fileParse) expectation(f *fileScenario) (Expectation, error) {
	for i, c := range f.Checks {
		field := fmt.Sprintf("checks[%d]", i)
		if _, err := models.Lookup(c); err != nil {
			return Expectation{}, p.fail(p.line(field), field, "%s", err)
		}
		if kc := KindChecks(f.Kind); kc != nil && !slices.Contains(kc, c) {
			return Expectation{}, p.fail(p.line(field), field, "%q is not a check of kind %s, whose histories it could not judge; want one of %s",
				c, f.Kind, strings.Join(kc, ", "))
		}
	}
	switch f.Expect.Verdict {
	case "", "pass":
		if f.Expect.Check != "" || f.Expect.Kind != "" {
			field := "expect.check"
			if f.Expect.Check == "" {
				field = "expect.kind"
			}
			return Expectation{}, p.fail(p.line(field), field, "named only for verdict: violation")
		}
		return Expectation{Pass: true}, nil
	case "violation":
		return p.expectedViolation(f)
	}
	return Expectation{}, p.fail(p.line("expect.verdict"), "expect.verdict", "%q; want pass or violation", f.Expect.Verdict)
}

// expectedViolation is an expect: of verdict violation: a known check,
// and the kind of violation (the check's own unless named).
func (p *fileParse) expectedViolation(f *fileScenario) (Expectation, error) {
	c, err := models.Lookup(f.Expect.Check)
	if err != nil {
		return Expectation{}, p.fail(p.line("expect.check"), "expect.check", "%q: want the check that must find the violation: %s",
			f.Expect.Check, strings.TrimPrefix(err.Error(), fmt.Sprintf("no check named %q; ", f.Expect.Check)))
	}
	e := Expectation{Check: c.Name, Kind: c.Kind}
	switch k := models.ViolationKind(f.Expect.Kind); k {
	case "":
	case models.Safety, models.Liveness, models.Herd:
		e.Kind = k
	default:
		return Expectation{}, p.fail(p.line("expect.kind"), "expect.kind", "%q; want safety, liveness or herd", f.Expect.Kind)
	}
	return e, nil
}

// checkRequire checks that every required situation is one coverage
// counts for the kind.
func (p *fileParse) checkRequire(f *fileScenario, k *workload.Kind) error {
	for i, r := range f.Require {
		if !slices.Contains(coverageKeys(k), r) {
			field := fmt.Sprintf("require[%d]", i)
			return p.fail(p.line(field), field, "%q; want a coverage situation of kind %s: %s", r, k.Name(), strings.Join(coverageKeys(k), ", "))
		}
	}
	return nil
}

// checkExpectedAmongChecks checks that the check expected to find a
// violation is one the scenario runs.
func (p *fileParse) checkExpectedAmongChecks(e Expectation, s Spec) error {
	checks := s.Checks
	if len(checks) == 0 {
		checks = DefaultChecks(s) // the kind's
	}
	if !e.Pass && !slices.Contains(checks, e.Check) {
		return p.fail(p.line("expect.check"), "expect.check", "%q is not among the scenario's checks (%s)", e.Check,
			strings.Join(checks, ", "))
	}
	return nil
}

// faultFits checks that a fault names clients and servers the scenario
// has.
func faultFits(f fault.Fault, s Spec, k *workload.Kind) error {
	servers := s.Ensemble.ServerCount()
	clients := s.Clients
	if clients == 0 {
		clients = k.Clients()
	}
	for _, t := range []fault.Target{f.A, f.B} {
		switch {
		case t.Kind == fault.ServerT && t.Index >= servers:
			return fmt.Errorf("no server %s in an ensemble of %d", t, servers)
		case t.Kind == fault.ClientT && t.Index >= clients:
			return fmt.Errorf("no client %s among %d", t, clients)
		}
	}
	if f.When != nil && f.When.Client >= clients {
		return fmt.Errorf("no client c%d among %d", f.When.Client+1, clients)
	}
	return nil
}

func tagName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	return name
}

// wholeFields are the fields that hold whole numbers: the decoder would
// take 2.5 for 2.
var wholeFields = map[string]bool{"clients": true, "seeds": true, "ensemble.servers": true, "ensemble.sync_limit": true,
	"workload.rounds": true, "workload.steps": true, "workload.readers": true, "workload.consumers": true,
	"workload.size": true, "workload.failures": true}

// notWhole finds, under mapping n (at path prefix), a field of whole whose
// value is not written as a whole number, and returns its path and node.
func notWhole(n *yaml.Node, prefix string, whole map[string]bool) (string, *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		return "", nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		p := n.Content[i].Value
		if prefix != "" {
			p = prefix + "." + p
		}
		v := n.Content[i+1]
		if whole[p] && v.Kind == yaml.ScalarNode && v.ShortTag() != "!!int" {
			return p, v
		}
		if f, bad := notWhole(v, p, whole); bad != nil {
			return f, bad
		}
	}
	return "", nil
}
