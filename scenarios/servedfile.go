package scenarios

import (
	"cmp"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/zksim/zksim/fault"
)

// A scenario for zksim serve: the ensemble and the faults a real client
// is served, without a workload (the clients are whoever connects). A
// file with a kind is read as any scenario file (its workload set aside
// when served); one without a kind holds only what serving needs.

// servedFields are the fields a scenario file without a kind may hold.
var servedFields = []string{"name", "description", "ensemble", "faults"}

// LoadServedScenario is LoadScenario for zksim serve: a built-in
// scenario, or a file that may leave the kind and its workload out.
func LoadServedScenario(arg string) (*Scenario, error) {
	if ext := path.Ext(arg); ext == ".yaml" || ext == ".yml" || strings.ContainsRune(arg, os.PathSeparator) {
		data, err := readScenarioFile(arg)
		if err != nil {
			return nil, err
		}
		return ParseServedScenario(arg, data)
	}
	return LoadScenario(arg)
}

// ParseServedScenario reads a scenario file to serve. With a kind it is
// ParseScenario; without one, every field but name, description, ensemble
// and faults is an error naming it, and a fault may name any client (the
// clients come as they connect) but only the ensemble's servers.
func ParseServedScenario(name string, data []byte) (*Scenario, error) {
	f, p, err := decodeScenarioFile(name, data)
	if err != nil {
		return nil, err
	}
	if f.Kind != "" {
		return ParseScenario(name, data)
	}
	for field, line := range p.lines {
		top, _, _ := strings.Cut(field, ".")
		top, _, _ = strings.Cut(top, "[")
		if !slices.Contains(servedFields, top) {
			return nil, p.fail(line, top, "a scenario without a kind is served (zksim serve) and has no workload: "+
				"it holds only %s; give a kind for the rest", strings.Join(servedFields, ", "))
		}
	}
	s := Spec{Name: cmp.Or(f.Name, strings.TrimSuffix(path.Base(name), path.Ext(name))), Ensemble: ensembleOf(f)}
	if s.Faults, err = p.servedFaults(f, s.Ensemble.ServerCount()); err != nil {
		return nil, err
	}
	return &Scenario{Name: s.Name, Description: f.Description, Source: name, Spec: s}, nil
}

// servedFaults is the file's faults, each naming servers the ensemble has.
func (p *fileParse) servedFaults(f *fileScenario, servers int) (fault.Schedule, error) {
	var out fault.Schedule
	for i, fl := range f.Faults {
		field := fmt.Sprintf("faults[%d]", i)
		sched, err := fault.ParseSchedule(fl.text)
		if err != nil {
			return nil, p.fail(fl.line, field, "%s", strings.TrimPrefix(strings.TrimPrefix(err.Error(), "line 1: "), fmt.Sprintf("%q: ", fl.text)))
		}
		for _, flt := range sched {
			for _, t := range []fault.Target{flt.A, flt.B} {
				if t.Kind == fault.ServerT && t.Index >= servers {
					return nil, p.fail(fl.line, field, "no server %s in an ensemble of %d", t, servers)
				}
			}
		}
		out = append(out, sched...)
	}
	return out, nil
}
