package recipes_test

import (
	"testing"

	"github.com/zksim/zksim/recipes"
)

// Each teaching variant is registered once, under a kind, with the lesson
// it teaches and the property whose check catches it: zksim list, the
// lessons and the reports read them there, and a scenario finds the
// variant's constructors by its name (a second registration of a name
// would never be found). workload's TestVariantsRunByTheirKind checks the
// constructors against the kind's.
func TestVariantsRegisteredOnce(t *testing.T) {
	seen := map[string]bool{}
	for _, v := range recipes.Variants() {
		if seen[v.Name] {
			t.Errorf("%s: registered twice", v.Name)
		}
		seen[v.Name] = true
		if v.Name == "" || v.Kind == "" || v.Lesson == "" {
			t.Errorf("%q: kind %q, lesson %q: a variant needs all three", v.Name, v.Kind, v.Lesson)
		}
		switch v.Fails {
		case "safety", "liveness", "herd":
		default:
			t.Errorf("%s: fails %q, want safety, liveness or herd", v.Name, v.Fails)
		}
		if got, ok := recipes.VariantNamed(v.Name); !ok || got.Kind != v.Kind || got.Lesson != v.Lesson {
			t.Errorf("%s: VariantNamed finds another (kind %q, found %v)", v.Name, got.Kind, ok)
		}
	}
	if len(seen) == 0 {
		t.Fatal("no teaching variants registered")
	}
}
