package scenarios

import (
	"fmt"

	"github.com/zksim/zksim/recipes"
)

// Lesson is the experiment that shows a teaching variant's mistake: the
// built-in scenario named for the variant (library/VARIANT.yaml), which
// breaks it. The same spec with the recipe (Variant cleared) holds.
type Lesson struct {
	Variant  recipes.Variant
	Scenario *Scenario
}

// Lessons lists the experiment of every teaching variant, in the order
// recipes.Variants gives them. A variant without its scenario is an
// error: every mistake the tool teaches must be shown.
func Lessons() ([]Lesson, error) {
	lib, err := Library()
	if err != nil {
		return nil, err
	}
	byName := map[string]*Scenario{}
	for _, sc := range lib {
		byName[sc.Name] = sc
	}
	var out []Lesson
	for _, v := range recipes.Variants() {
		sc, ok := byName[v.Name]
		if !ok || sc.Spec.Variant != v.Name || sc.Expect.Pass {
			return nil, fmt.Errorf("teaching variant %s has no built-in scenario that breaks it (library/%s.yaml)", v.Name, v.Name)
		}
		out = append(out, Lesson{Variant: v, Scenario: sc})
	}
	return out, nil
}
