package workload

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/zksim/zksim/recipes"
)

// Every teaching variant recipes registers (zksim list's table, a
// lesson) is its kind's to run (what a scenario file names): its kind is
// a workload kind, its name begins with the kind's, and it sets the
// constructors the kind's workload calls, those the kind's recipe sets, no
// fewer (a nil one would be called) and no more (one the workload never
// calls would be a mistake the run never shows).
func TestVariantsRunByTheirKind(t *testing.T) {
	for _, v := range recipes.Variants() {
		k, err := Lookup(v.Kind)
		if err != nil {
			t.Errorf("%s: registered under kind %q: %v", v.Name, v.Kind, err)
			continue
		}
		if !strings.HasPrefix(v.Name, v.Kind+"-") {
			t.Errorf("%s: a variant of %s whose name does not begin with %s-", v.Name, v.Kind, v.Kind)
		}
		if !slices.Contains(k.Variants(), v.Name) {
			t.Errorf("%s: not among the variants of %s: %v", v.Name, v.Kind, k.Variants())
		}
		if got, want := constructors(v.Impl), constructors(k.recipe); len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("%s: sets the constructors %v; the %s workload calls %v", v.Name, got, v.Kind, want)
		}
	}
}

// constructors names the constructors impl sets.
func constructors(impl recipes.Implementation) []string {
	var out []string
	rv := reflect.ValueOf(impl)
	for i := range rv.NumField() {
		if !rv.Field(i).IsNil() {
			out = append(out, rv.Type().Field(i).Name)
		}
	}
	return out
}
