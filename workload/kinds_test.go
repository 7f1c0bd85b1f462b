package workload

import (
	"strings"
	"testing"

	"github.com/zksim/zksim/recipes"
)

// One name per variant everywhere: every teaching variant the recipes
// register (zksim list's table) is its kind's variant here (what a
// scenario file names), under that kind, and its name begins with the
// kind's; every variant a kind runs is registered with a lesson.
func TestVariantsNamedByTheirKind(t *testing.T) {
	registered := map[string]bool{}
	for _, v := range recipes.Variants() {
		registered[v.Name] = true
		k, err := Lookup(v.Kind)
		if err != nil {
			t.Errorf("%s: registered under kind %q: %v", v.Name, v.Kind, err)
			continue
		}
		if _, ok := k.variants[v.Name]; !ok {
			t.Errorf("%s: registered under kind %s, which does not run it", v.Name, v.Kind)
		}
		if !strings.HasPrefix(v.Name, v.Kind+"-") {
			t.Errorf("%s: a variant of %s whose name does not begin with %s-", v.Name, v.Kind, v.Kind)
		}
	}
	for _, name := range Kinds() {
		for v := range kinds[name].variants {
			if !registered[v] {
				t.Errorf("%s: a variant of %s with no lesson registered", v, name)
			}
		}
	}
}
