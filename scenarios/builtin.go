package scenarios

import (
	"fmt"
	"slices"
	"strings"
)

// Builtin finds a built-in experiment by name: a recipe kind (the recipe,
// with no faults) or a teaching variant (its lesson: the experiment that
// breaks it).
func Builtin(name string) (Spec, error) {
	if _, ok := kinds[name]; ok {
		return Spec{Name: name, Kind: name}, nil
	}
	lessons, err := Lessons()
	if err != nil {
		return Spec{}, err
	}
	for _, l := range lessons {
		if l.Variant.Name == name {
			return l.Spec, nil
		}
	}
	return Spec{}, fmt.Errorf("no built-in scenario %q; want a kind (%s) or a teaching variant (zksim list)",
		name, strings.Join(Kinds(), ", "))
}

// Builtins lists the built-in experiments' names, kinds first.
func Builtins() []string {
	out := Kinds()
	var vs []string
	if lessons, err := Lessons(); err == nil {
		for _, l := range lessons {
			vs = append(vs, l.Variant.Name)
		}
	}
	slices.Sort(vs)
	return append(out, vs...)
}

// DefaultChecks are the checks a spec runs when it names none.
func DefaultChecks(s Spec) []string {
	s, _, err := s.withDefaults()
	if err != nil {
		return nil
	}
	return s.Checks
}
