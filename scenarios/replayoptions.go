package scenarios

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// replayOptions are what a replay needs of a run besides its seed, clients,
// rounds and faults: its workload's and ensemble's settings, its faults'
// horizon, its liveness bound and its checks, written as a scenario file
// writes them.
type replayOptions struct {
	Workload fileWorkload `yaml:"workload"`
	Ensemble fileEnsemble `yaml:"ensemble"`
	Horizon  duration     `yaml:"horizon"`
	Bound    duration     `yaml:"bound"`
	Checks   []string     `yaml:"checks"`
}

// OptionsLine writes spec's workload, ensemble, horizon, bound and checks on one line, as
// YAML in flow style with the scenario file's field names, leaving out
// what is zero: "{workload: {steps: 3, step: 5s}, ensemble: {session_timeout:
// 2s}}". WithOptionsLine reads it back. A replay line that carries it runs
// the same experiment whatever the code that printed it was given.
func OptionsLine(spec Spec) string {
	w, e := spec.Workload, spec.Ensemble
	o := replayOptions{
		Workload: fileWorkload{Rounds: w.Rounds, Steps: w.Steps, Step: duration(w.Step), Think: duration(w.Think),
			Fenced: w.Fenced, Careless: w.Careless, CheckBeforeUse: w.CheckBeforeUse, Readers: w.Readers,
			Consumers: w.Consumers, Size: w.Size, Failures: w.Failures, Sync: w.Sync, Together: w.Together},
		Ensemble: fileEnsemble{Servers: e.Servers, TickTime: duration(e.TickTime), SyncLimit: e.SyncLimit,
			SessionTimeout: duration(e.SessionTimeout), Latency: fileDelay(e.Latency), Jitter: fileDelay(e.Jitter),
			DiskDelay: fileDelay(e.DiskDelay), ElectionTime: fileDelay(e.ElectionTime), MaxTime: duration(e.MaxTime),
			LocalSessionLoss: e.LocalSessionLoss, ExtendedTypes: e.ExtendedTypes,
			ContainerCheckInterval: duration(e.ContainerCheckInterval)},
		Horizon: duration(spec.Horizon), Bound: duration(spec.Bound), Checks: spec.Checks,
	}
	return flowOf(reflect.ValueOf(o))
}

// flowOf writes a struct's non-zero fields as a YAML flow mapping, under
// their yaml names; "" when all are zero.
func flowOf(v reflect.Value) string {
	var parts []string
	for i := range v.NumField() {
		f, name := v.Field(i), strings.Split(v.Type().Field(i).Tag.Get("yaml"), ",")[0]
		if f.IsZero() {
			continue
		}
		var text string
		switch x := f.Interface().(type) {
		case duration:
			text = time.Duration(x).String()
		case *duration:
			text = time.Duration(*x).String()
		case []string:
			text = "[" + strings.Join(x, ", ") + "]"
		default:
			if f.Kind() == reflect.Struct {
				text = flowOf(f)
			} else {
				text = fmt.Sprint(x)
			}
		}
		parts = append(parts, name+": "+text)
	}
	if len(parts) == 0 {
		return ""
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// WithOptionsLine is spec with the workload, ensemble, horizon, bound and checks line
// (OptionsLine's) gives, in place of its own: what the line leaves out is
// zero, the kind's default.
func WithOptionsLine(spec Spec, line string) (Spec, error) {
	var o replayOptions
	dec := yaml.NewDecoder(bytes.NewReader([]byte(line)))
	dec.KnownFields(true)
	if err := dec.Decode(&o); err != nil {
		return spec, fmt.Errorf("options %q: %v", line, err)
	}
	f := &fileScenario{Workload: o.Workload, Ensemble: o.Ensemble}
	spec.Workload, spec.Ensemble, spec.Horizon = workloadOf(f), ensembleOf(f), time.Duration(o.Horizon)
	spec.Bound, spec.Checks = time.Duration(o.Bound), o.Checks
	return spec, nil
}
